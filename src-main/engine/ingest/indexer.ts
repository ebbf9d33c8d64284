// Brings one collection's index in line with its folder: new and changed files are parsed
// and chunked, unchanged files cost one stat, renamed files keep their docid, deleted files
// leave the index. Source files are only ever read.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { TroveError } from '../errors.js';
import type { CollectionRow } from '../store/collections.js';
import type { Db } from '../store/database.js';
import type { ChunkStore, FtsRow } from '../store/chunks.js';
import type { DocumentFingerprint, DocumentStore } from '../store/documents.js';
import type { ChunkOptions } from './chunker.js';
import { prepareDocument } from './prepare.js';
import { errorCode, scanCollection, type ScannedFile } from './scan.js';

export interface IndexProgress {
  collection: string;
  phase: 'scanning' | 'indexing' | 'done';
  done: number;
  total: number;
  bytes: number;
}

export interface FileProblem {
  path: string;
  reason: string;
}

export interface IndexReport {
  collection: string;
  scanned: number;
  added: number;
  updated: number;
  unchanged: number;
  renamed: number;
  removed: number;
  skipped: FileProblem[];
  failed: FileProblem[];
  /** Scan-level notes: unreadable folders, symlinks not followed, files gone before we read them. */
  notices: FileProblem[];
  chunks: number;
  bytesRead: number;
  durationMs: number;
}

export interface IndexerDeps {
  db: Db;
  documents: DocumentStore;
  chunks: ChunkStore;
}

export interface IndexerOptions {
  chunking: ChunkOptions;
  maxFileBytes: number;
  onProgress?: (p: IndexProgress) => void;
  signal?: AbortSignal;
}

const BATCH_FILES = 256;

export async function indexCollection(deps: IndexerDeps, collection: CollectionRow, opts: IndexerOptions): Promise<IndexReport> {
  const started = performance.now();
  assertRootReadable(collection);
  opts.onProgress?.({ collection: collection.name, phase: 'scanning', done: 0, total: 0, bytes: 0 });
  const scan = scanCollection(collection.root, { include: collection.include, exclude: collection.exclude });
  const report: IndexReport = {
    collection: collection.name,
    scanned: scan.files.length,
    added: 0,
    updated: 0,
    unchanged: 0,
    renamed: 0,
    removed: 0,
    skipped: [],
    failed: [],
    notices: [...scan.problems],
    chunks: 0,
    bytesRead: 0,
    durationMs: 0,
  };

  const known = new Map(deps.documents.fingerprints(collection.id).map((f) => [f.path, f]));
  const seen = new Set(scan.files.map((f) => f.path));
  const missingByHash = new Map<string, DocumentFingerprint[]>();
  for (const fp of known.values()) {
    if (seen.has(fp.path) || !fp.hash || fp.status !== 'indexed') continue;
    const list = missingByHash.get(fp.hash) ?? [];
    list.push(fp);
    missingByHash.set(fp.hash, list);
  }

  const toRead: ScannedFile[] = [];
  for (const file of scan.files) {
    const fp = known.get(file.path);
    if (fp && fp.size === file.size && fp.mtime_ms === file.mtimeMs && fp.status !== 'failed') report.unchanged++;
    else toRead.push(file);
  }

  // announced before any file is read (callers and tests can see the work ahead)
  opts.onProgress?.({ collection: collection.name, phase: 'indexing', done: 0, total: toRead.length, bytes: 0 });
  const movedIds = new Set<number>();
  for (let i = 0; i < toRead.length; i += BATCH_FILES) {
    if (opts.signal?.aborted) throw new TroveError('INTERNAL', 'indexing cancelled');
    const batch = toRead.slice(i, i + BATCH_FILES).map((file) => readOne(file, opts.maxFileBytes));
    deps.db.transaction(() => {
      const fts: FtsRow[] = [];
      for (const item of batch) applyOne(deps, collection, item, known, missingByHash, movedIds, report, opts, fts);
      deps.chunks.indexText(fts);
    })();
    opts.onProgress?.({ collection: collection.name, phase: 'indexing', done: Math.min(i + BATCH_FILES, toRead.length), total: toRead.length, bytes: report.bytesRead });
    await new Promise<void>((resolve) => setImmediate(resolve)); // let servers on this thread breathe
  }

  deps.db.transaction(() => {
    for (const fp of known.values()) {
      if (seen.has(fp.path) || movedIds.has(fp.id)) continue;
      deps.chunks.deleteFor(fp.id);
      deps.documents.delete(fp.id);
      report.removed++;
    }
  })();
  report.durationMs = Math.round(performance.now() - started);
  opts.onProgress?.({ collection: collection.name, phase: 'done', done: toRead.length, total: toRead.length, bytes: report.bytesRead });
  return report;
}

type ReadResult =
  | { file: ScannedFile; kind: 'bytes'; buf: Buffer; hash: string }
  | { file: ScannedFile; kind: 'too-large' }
  | { file: ScannedFile; kind: 'vanished' }
  | { file: ScannedFile; kind: 'error'; reason: string };

function readOne(file: ScannedFile, maxFileBytes: number): ReadResult {
  if (file.size > maxFileBytes) return { file, kind: 'too-large' };
  try {
    const buf = fs.readFileSync(file.absPath);
    // the file may have grown past the limit since the scan; never hold more than we allow
    if (buf.length > maxFileBytes) return { file, kind: 'too-large' };
    return { file, kind: 'bytes', buf, hash: createHash('sha256').update(buf).digest('hex') };
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT') return { file, kind: 'vanished' };
    return { file, kind: 'error', reason: code === 'EACCES' || code === 'EPERM' ? 'permission denied' : `cannot read: ${code}` };
  }
}

function applyOne(
  deps: IndexerDeps,
  collection: CollectionRow,
  item: ReadResult,
  known: Map<string, DocumentFingerprint>,
  missingByHash: Map<string, DocumentFingerprint[]>,
  movedIds: Set<number>,
  report: IndexReport,
  opts: IndexerOptions,
  fts: FtsRow[],
): void {
  const { file } = item;
  const fp = known.get(file.path);
  const now = Date.now();
  if (item.kind === 'vanished') {
    report.notices.push({ path: file.path, reason: 'deleted before it could be read' });
    if (fp) {
      deps.chunks.deleteFor(fp.id);
      deps.documents.delete(fp.id);
      known.delete(file.path);
      report.removed++;
    }
    return;
  }
  if (item.kind === 'too-large' || item.kind === 'error') {
    const status = item.kind === 'too-large' ? 'skipped' : 'failed';
    const reason =
      item.kind === 'too-large'
        ? `file is ${formatBytes(file.size)}, over the ${formatBytes(opts.maxFileBytes)} limit`
        : item.reason;
    writeUnindexed(deps, collection, file, fp, null, status, reason, '', now);
    (status === 'skipped' ? report.skipped : report.failed).push({ path: file.path, reason });
    return;
  }
  report.bytesRead += file.size;
  if (fp && fp.hash === item.hash && fp.status !== 'failed') {
    deps.documents.touch(fp.id, file.size, file.mtimeMs);
    report.unchanged++;
    return;
  }
  if (!fp) {
    const moved = missingByHash.get(item.hash)?.shift();
    if (moved) {
      deps.documents.move(moved.id, file.path, file.size, file.mtimeMs, now);
      movedIds.add(moved.id);
      report.renamed++;
      return;
    }
  }
  const prepared = prepareDocument(item.buf, file.path, opts.chunking);
  if (!prepared.ok) {
    writeUnindexed(deps, collection, file, fp, item.hash, prepared.status, prepared.reason, prepared.kind, now);
    (prepared.status === 'skipped' ? report.skipped : report.failed).push({ path: file.path, reason: prepared.reason });
    return;
  }
  const id = deps.documents.upsert(
    {
      collectionId: collection.id,
      path: file.path,
      docid: fp ? '' : newDocid(deps.documents),
      title: prepared.title,
      kind: prepared.kind,
      size: file.size,
      mtimeMs: file.mtimeMs,
      hash: item.hash,
      status: 'indexed',
      error: prepared.note ?? null,
      tags: prepared.tags,
      metadata: prepared.metadata,
    },
    now,
  );
  deps.documents.putContent(id, prepared.text);
  for (const row of deps.chunks.replaceFor(id, prepared.chunks, !fp)) fts.push(row);
  report.chunks += prepared.chunks.length;
  if (fp) report.updated++;
  else report.added++;
}

/** Records a file we could not index (so status can say why) and drops any older index rows for it. */
function writeUnindexed(
  deps: IndexerDeps,
  collection: CollectionRow,
  file: ScannedFile,
  fp: DocumentFingerprint | undefined,
  hash: string | null,
  status: 'skipped' | 'failed',
  reason: string,
  kind: string,
  now: number,
): void {
  const id = deps.documents.upsert(
    {
      collectionId: collection.id,
      path: file.path,
      docid: fp ? '' : newDocid(deps.documents),
      title: '',
      kind: kind || 'unknown',
      size: file.size,
      mtimeMs: file.mtimeMs,
      hash,
      status,
      error: reason,
      tags: [],
      metadata: {},
    },
    now,
  );
  if (fp) {
    deps.chunks.deleteFor(id);
    deps.documents.deleteContent(id);
  }
}

function newDocid(documents: DocumentStore): string {
  for (let bytes = 3; ; bytes++) {
    for (let attempt = 0; attempt < 8; attempt++) {
      const id = randomBytes(bytes).toString('hex');
      if (!documents.docidTaken(id)) return id;
    }
  }
}

function assertRootReadable(collection: CollectionRow): void {
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
