// Entry of a parse worker thread: prepares one document at a time (parse → chunks in index form,
// ingest/prepare.ts) and posts the result back. A parser's failure is a result, not a crash; what
// the pool cannot get back (a timeout, running out of memory) it turns into a failure itself.
import { parentPort } from 'node:worker_threads';
import type { ChunkOptions } from './chunker.js';
import type { ParseLimits } from './parsers/types.js';
import { prepareBinaryDocument, type OcrMerge, type Prepared } from './prepare.js';

export interface ParseRequest {
  id: number;
  path: string;
  bytes: Uint8Array;
  chunking: ChunkOptions;
  limits: ParseLimits;
  /** Recognised pages to merge in (the OCR stage's re-write of a document). */
  ocr?: OcrMerge;
}

export interface ParseReply {
  id: number;
  result: Prepared;
}

const port = parentPort!;
port.on('message', (msg: ParseRequest) => {
  void prepareBinaryDocument(msg.bytes, msg.path, msg.chunking, msg.limits, msg.ocr)
    .catch((err: unknown): Prepared => ({ ok: false, status: 'failed', reason: `parser error: ${(err as Error)?.message ?? String(err)}`, kind: 'unknown' }))
    .then((result) => port.postMessage({ id: msg.id, result } satisfies ParseReply));
});
