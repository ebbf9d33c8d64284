// Turns raw file bytes into text, or says why it cannot: binary content is refused; UTF-8 and
// UTF-16 with a byte-order mark are read as they are; anything that is not valid UTF-8 is a legacy
// encoding: chardet guesses which (GBK/GB18030, Shift_JIS, EUC-JP, EUC-KR, Big5, the Windows and
// ISO code pages…) and iconv-lite decodes it; without a confident guess, windows-1252 (the usual
// culprit). The note says which encoding was used.
import * as chardet from 'chardet';
import iconv from 'iconv-lite';

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
    return decodeLegacy(buf);
  }
}

const DETECT_BYTES = 64 * 1024;
/** chardet's names → iconv-lite's; ISO-8859-1 is read as its superset windows-1252, as browsers do. */
const ENCODINGS: Record<string, string> = {
  'GB18030': 'gb18030', 'Shift_JIS': 'shift_jis', 'EUC-JP': 'euc-jp', 'EUC-KR': 'euc-kr', 'Big5': 'big5',
  'ISO-2022-JP': 'iso-2022-jp', 'KOI8-R': 'koi8-r', 'ISO-8859-1': 'windows-1252',
};
const SINGLE_BYTE = /^(windows-125\d|ISO-8859-\d+)$/;

function decodeLegacy(buf: Buffer): Decoded {
  const guess = chardet.analyse(buf.subarray(0, DETECT_BYTES)).find((c) => c.confidence >= 30 && (ENCODINGS[c.name] || SINGLE_BYTE.test(c.name)));
  const encoding = guess ? (ENCODINGS[guess.name] ?? guess.name.toLowerCase()) : null;
  if (encoding && encoding !== 'windows-1252' && iconv.encodingExists(encoding)) {
    return { ...ok(iconv.decode(buf, encoding)), note: `not UTF-8; decoded as ${encoding} (detected)` };
  }
  return { ...ok(decodeWindows1252(buf)), note: 'invalid UTF-8; decoded as windows-1252' };
}

// Node's TextDecoder('windows-1252') is really latin1 (Node < 23): bytes 0x80-0x9f come out as
// invisible C1 controls instead of “smart quotes”, € and dashes. Map that range by hand.
const CP1252_80_9F =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(buf: Buffer): string {
  return buf.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]!);
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
