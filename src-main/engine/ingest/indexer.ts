// Brings a collection's index in line with its folder, in two steps the job queue drives:
// `reconcileWith` walks the folder and lists the paths whose size or mtime changed and the
// documents whose file vanished; `decideFile` says what a read file (file-read.ts) means for the
// index — new and changed files are parsed and chunked, unchanged bytes only refresh the stat, a
// new path with the bytes of a vanished document is a rename and keeps its docid, gone files leave
// the index — and batch-plan.ts turns a batch's decisions into the storage's writes. Documents
// inside a file (an e-mail's attachments, see prepare.ts) are child rows at `<file path>/<sub-path>`
// that follow their file: written, replaced, renamed and dropped with it. Source files are only
// ever read.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { TroveError } from '../errors.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentFingerprint, DocumentRow, DocumentWrite } from '../store/documents.js';
import type { ChunkOptions } from './chunker.js';
import { bytesKnown, limitMoved, sizeLimitFor, type FileRead, type FileStat } from './file-read.js';
import { isBinaryDocument, prepareDocument, type Prepared, type PreparedAttachment } from './prepare.js';
import { errorCode, scanCollection } from './scan.js';
import type { IndexProgress, IndexReport, PathReason as FileProblem } from '../types/indexing.js';

export type { IndexProgress, IndexReport, FileProblem };

export interface IndexerOptions {
  chunking: ChunkOptions;
  maxFileBytes: number;
  /** When set, the limit in force now (a saved setting applies from the next batch on). */
  maxFileBytesNow?: () => number;
}

/** Files of a batch already prepared by the parse workers: its documents (PDF, Office, …; see parseNeeded), and its text files when there are many. */
export type ParsedDocuments = ReadonlyMap<string, Prepared>;

/** A read a parse worker must prepare: a document whose bytes are not what the index has (`fp`: its row). */
export function parseNeeded(r: FileRead, fp: Pick<DocumentRow, 'hash' | 'status'> | undefined): r is FileRead & { kind: 'bytes' } {
  if (r.kind !== 'bytes' || !isBinaryDocument(r.path)) return false;
  return !bytesKnown(fp, r.hash);
}

export type FileOutcome =
  | { path: string; result: 'added' | 'updated'; chunks: number; bytes: number }
  | { path: string; result: 'renamed'; from: string; bytes: number }
  | { path: string; result: 'unchanged'; bytes: number }
  | { path: string; result: 'removed' | 'ignored'; reason?: string }
  | { path: string; result: 'skipped' | 'failed'; reason: string };

export interface ReconcilePlan {
  /** Files in the folder now (the rest of them are unchanged by size and mtime). */
  scanned: number;
  notices: FileProblem[];
  /** New or changed (by size/mtime) or previously failed paths, with their mtime. */
  changed: { path: string; mtimeMs: number }[];
  /** Indexed paths whose file is no longer there (or no longer wanted). */
  vanished: string[];
}

/** Walks the folder and compares it with the index (`known`: its fingerprints, read after the root is checked). Throws IO when the root is unusable. */
export function reconcileWith(collection: CollectionRow, known: () => readonly DocumentFingerprint[], maxFileBytes = Infinity): ReconcilePlan {
  assertRootReadable(collection);
  const scan = scanCollection(collection.root, { include: collection.include, exclude: collection.exclude });
  return comparePlan(scan, known(), maxFileBytes);
}

/** Which scanned files are new or changed, and which known documents vanished. */
export function comparePlan(scan: ReturnType<typeof scanCollection>, fingerprints: readonly DocumentFingerprint[], maxFileBytes: number): ReconcilePlan {
  const known = new Map(fingerprints.map((f) => [f.path, f]));
  const plan: ReconcilePlan = { scanned: scan.files.length, notices: [...scan.problems], changed: [], vanished: [] };
  for (const file of scan.files) {
    const fp = known.get(file.path);
    known.delete(file.path);
    const unchanged = fp && fp.size === file.size && fp.mtime_ms === file.mtimeMs && fp.status !== 'failed' && !limitMoved(fp, sizeLimitFor(file.path, maxFileBytes));
    if (!unchanged) plan.changed.push({ path: file.path, mtimeMs: file.mtimeMs });
  }
  for (const fp of known.keys()) plan.vanished.push(fp);
  return plan;
}

/**
 * What one read file means for the index, decided from its row (`fp`) alone (batch-plan.ts turns
 * the decisions into writes).
 * `renameFrom` finds an indexed document with these bytes whose file is gone; it is asked only
 * for a new path, before the file is prepared.
 */
export type FileDecision =
  | { action: 'keep'; outcome: FileOutcome }
  | { action: 'drop'; fp: DocumentRow; outcome: FileOutcome }
  | { action: 'unindexed'; stat: FileStat; hash: string | null; status: 'skipped' | 'failed'; reason: string; kind: string; outcome: FileOutcome }
  | { action: 'touch'; fp: DocumentRow; stat: FileStat; outcome: FileOutcome }
  | { action: 'rename'; from: RenameSource; stat: FileStat; outcome: FileOutcome }
  | { action: 'index'; stat: FileStat; hash: string; prepared: Prepared & { ok: true }; outcome: FileOutcome };

type RenameSource = Pick<DocumentFingerprint, 'id' | 'path'>;

export function decideFile(
  item: FileRead,
  fp: DocumentRow | undefined,
  opts: IndexerOptions,
  parsed: ParsedDocuments,
  renameFrom: (hash: string) => RenameSource | undefined,
): FileDecision {
  switch (item.kind) {
    case 'missing':
    case 'excluded':
      // never indexed: nothing to drop, but an index run that listed it should say where it went
      if (!fp) return { action: 'keep', outcome: { path: item.path, result: 'ignored', reason: item.kind === 'excluded' ? item.reason : 'deleted before it could be read' } };
      return { action: 'drop', fp, outcome: { path: item.path, result: 'removed', ...(item.kind === 'excluded' ? { reason: item.reason } : {}) } };
    case 'unchanged':
      return { action: 'keep', outcome: { path: item.path, result: 'unchanged', bytes: 0 } };
    case 'too-large':
    case 'error': {
      const status = item.kind === 'too-large' ? 'skipped' : 'failed';
      const reason =
        item.kind === 'too-large' ? `file is ${formatBytes(item.stat.size)}, over the ${formatBytes(sizeLimitFor(item.path, opts.maxFileBytes))} limit${isBinaryDocument(item.path) ? ' for documents' : ''}` : item.reason;
      return { action: 'unindexed', stat: item.stat, hash: null, status, reason, kind: '', outcome: { path: item.path, result: status, reason } };
    }
    case 'bytes':
      break;
  }
  const bytes = item.stat.size;
  if (fp && bytesKnown(fp, item.hash)) return { action: 'touch', fp, stat: item.stat, outcome: { path: item.path, result: 'unchanged', bytes } };
  if (!fp) {
    const from = renameFrom(item.hash);
    if (from) return { action: 'rename', from, stat: item.stat, outcome: { path: item.path, result: 'renamed', from: from.path, bytes } };
  }
  // documents, and text files of a large batch, come prepared by the parse workers
  const prepared =
    parsed.get(item.path) ??
    (isBinaryDocument(item.path) ? { ok: false, status: 'failed', reason: 'the document was not parsed (internal error)', kind: 'unknown' } : prepareDocument(item.buf, item.path, opts.chunking));
  if (!prepared.ok) {
    const { status, reason, kind } = prepared;
    return { action: 'unindexed', stat: item.stat, hash: item.hash, status, reason, kind, outcome: { path: item.path, result: status, reason } };
  }
  return { action: 'index', stat: item.stat, hash: item.hash, prepared, outcome: { path: item.path, result: fp ? 'updated' : 'added', chunks: prepared.chunks.length, bytes } };
}

/** The document row an indexed file writes (docid '' keeps an existing row's). */
export function indexedDocument(collectionId: number, path: string, stat: FileStat, hash: string, prepared: Prepared & { ok: true }, docid: string): DocumentWrite {
  return {
    collectionId,
    path,
    docid,
    title: prepared.title,
    kind: prepared.kind,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    hash,
    status: 'indexed',
    error: prepared.note ?? null,
    warning: prepared.warning ?? null,
    tags: prepared.tags,
    metadata: prepared.metadata,
  };
}

/** The row of a file that could not be indexed (so status can say why). */
export function unindexedDocument(collectionId: number, path: string, stat: FileStat, hash: string | null, status: 'skipped' | 'failed', reason: string, kind: string, docid: string): DocumentWrite {
  return { collectionId, path, docid, title: '', kind: kind || 'unknown', size: stat.size, mtimeMs: stat.mtimeMs, hash, status, error: reason, tags: [], metadata: {} };
}

/** An e-mail attachment's row, at `<file path>/<sub-path>`, with its file's mtime (a child changes when its file does). */
export function attachmentDocument(collectionId: number, parentPath: string, stat: FileStat, att: PreparedAttachment, docid: string, parentId: number | null): DocumentWrite {
  const p = att.prepared;
  return {
    collectionId,
    path: `${parentPath}/${att.path}`,
    docid,
    title: p.ok ? p.title : '',
    kind: p.kind || 'unknown',
    size: att.size,
    mtimeMs: stat.mtimeMs,
    hash: att.hash,
    status: p.ok ? 'indexed' : p.status,
    error: p.ok ? (p.note ?? null) : p.reason,
    warning: p.ok ? (p.warning ?? null) : null,
    tags: p.ok ? p.tags : [],
    metadata: p.ok ? p.metadata : {},
    parentId,
  };
}

/** Random hex docids, drawn from a pool. */
// One randomBytes call per document cost ~12 µs each (a tenth of a second per 10k files): draw from a pool.
const randomPool = { buf: Buffer.alloc(0), at: 0 };
export function randomHex(bytes: number): string {
  if (randomPool.at + bytes > randomPool.buf.length) Object.assign(randomPool, { buf: randomBytes(4096), at: 0 });
  randomPool.at += bytes;
  return randomPool.buf.toString('hex', randomPool.at - bytes, randomPool.at);
}

export function assertRootReadable(collection: CollectionRow): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(collection.root);
  } catch (err) {
    throw new TroveError('IO', `collection "${collection.name}": folder ${collection.root} is missing or unreadable (${errorCode(err)})`);
  }
  if (!st.isDirectory()) throw new TroveError('IO', `collection "${collection.name}": ${collection.root} is not a folder`);
  try {
    fs.accessSync(collection.root, fs.constants.R_OK | fs.constants.X_OK);
  } catch (err) {
    throw new TroveError('IO', `collection "${collection.name}": folder ${collection.root} is not readable (${errorCode(err)})`);
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
