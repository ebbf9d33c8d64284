// Works the durable queue: one batch at a time (one writer), a few file reads in flight, each
// batch's index writes and its jobs' retirement in one transaction, so a kill -9 at any point
// leaves every job either done and gone or still queued. Scans run first and turn into file
// jobs; failures are retried with backoff; paused collections wait; a removed collection's
// in-flight batch is dropped.
import fs from 'node:fs';
import { TroveError } from '../errors.js';
import { readFiles } from '../ingest/file-read.js';
import { applyFiles, needsParsing, planReconcile, type FileOutcome, type IndexerDeps, type IndexerOptions, type ReconcilePlan } from '../ingest/indexer.js';
import type { ParsePool } from '../ingest/parse-pool.js';
import { isBinaryDocument, type Prepared } from '../ingest/prepare.js';
import { FILE_BACKED, type CollectionRow, type CollectionStore } from '../store/collections.js';
import { storageError } from '../store/database.js';
import { FtsMerges } from '../store/fts-merge.js';
import { GLOBAL_PAUSE, type JobRow, type JobStore } from '../store/jobs.js';
import { keywordIndexOf, type KeywordIndex } from '../store/keyword-index.js';
import type { PathFilter } from '../watch/path-filter.js';
import type { ProgressHub } from './progress.js';
import { nextAttemptAt, type RetryPolicy } from './retry.js';
import { WakeableSleep } from './wakeable-sleep.js';

/** Scans first: they discover the work; then what the user just touched; then the rest. */
export const PRIORITY = { scan: 100, userChange: 10, reconcile: 0 } as const;

/** The job that walks a collection's folder (explicit runs queue one; so does a shared index run). */
export function scanJob(collectionId: number) {
  const now = Date.now();
  return { collectionId, kind: 'scan' as const, path: '', priority: PRIORITY.scan, changedAt: now, gone: false, runAt: now };
}

export interface RunnerOptions extends IndexerOptions {
  batchFiles: number;
  /** Documents (PDF, Office, …) per batch: their bytes and text are held until the batch is written. */
  batchDocuments: number;
  readConcurrency: number;
  retry: RetryPolicy;
}

export interface RunnerDeps {
  indexer: IndexerDeps;
  jobs: JobStore;
  collections: CollectionStore;
  progress: ProgressHub;
  /** Where documents (PDF, Office, …) are parsed: worker threads, off this thread. */
  parsers: ParsePool;
  filterFor: (c: CollectionRow) => PathFilter;
  /** Called after every batch that changed the index (the engine bumps its cache generation). */
  onChanged: () => void;
}

/** Who wants to hear about each collection's outcomes (Engine.index builds its report from them). */
export interface OutcomeListener {
  scanned?(collectionId: number, plan: ReconcilePlan): void;
  file?(collectionId: number, outcome: FileOutcome): void;
  /** The folder could not be scanned (missing, unreadable root); the scan will be retried. */
  scanFailed?(collectionId: number, error: unknown): void;
}

const MAX_IDLE_MS = 60_000;
const CURRENT_FILE_EVERY_MS = 200;

export class JobRunner {
  private chain: Promise<unknown> = Promise.resolve();
  private loopDone: Promise<void> | null = null;
  private stopped = true;
  private closed = false;
  private readonly idle = new WakeableSleep();
  private readonly listeners = new Set<OutcomeListener>();
  private readonly merge: FtsMerges;
  private batches = 0;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly opts: RunnerOptions,
  ) {
    this.merge = new FtsMerges(deps.indexer.db);
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (!this.stopped || this.closed) return;
    this.stopped = false;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loopDone;
    this.loopDone = null;
  }

  /** The engine is closing: no batch may touch the database after this. */
  close(): void {
    this.closed = true;
    this.stopped = true;
    this.wake();
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** A batch is being read or written right now. */
  get inBatch(): boolean {
    return this.batches > 0;
  }

  /** New work was queued or a pause lifted: look again now. */
  wake(): void {
    this.idle.wake();
  }

  listen(l: OutcomeListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /**
   * Runs one collection's due jobs to the end, ignoring pauses (an explicit request). Throws
   * when the collection is removed meanwhile, the signal aborts or the engine closes; the
   * jobs left stay queued.
   */
  async drain(collectionId: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw new TroveError('INTERNAL', 'indexing cancelled; the remaining work stays queued');
      if (this.closed) throw new TroveError('UNAVAILABLE', 'the engine was closed while indexing; the remaining work stays queued');
      if (!this.collection(collectionId)) {
        throw new TroveError('NOT_FOUND', 'the collection was removed while it was being indexed; its jobs were cancelled');
      }
      const worked = await this.exclusive(() => this.runBatch(collectionId));
      if (!worked) return;
      await breathe();
    }
  }

  /** Another room wrote a keyword index: merge it only once it has been quiet a while, then wake to look. */
  keywordIndexWritten(index: KeywordIndex): void {
    this.merge.written(index);
  }

  /** Merges every keyword index into one segment now (the background loop does it when idle). */
  async compact(): Promise<void> {
    while (await this.exclusive(async () => !this.closed && this.merge.step(true))) await breathe();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      let paused = false;
      try {
        paused = this.deps.jobs.pauses().has(GLOBAL_PAUSE);
        if (!paused) worked = await this.exclusive(() => this.runBatch(undefined));
        // idle: merge the keyword index in slices (store/fts-merge.ts); new work comes first
        if (!worked && !paused && !this.stopped) worked = await this.exclusive(async () => !this.closed && this.merge.step());
      } catch (err) {
        if (this.closed) return;
        process.stderr.write(`trove: indexing batch failed: ${(storageError(err) ?? (err as Error)).message}\n`);
        await this.idle.sleep(1000);
        continue;
      }
      if (worked) {
        await breathe();
        continue;
      }
      if (this.stopped) return;
      const due = paused ? null : this.deps.jobs.nextDueAt();
      await this.idle.sleep(due === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, Math.max(0, due - Date.now())));
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn);
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** One batch; false when nothing was due. */
  private async runBatch(only: number | undefined): Promise<boolean> {
    if (this.closed) return false;
    const batch = this.deps.jobs.nextBatch(Date.now(), this.opts.batchFiles, only);
    if (!batch.length) return false;
    const collection = this.collection(batch[0]!.collectionId);
    if (!collection) return false; // removed between query and here; the cascade dropped its jobs
    this.batches++;
    try {
      if (batch[0]!.kind === 'scan') this.runScan(collection, batch[0]!);
      else await this.runFiles(collection, batch);
    } finally {
      this.batches--;
    }
    this.settleIfDone(collection);
    return true;
  }

  private runScan(collection: CollectionRow, job: JobRow): void {
    const { jobs, indexer, progress } = this.deps;
    progress.scanning(collection.id, collection.name);
    let plan: ReconcilePlan;
    try {
      this.deps.filterFor(collection).forgetAllGitignores();
      plan = planReconcile(indexer, collection, this.opts.maxFileBytesNow?.() ?? this.opts.maxFileBytes);
    } catch (err) {
      // a missing or unreadable root (an unplugged drive) must not empty the index: retry later
      const attempts = job.attempts + 1;
      jobs.retry(job, attempts, nextAttemptAt(this.opts.retry, attempts, Date.now()), (err as Error).message);
      for (const l of this.listeners) l.scanFailed?.(collection.id, err);
      return;
    }
    indexer.db.transaction(() => {
      jobs.reviveGivenUp(collection.id, Date.now());
      for (const c of plan.changed) {
        jobs.addIfAbsent({ collectionId: collection.id, kind: 'file', path: c.path, priority: PRIORITY.reconcile, changedAt: c.mtimeMs, gone: false, runAt: 0 });
      }
      for (const p of plan.vanished) {
        jobs.addIfAbsent({ collectionId: collection.id, kind: 'file', path: p, priority: PRIORITY.reconcile, changedAt: 0, gone: true, runAt: 0 });
      }
      jobs.retire(job);
    }).immediate();
    for (const l of this.listeners) l.scanned?.(collection.id, plan);
  }

  private async runFiles(collection: CollectionRow, whole: JobRow[]): Promise<void> {
    const { jobs, indexer, progress } = this.deps;
    // a batch holds every file's bytes (and a document's extracted text) until it is written: documents
    // are big, so at most batchDocuments of them; the jobs left out stay queued for the next batch
    let documents = 0;
    const batch = whole.filter((j) => !isBinaryDocument(j.path) || documents++ < Math.max(1, this.opts.batchDocuments));
    if (!rootPresent(collection.root)) {
      // the whole folder is gone (an unplugged drive, a deleted root): its files are not
      // "deleted", so nothing leaves the index; the scan reports why and retries
      const now = Date.now();
      indexer.db.transaction(() => {
        jobs.postpone(collection.id, now, now + this.opts.retry.baseMs);
        jobs.addIfAbsent({ collectionId: collection.id, kind: 'scan', path: '', priority: PRIORITY.scan, changedAt: now, gone: false, runAt: now });
      })();
      return;
    }
    progress.batch(collection.id, collection.name, jobs.dueCount(collection.id, Date.now()), batch[0]!.path);
    const opts = { ...this.opts, maxFileBytes: this.opts.maxFileBytesNow?.() ?? this.opts.maxFileBytes };
    let lastNote = performance.now();
    const reads = await readFiles(
      {
        root: collection.root,
        filter: this.deps.filterFor(collection),
        maxFileBytes: opts.maxFileBytes,
        known: (p) => indexer.documents.byPath(collection.id, p),
        onRead: (p) => {
          const now = performance.now();
          if (now - lastNote < CURRENT_FILE_EVERY_MS) return;
          lastNote = now;
          progress.reading(collection.id, p);
        },
      },
      batch.map((j) => j.path),
      this.opts.readConcurrency,
    );
    // the engine closed or the collection went away while we were reading: drop the batch
    if (this.closed || !this.collection(collection.id)) return;
    // documents are parsed in the workers, all of the batch's at once; the writes wait for them
    const parsed = new Map<string, Prepared>();
    await Promise.all(
      needsParsing(indexer, collection, reads).map(async (r) => {
        parsed.set(r.path, await this.deps.parsers.prepare(r.buf, r.path));
        progress.reading(collection.id, r.path);
      }),
    );
    if (this.closed || !this.collection(collection.id)) return;
    const now = Date.now();
    let outcomes = new Map<string, FileOutcome>();
    // a registered dataset's folder goes to its own keyword index (store/keyword-index.ts)
    const target = { ...indexer, chunks: indexer.chunks.forIndex(keywordIndexOf(collection.kind)) };
    indexer.db.transaction(() => {
      const applied = applyFiles(target, collection, reads, opts, parsed);
      outcomes = applied.outcomes;
      for (const job of batch) {
        const o = outcomes.get(job.path);
        if (o?.result === 'failed') {
          const attempts = job.attempts + 1;
          jobs.retry(job, attempts, nextAttemptAt(this.opts.retry, attempts, now), o.reason);
        } else jobs.retire(job);
      }
      target.chunks.indexText(applied.fts); // last: see store/chunks.ts
    }).immediate();
    let bytes = 0;
    for (const o of outcomes.values()) {
      if ('bytes' in o) bytes += o.bytes;
      for (const l of this.listeners) l.file?.(collection.id, o);
    }
    progress.finished(collection.id, batch.length, bytes);
    this.deps.onChanged();
  }

  private settleIfDone(collection: CollectionRow): void {
    if (!this.collection(collection.id)) return;
    if (this.deps.jobs.dueCount(collection.id, Date.now()) > 0) return;
    this.deps.collections.markIndexed(collection.id, Date.now());
    this.deps.progress.settle(collection.id, collection.name, 'idle');
  }

  /** A folder or a registered dataset's folder (the kinds with files); undefined when it is gone. */
  private collection(id: number): CollectionRow | undefined {
    const c = this.deps.collections.byId(id);
    return c && FILE_BACKED.includes(c.kind) ? c : undefined;
  }
}

function rootPresent(root: string): boolean {
  try {
    return fs.statSync(root).isDirectory();
  } catch {
    return false;
  }
}

const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
