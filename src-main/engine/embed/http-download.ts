// One resumable HTTP download into a .part file: an interrupted download continues from the
// bytes already there with a Range request (a server that ignores Range starts it over). The
// caller checks what arrived and renames it into place; nothing here decides a file is good.
import fs from 'node:fs';
import { TroveError } from '../errors.js';

export type ByteProgress = (received: number, total: number | null) => void;

export async function fetchResumable(url: string, part: string, progress: ByteProgress, signal?: AbortSignal): Promise<void> {
  const have = fs.existsSync(part) ? fs.statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: have ? { Range: `bytes=${have}-` } : {}, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new TroveError('UNAVAILABLE', `cannot download ${url}: ${networkReason(err)} (offline? keyword search keeps working)`);
  }
  if (res.status === 416 && have) return; // the .part is already whole
  if (!res.ok || !res.body) throw new TroveError('UNAVAILABLE', `cannot download ${url}: HTTP ${res.status}`);
  const resumed = res.status === 206;
  const length = Number(res.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? length + (resumed ? have : 0) : null;
  const out = fs.createWriteStream(part, { flags: resumed ? 'a' : 'w' });
  let received = resumed ? have : 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      progress(received, total);
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new TroveError('UNAVAILABLE', `download of ${url} was interrupted at ${received} bytes (${(err as Error).message}); run the same command again to resume`);
  } finally {
    await new Promise<void>((r) => out.end(() => r()));
  }
  if (total !== null && received < total) {
    throw new TroveError('UNAVAILABLE', `download of ${url} stopped at ${received} of ${total} bytes; run the same command again to resume`);
  }
}

/** fetch's "fetch failed" hides the reason in its cause (ENOTFOUND, ECONNREFUSED, a TLS error): say it. */
function networkReason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause && !e.message.includes(cause) ? `${e.message} (${cause})` : e.message;
}
