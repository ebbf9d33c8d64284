// Entry of a parse worker thread: prepares one document at a time (parse → chunks in index form,
// ingest/prepare.ts), or reads and prepares a group of text files, and posts the result back. A
// parser's failure is a result, not a crash; what the pool cannot get back (a timeout, running out
// of memory) it turns into a failure itself. The thread runs niced: indexing is background work.
import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentRow } from '../store/documents.js';
import type { ChunkOptions } from './chunker.js';
import { bytesKnown, readFiles, type FileRead } from './file-read.js';
import type { ParseLimits } from './parsers/types.js';
import { prepareBinaryDocument, prepareDocument, type OcrMerge, type Prepared } from './prepare.js';
import { lowerThreadPriority } from '../worker-script.js';

export interface ParseWorkerInit {
  nice: number;
}

/** Text files of one folder to read and prepare, each with what the index has of it. */
export interface TextFiles {
  root: string;
  maxFileBytes: number;
  files: { path: string; known?: KnownFile }[];
}

/** A file as the index knows it (for the stat fast path and the unchanged-bytes check). */
export type KnownFile = Pick<DocumentRow, 'size' | 'mtimeMs' | 'status' | 'hash'>;

/** What a text file came to: read (its bytes left behind: they were prepared here), and prepared when they changed. */
export interface TextResult {
  read: FileRead;
  prepared: Prepared | null;
}

/** How many files a worker reads at once (small files are latency-bound). */
const READ_CONCURRENCY = 8;
/** The engine sends only the files its collection's rules want. */
const ALL_WANTED = { wantsFile: () => true };
/** A text file's bytes stay here once prepared: nothing on the engine's side reads them again. */
const EMPTY = Buffer.alloc(0);

async function readAndPrepare(job: TextFiles, chunking: ChunkOptions): Promise<TextResult[]> {
  const known = new Map(job.files.flatMap((f) => (f.known ? [[f.path, f.known] as const] : [])));
  const reads = await readFiles({ root: job.root, filter: ALL_WANTED, maxFileBytes: job.maxFileBytes, known: (p) => known.get(p) }, job.files.map((f) => f.path), READ_CONCURRENCY);
  return reads.map((read) => {
    if (read.kind !== 'bytes') return { read, prepared: null };
    const prepared = bytesKnown(known.get(read.path), read.hash) ? null : prepareDocument(read.buf, read.path, chunking);
    return { read: { ...read, buf: EMPTY }, prepared };
  });
}

export type ParseRequest = { id: number; chunking: ChunkOptions } & (
  | {
      kind: 'document';
      path: string;
      bytes: Uint8Array;
      limits: ParseLimits;
      /** Recognised pages to merge in (the OCR stage's re-write of a document). */
      ocr?: OcrMerge;
    }
  | ({ kind: 'texts' } & TextFiles)
);

export type ParseReply = { id: number } & ({ kind: 'document'; result: Prepared } | { kind: 'texts'; results: TextResult[] | null });

lowerThreadPriority((workerData as ParseWorkerInit).nice);

const port = parentPort!;
port.on('message', (msg: ParseRequest) => {
  if (msg.kind === 'texts') {
    // should anything throw, the engine reads the files itself (results null)
    void readAndPrepare(msg, msg.chunking)
      .catch(() => null)
      .then((results) => port.postMessage({ id: msg.id, kind: 'texts', results } satisfies ParseReply));
    return;
  }
  void prepareBinaryDocument(msg.bytes, msg.path, msg.chunking, msg.limits, msg.ocr)
    .catch((err: unknown): Prepared => ({ ok: false, status: 'failed', reason: `parser error: ${(err as Error)?.message ?? String(err)}`, kind: 'unknown' }))
    .then((result) => port.postMessage({ id: msg.id, kind: 'document', result } satisfies ParseReply));
});
