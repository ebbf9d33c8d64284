// Turns raw file bytes into text, or says why it cannot: binary content is refused,
// invalid UTF-8 falls back to windows-1252 (the usual culprit) and says so.
export type Decoded = { ok: true; text: string; note?: string } | { ok: false; reason: string };

const SNIFF_BYTES = 8192;

export function decodeText(buf: Buffer): Decoded {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return ok(new TextDecoder('utf-16le').decode(buf.subarray(2)));
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return ok(new TextDecoder('utf-16be').decode(buf.subarray(2)));
  if (looksBinary(buf)) return { ok: false, reason: 'binary content (not text)' };
  const start = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  try {
    return ok(new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(start)));
  } catch {
    return { ...ok(new TextDecoder('windows-1252').decode(buf)), note: 'invalid UTF-8; decoded as windows-1252' };
  }
}

function ok(text: string): { ok: true; text: string } {
  // One line-ending convention inside the index: offsets and line numbers stay simple.
  return { ok: true, text: text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text };
}

function looksBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = buf[i]!;
    if (b === 0) return true;
    if (b < 7 || (b > 13 && b < 32 && b !== 27)) control++;
  }
  return n > 0 && control / n > 0.1;
}
