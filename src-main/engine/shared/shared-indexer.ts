// Indexes folder collections into a shared index (PostgreSQL) through the storage interface's job
// queue, so several Trove hosts can work one collection at once: a run queues a scan job, then
// claims batches (FOR UPDATE SKIP LOCKED: no two hosts hold the same job) until the collection's
// queue is empty, including the jobs other hosts hold. A batch is read, parsed (the same parse
// workers) and decided (shared-batch.ts: the same rules as SQLite's indexer) while its claim is
// open, and written in the claim's transaction with its jobs' retirement, retries recorded as on
// SQLite. The folder walk, comparison with the index, file reads, preparation, chunking, retry
// policy, progress and report are SQLite's own modules.
import fs from 'node:fs';
import { TroveError, notFound } from '../errors.js';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../ingest/chunker.js';
import { readFiles } from '../ingest/file-read.js';
import { parseNeeded, reconcileWith, type IndexProgress, type IndexReport, type ReconcilePlan } from '../ingest/indexer.js';
import { ParsePool, type ParsePoolOptions } from '../ingest/parse-pool.js';
import { isBinaryDocument, type Prepared } from '../ingest/prepare.js';
import { indexProgressOf, ProgressHub, type ProgressListener } from '../jobs/progress.js';
import { ReportCollector } from '../jobs/report.js';
import { DEFAULT_RETRY, nextAttemptAt, type RetryPolicy } from '../jobs/retry.js';
import { PRIORITY, scanJob } from '../jobs/runner.js';
import { DEFAULT_MAX_FILE_BYTES } from '../settings/settings-store.js';
import { FILE_BACKED, type CollectionRow } from '../store/collections.js';
import type { JobRow } from '../store/jobs.js';
import { keywordIndexOf } from '../store/keyword-index.js';
import type { ClaimedJobs, JobRetry, Storage } from '../store/storage.js';
import { PathFilter } from '../watch/path-filter.js';
import { PostgresStorage } from '../store/postgres/postgres-storage.js';
import type { AddCollectionInput, CollectionInfo } from '../types/index.js';
import { DATASET_COLLECTION_PREFIX } from '../datasets/folder-dataset.js';
import { planBatch } from './shared-batch.js';
import { SharedCollections } from './shared-collections.js';
import { SharedEmbedder, type SharedEmbedResult } from './shared-embedder.js';
import { SharedEmbeddingLoop } from './shared-embedding-loop.js';
import { SharedWatcher } from './shared-watcher.js';
import type { LiveOptions } from '../watch/live-folders.js';
import type { EmbeddingOptions } from '../embed/embeddings.js';
import type { EngineOptions } from '../engine.js';
import type { EmbeddingProgress } from '../types/models.js';

export interface SharedIndexerOptions {
  chunking?: Partial<ChunkOptions>;
  maxFileBytes?: number;
  /** Files per claimed batch (default 64: a claim holds its jobs' locks while it reads and parses). */
  batchFiles?: number;
  /** Documents (PDF, Office, …) per batch (default 32). */
  batchDocuments?: number;
  readConcurrency?: number;
  retry?: Partial<RetryPolicy>;
  parsing?: Partial<ParsePoolOptions>;
  /** Watching: the watcher's settings, reconcile interval and the grace time of a vanished file (watch/live-folders.ts). */
  live?: Partial<LiveOptions>;
  /** Where the embedding models are (as EngineOptions has them), for embed(). */
  profileDir?: string;
  embeddings?: EmbeddingOptions;
}

/** How long a host waits before looking again when the jobs left are held by other hosts. */
const HELD_ELSEWHERE_MS = 50;
const CURRENT_FILE_EVERY_MS = 200;
/** Batches of one run that may roll back on a collision with another host before the run gives up. */
const MAX_COLLISIONS = 20;

/** The indexer's options from the engine's (what TROVE_* variables set for the SQLite engine applies on PostgreSQL too). */
export function sharedIndexerOptions(o: EngineOptions): SharedIndexerOptions {
  const { chunking, maxFileBytes, indexing, profileDir, embeddings } = o;
  return {
    profileDir,
    embeddings,
    chunking,
    maxFileBytes,
    batchDocuments: indexing?.batchDocuments,
    readConcurrency: indexing?.readConcurrency,
    retry: indexing?.retry,
    parsing: indexing?.parsing,
    live: indexing?.live,
  };
}

/** What has vectors: folder collections, folder datasets' collections (kept by the hosts' registries) and memory. */
const EMBEDDED_KINDS = ['folder', 'dataset', 'memory'] as const;

export class SharedIndexer {
  private readonly progress = new ProgressHub();
  private readonly parsers: ParsePool;
  private readonly filters = new Map<number, PathFilter>();
  private readonly chunking: ChunkOptions;
  private readonly retry: RetryPolicy;
  private readonly collections: SharedCollections;
  private embedder: SharedEmbedder | null = null;
  private watcher: SharedWatcher | null = null;
  private embedding: SharedEmbeddingLoop | null = null;
  private readonly embeddingListeners = new Set<(p: EmbeddingProgress) => void>();
  /** Collections an index() run of this host is draining, with its report: the watching loop leaves their jobs to it, and counts a batch it had already claimed there. */
  private readonly drained = new Map<number, ReportCollector>();
  private closed = false;
  /** Set when this indexer opened the storage itself (open()): close() closes it too. */
  private owned = false;

  /** Over a storage someone else owns (SharedIndex's): close() leaves it open. */
  constructor(
    private readonly storage: Storage,
    private readonly opts: SharedIndexerOptions = {},
  ) {
    this.collections = new SharedCollections(storage);
    this.chunking = { ...DEFAULT_CHUNKING, ...opts.chunking };
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.parsers = new ParsePool(this.chunking, opts.parsing);
  }

  /** Connects to PostgreSQL (a bad URL is INVALID_INPUT, an unreachable server UNAVAILABLE) and brings the schema up to date. */
  static async open(url: string, opts: SharedIndexerOptions = {}): Promise<SharedIndexer> {
    const indexer = new SharedIndexer(await PostgresStorage.open(url), opts);
    indexer.owned = true;
    return indexer;
  }

  /** A folder this host sees, as a collection of the shared index (Engine.addCollection's checks); index it with index(). A watching host watches it at once (other hosts hear of it by NOTIFY). */
  async addCollection(input: AddCollectionInput): Promise<CollectionInfo> {
    const info = await this.collections.add(input);
    const row = this.watcher && (await this.storage.collections.get(info.name));
    if (row) await this.watcher!.adopt(row);
    return info;
  }

  async renameCollection(oldName: string, newName: string): Promise<CollectionInfo> {
    const info = await this.collections.rename(oldName, newName);
    await this.watcher?.sync();
    return info;
  }

  setCollectionContext(name: string, context: string): Promise<CollectionInfo> {
    return this.collections.setContext(name, context);
  }

  setCollectionRedaction(name: string, redactSecrets: boolean | null): Promise<CollectionInfo> {
    return this.collections.setRedaction(name, redactSecrets);
  }

  /** Pauses one collection's indexing (or every folder collection's) on every host; changes keep being queued. */
  pause(collection?: string): Promise<void> {
    return this.collections.setPaused(collection, true);
  }

  resume(collection?: string): Promise<void> {
    return this.collections.setPaused(collection, false);
  }

  /** The folder collections with their counts, as Engine.listCollections. */
  listCollections(): Promise<CollectionInfo[]> {
    return this.collections.list();
  }

  /** Removes the collection and its index rows and jobs, for every host; its files are untouched. */
  async removeCollection(name: string): Promise<void> {
    await this.collections.remove(name);
    await this.watcher?.sync();
  }

  /**
   * Brings folder collections (one, or all) up to date: a scan, then every due job, with other
   * hosts doing the same at once. Resolves when the collection's queue is empty; the report
   * counts what this host did (the scan's counts are the folder's).
   */
  async index(opts: { collection?: string; dataset?: string; onProgress?: (p: IndexProgress) => void; signal?: AbortSignal } = {}): Promise<IndexReport[]> {
    const targets = opts.dataset ? [await this.datasetCollection(opts.dataset)] : opts.collection ? [await this.collections.require(opts.collection)] : await this.storage.collections.list(['folder']);
    const reports: IndexReport[] = [];
    const rootErrors: Error[] = [];
    for (const c of targets) {
      const stop = this.progress.subscribe((e) => e.collection === c.name && opts.onProgress?.(indexProgressOf(e)));
      try {
        const collector = new ReportCollector(c.name);
        this.drained.set(c.id, collector);
        await this.storage.jobs.makeDue(c.id, Date.now());
        await this.storage.jobs.recordEvents([scanJob(c.id)]);
        const scanError = await this.drain(c, collector, opts.signal);
        if (scanError) rootErrors.push(scanError);
        else reports.push(collector.finish());
      } finally {
        this.drained.delete(c.id);
        stop();
      }
    }
    if (rootErrors.length === 1) throw rootErrors[0];
    if (rootErrors.length) throw new TroveError('IO', rootErrors.map((e) => e.message).join('; '));
    return reports;
  }

  /**
   * Embeds chunks that have no vector yet (one collection, or every folder collection, folder dataset and memory), sharing the work with
   * other hosts doing the same (shared-embedder.ts). Per collection: UNAVAILABLE when its model is
   * not on this host.
   */
  async embed(opts: { collection?: string; onProgress?: (p: EmbeddingProgress) => void; signal?: AbortSignal } = {}): Promise<SharedEmbedResult[]> {
    const embedded = await this.storage.collections.list(EMBEDDED_KINDS);
    const named = opts.collection?.toLowerCase();
    const targets = named === undefined ? embedded : [embedded.find((c) => c.name.toLowerCase() === named) ?? (await this.collections.require(opts.collection!))];
    const results: SharedEmbedResult[] = [];
    const onProgress = (p: EmbeddingProgress) => {
      opts.onProgress?.(p);
      for (const l of this.embeddingListeners) l(p);
    };
    for (const c of targets) results.push(await this.sharedEmbedder().embed(c, { ...opts, onProgress }));
    return results;
  }

  /** The collections embed() embeds when given none: every folder collection, every folder dataset's, and agent memory once it has entries. */
  async embeddable(): Promise<string[]> {
    return (await this.storage.collections.list(EMBEDDED_KINDS)).map((c) => c.name);
  }

  /** Every embedding run's progress on this host (the background loop's too): the app's progress events. */
  onEmbeddingProgress(listener: (p: EmbeddingProgress) => void): () => void {
    this.embeddingListeners.add(listener);
    return () => this.embeddingListeners.delete(listener);
  }

  /** `trove models use --database`: the collection's model for every host from now on (null: automatic); embed() then re-embeds it. */
  async chooseModel(collection: string, modelId: string | null): Promise<void> {
    await this.sharedEmbedder().chooseModel(await this.collections.require(collection), modelId);
  }

  /** A folder dataset's collection (a registry made it: `trove dataset add --database`). */
  private async datasetCollection(id: string): Promise<CollectionRow> {
    const c = await this.storage.collections.get(`${DATASET_COLLECTION_PREFIX}${id}`, ['dataset']);
    if (!c) throw notFound(`dataset "${id}" has no folder to index here (a FAISS index, or not loaded)`);
    return c;
  }

  private sharedEmbedder(): SharedEmbedder {
    return (this.embedder ??= new SharedEmbedder(this.storage, this.opts.profileDir ?? process.cwd(), this.opts.embeddings));
  }

  /**
   * Keeps every folder collection this host sees fresh until stopWatching(): its watchers queue
   * changes, and a background loop works the watched collections' due jobs with the other hosts.
   */
  async startWatching(): Promise<void> {
    this.watcher ??= new SharedWatcher({ storage: this.storage, filterFor: (c) => this.filterFor(c), work: (claim) => this.workClaim(claim), nothingToClaim: () => this.settleFinishedRuns(), drained: this.drained, batchFiles: this.opts.batchFiles ?? 64 }, this.opts.live);
    await this.watcher.start();
  }

  async stopWatching(): Promise<void> {
    await this.watcher?.stop();
  }

  /** Watches (and scans) the collections new to this host now, rather than at the next change notice or reconcile: a folder dataset's collection the registry just made. */
  async followCollections(): Promise<void> {
    await this.watcher?.sync();
  }

  /**
   * Embeds in the background while this host runs (`trove serve --database`): what every folder
   * collection lacks now, then each collection again whenever its queue runs dry here
   * (shared-embedding-loop.ts). `log` gets a line per run that embedded something or could not.
   */
  async startEmbedding(log: (line: string) => void): Promise<void> {
    this.embedding ??= new SharedEmbeddingLoop(this, log);
    await this.embedding.start();
  }

  /** Indexing or embedding under way on this host (a host's idle check). */
  busy(): boolean {
    return this.progress.active() || (this.embedding?.busy ?? false);
  }

  get watching(): boolean {
    return this.watcher?.watching ?? false;
  }

  /** What this host does in the background, for status: its watchers and its embedding loop (null: not started). */
  hostWork(): { watchers: { collection: string; polling: boolean }[]; embedding: { busy: boolean } | null } {
    return { watchers: this.watcher?.watching ? this.watcher.state() : [], embedding: this.embedding ? { busy: this.embedding.busy } : null };
  }

  /** Every collection's progress as this host works it (index runs and watching). */
  onProgress(listener: ProgressListener): () => void {
    return this.progress.subscribe(listener);
  }

  /** Stops watching and the parse and model workers; a run under way stops at its next batch, its jobs left queued. */
  async close(): Promise<void> {
    await this.stopWatching();
    await this.embedding?.stop();
    this.closed = true;
    await Promise.all([this.parsers.close(), this.embedder?.close()]);
    if (this.owned) await this.storage.close();
  }

  /** Works the collection's jobs until none is due (here or held by another host); returns the scan's error, if the folder could not be walked. */
  private async drain(c: CollectionRow, collector: ReportCollector, signal?: AbortSignal): Promise<Error | null> {
    let scanError: Error | null = null;
    let collisions = 0;
    for (;;) {
      if (signal?.aborted) throw new TroveError('INTERNAL', 'indexing cancelled; the remaining work stays queued');
      if (this.closed) throw new TroveError('UNAVAILABLE', 'the indexer was closed while indexing; the remaining work stays queued');
      const current = await this.storage.collections.byId(c.id);
      if (!current || !FILE_BACKED.includes(current.kind)) throw notFound('the collection was removed while it was being indexed; its jobs were cancelled');
      const claim = await this.storage.jobs.claim(Date.now(), this.opts.batchFiles ?? 64, { only: c.id });
      if (!claim) {
        // nothing free: done, unless other hosts still hold some of this collection's due jobs
        if ((await this.storage.jobs.dueCount(c.id, Date.now())) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, HELD_ELSEWHERE_MS));
        continue;
      }
      try {
        scanError = (await this.runBatch(current, claim, collector)) ?? scanError;
      } catch (err) {
        await claim.release().catch(() => undefined);
        // another host's write collided with this batch's (a docid drawn twice, a deadlock): its jobs are due again
        if (collided(err) && ++collisions <= MAX_COLLISIONS) continue;
        throw err;
      }
    }
    await this.storage.collections.markIndexed(c.id, Date.now());
    this.progress.settle(c.id, c.name, 'idle');
    return scanError;
  }

  /** One claimed batch: a scan (its error, if the folder could not be walked) or files. */
  private async runBatch(c: CollectionRow, claim: ClaimedJobs, collector?: ReportCollector): Promise<Error | null> {
    if (claim.jobs[0]!.kind === 'scan') return this.runScan(c, claim, collector);
    await this.runFiles(c, claim, collector);
    return null;
  }

  /** A batch the watching loop claimed (shared-watcher.ts); the collection settles when its queue is empty. */
  private async workClaim(claim: ClaimedJobs): Promise<void> {
    const c = await this.storage.collections.byId(claim.jobs[0]!.collectionId);
    if (!c || !FILE_BACKED.includes(c.kind) || this.closed) return claim.release();
    try {
      await this.runBatch(c, claim, this.drained.get(c.id));
    } catch (err) {
      await claim.release().catch(() => undefined);
      if (collided(err)) return;
      throw err;
    }
    await this.settleIfDone(c);
  }

  /** Ends the collection's run on this host once none of its jobs is due, here or on another host. */
  private async settleIfDone(c: CollectionRow): Promise<void> {
    if ((await this.storage.jobs.dueCount(c.id, Date.now())) > 0) return;
    await this.storage.collections.markIndexed(c.id, Date.now());
    this.progress.settle(c.id, c.name, 'idle');
  }

  /** Ends this host's runs whose collection has no due job left (other hosts wrote its last batches) or is gone. */
  private async settleFinishedRuns(): Promise<void> {
    for (const { collectionId, collection } of this.progress.running()) {
      const c = await this.storage.collections.byId(collectionId);
      if (c) await this.settleIfDone(c);
      else this.progress.settle(collectionId, collection, 'idle');
    }
  }

  private async runScan(c: CollectionRow, claim: ClaimedJobs, collector?: ReportCollector): Promise<Error | null> {
    const job = claim.jobs[0]!;
    this.progress.scanning(c.id, c.name);
    let plan: ReconcilePlan;
    try {
      this.filterFor(c).forgetAllGitignores();
      const known = await this.storage.documents.fingerprints(c.id);
      plan = reconcileWith(c, () => known, this.maxFileBytes);
    } catch (err) {
      // a missing or unreadable root (an unplugged drive) must not empty the index: retry later
      await claim.complete({ retire: [], retry: [this.retryOf(job, (err as Error).message)] });
      return err as Error;
    }
    const file = (path: string, changedAt: number, gone: boolean) => ({ collectionId: c.id, kind: 'file' as const, path, priority: PRIORITY.reconcile, changedAt, gone, runAt: 0 });
    await claim.complete({
      revive: c.id,
      found: [...plan.changed.map((f) => file(f.path, f.mtimeMs, false)), ...plan.vanished.map((p) => file(p, 0, true))],
      retire: [job],
    });
    collector?.scanned(plan);
    return null;
  }

  private async runFiles(c: CollectionRow, claim: ClaimedJobs, collector?: ReportCollector): Promise<void> {
    const { storage, progress } = this;
    // a batch holds every document's bytes and text until it is written: at most batchDocuments of them
    let documents = 0;
    const batch = claim.jobs.filter((j) => !isBinaryDocument(j.path) || documents++ < Math.max(1, this.opts.batchDocuments ?? 32));
    if (!rootPresent(c.root)) {
      // the whole folder is gone (an unplugged drive): its files are not "deleted"; the scan says why and retries
      await claim.release();
      const now = Date.now();
      await storage.jobs.postpone(c.id, now, now + this.retry.baseMs);
      await storage.jobs.addIfAbsent([scanJob(c.id)]);
      return;
    }
    const paths = batch.map((j) => j.path);
    const [due, known] = await Promise.all([storage.jobs.dueCount(c.id, Date.now()), storage.documents.byPaths(c.id, paths)]);
    progress.batch(c.id, c.name, due, paths[0] ?? null);
    let lastNote = performance.now();
    const maxFileBytes = this.maxFileBytes;
    const reads = await readFiles(
      {
        root: c.root,
        filter: this.filterFor(c),
        maxFileBytes,
        known: (p) => known.get(p),
        onRead: (p) => {
          const now = performance.now();
          if (now - lastNote < CURRENT_FILE_EVERY_MS) return;
          lastNote = now;
          progress.reading(c.id, p);
        },
      },
      paths,
      this.opts.readConcurrency ?? 16,
    );
    const parsed = new Map<string, Prepared>();
    await Promise.all(
      reads
        .filter((r) => parseNeeded(r, known.get(r.path)))
        .map(async (r) => {
          if (r.kind !== 'bytes') return;
          parsed.set(r.path, await this.parsers.prepare(r.buf, r.path));
          progress.reading(c.id, r.path);
        }),
    );
    const plan = await planBatch(storage.documents, c, reads, known, { chunking: this.chunking, maxFileBytes }, parsed);
    const now = Date.now();
    const retire: JobRow[] = [];
    const retireIfApplied: { job: JobRow; write: number }[] = [];
    const retry: JobRetry[] = [];
    for (const job of batch) {
      const o = plan.outcomes.get(job.path);
      const w = plan.writeOf.get(job.path);
      const op = w === undefined ? undefined : plan.writes[w]!.op;
      if (o?.result === 'failed') retry.push(this.retryOf(job, o.reason, now));
      else if (op === 'move' || op === 'remove') retireIfApplied.push({ job, write: w! });
      else retire.push(job);
    }
    const applied = await claim.complete({ write: { collectionId: c.id, index: keywordIndexOf(c.kind), at: now, writes: plan.writes }, retire, retireIfApplied, retry });
    let bytes = 0;
    let done = 0;
    for (const o of plan.outcomes.values()) {
      const w = plan.writeOf.get(o.path);
      if (w !== undefined && !applied[w]) continue; // another host moved on first: the job stays queued and runs again
      if ('bytes' in o) bytes += o.bytes;
      collector?.file(o);
    }
    for (const job of batch) if (!(plan.writeOf.has(job.path) && !applied[plan.writeOf.get(job.path)!])) done++;
    progress.finished(c.id, done, bytes);
  }

  private retryOf(job: JobRow, error: string, now = Date.now()): JobRetry {
    const attempts = job.attempts + 1;
    return { job, attempts, nextRunAt: nextAttemptAt(this.retry, attempts, now), error };
  }

  private get maxFileBytes(): number {
    return this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  private filterFor(c: CollectionRow): PathFilter {
    let f = this.filters.get(c.id);
    if (!f) this.filters.set(c.id, (f = new PathFilter(c.root, c.include, c.exclude)));
    return f;
  }
}

/** PostgreSQL's unique violation, deadlock and serialization failure: the batch rolled back and may simply run again. */
function collided(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === '40P01' || code === '40001';
}

function rootPresent(root: string): boolean {
  try {
    return fs.statSync(root).isDirectory();
  } catch {
    return false;
  }
}
