// Everything that keeps the index in line with the folders, behind the few calls the engine
// facade exposes: explicit index runs, watching, pause/resume, the progress stream, the
// failures list and per-result freshness. It owns the queue runner and the watchers and
// releases them in close().
import { TroveError } from '../errors.js';
import type { IndexProgress, IndexReport, IndexerDeps, IndexerOptions } from '../ingest/indexer.js';
import { ParsePool, type ParsePoolOptions } from '../ingest/parse-pool.js';
import { FILE_BACKED, type CollectionRow, type CollectionStore } from '../store/collections.js';
import { GLOBAL_PAUSE, JobStore } from '../store/jobs.js';
import { freshnessOf, type Freshness, type PendingEmbeddingProbe } from '../watch/freshness.js';
import { DEFAULT_LIVE, LiveFolders, type LiveOptions } from '../watch/live-folders.js';
import { PathFilter } from '../watch/path-filter.js';
import { indexProgressOf, ProgressHub, type ProgressEvent, type ProgressListener } from './progress.js';
import { ReportCollector } from './report.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { JobRunner, scanJob } from './runner.js';
import type { KeywordIndex } from '../store/keyword-index.js';
import type { CollectionActivity, FailureInfo, IndexingStatus } from '../types/indexing.js';

export type { CollectionActivity, FailureInfo, IndexingStatus };

export interface IndexingOptions extends IndexerOptions {
  live?: Partial<LiveOptions>;
  retry?: Partial<RetryPolicy>;
  /** Files per write transaction. */
  batchFiles?: number;
  /** Files read at once. */
  readConcurrency?: number;
  /** Documents (PDF, Office, …) per write batch (default 32). */
  batchDocuments?: number;
  /** The document parse workers: how many, time and memory limits, parse bounds. */
  parsing?: Partial<ParsePoolOptions>;
}

export class IndexingService {
  readonly jobs: JobStore;
  private readonly progressHub = new ProgressHub();
  private readonly runner: JobRunner;
  private readonly live: LiveFolders;
  private readonly parsers: ParsePool;
  private readonly filters = new Map<number, PathFilter>();
  private pendingEmbedding: PendingEmbeddingProbe | null = null;
  /** Explicit index runs under way (they run even in paused collections). */
  private draining = 0;

  constructor(
    private readonly indexer: IndexerDeps,
    private readonly collections: CollectionStore,
    opts: IndexingOptions,
    onChanged: () => void,
  ) {
    this.jobs = new JobStore(indexer.db);
    const filterFor = (c: CollectionRow): PathFilter => {
      let f = this.filters.get(c.id);
      if (!f) this.filters.set(c.id, (f = new PathFilter(c.root, c.include, c.exclude)));
      return f;
    };
    this.parsers = new ParsePool(opts.chunking, opts.parsing);
    this.runner = new JobRunner(
      { indexer, jobs: this.jobs, collections, progress: this.progressHub, parsers: this.parsers, filterFor, onChanged },
      {
        chunking: opts.chunking,
        maxFileBytes: opts.maxFileBytes,
        maxFileBytesNow: opts.maxFileBytesNow,
        batchFiles: opts.batchFiles ?? 256,
        batchDocuments: opts.batchDocuments ?? 32,
        readConcurrency: opts.readConcurrency ?? 16, // small files are latency-bound: 4 at once read cpp-docs 4x slower
        retry: { ...DEFAULT_RETRY, ...opts.retry },
      },
    );
    this.live = new LiveFolders(
      { jobs: this.jobs, collections, runner: this.runner, filterFor },
      { ...DEFAULT_LIVE, ...opts.live },
    );
  }

  /** Brings collections up to date now (a reconcile scan, then every due job), pauses or not. */
  async index(targets: CollectionRow[], opts: { onProgress?: (p: IndexProgress) => void; signal?: AbortSignal }): Promise<IndexReport[]> {
    const reports: IndexReport[] = [];
    const rootErrors: Error[] = [];
    this.draining++;
    try {
      await this.indexEach(targets, opts, reports, rootErrors);
    } finally {
      this.draining--;
    }
    if (rootErrors.length === 1) throw rootErrors[0];
    if (rootErrors.length) throw new TroveError('IO', rootErrors.map((e) => e.message).join('; '));
    return reports;
  }

  private async indexEach(
    targets: CollectionRow[],
    opts: { onProgress?: (p: IndexProgress) => void; signal?: AbortSignal },
    reports: IndexReport[],
    rootErrors: Error[],
  ): Promise<void> {
    for (const c of targets) {
      const collector = new ReportCollector(c.name);
      let scanError: unknown = null;
      const stopOutcomes = this.runner.listen({
        scanned: (id, plan) => id === c.id && collector.scanned(plan),
        file: (id, o) => id === c.id && collector.file(o),
        scanFailed: (id, err) => id === c.id && (scanError = err),
      });
      const stopProgress = this.progressHub.subscribe((e) => {
        if (e.collection !== c.name || !opts.onProgress) return;
        opts.onProgress(indexProgressOf(e));
      });
      try {
        this.jobs.makeDue(c.id, Date.now());
        this.jobs.recordEvents([scanJob(c.id)]);
        await this.runner.drain(c.id, opts.signal);
        // a missing or unreadable root: nothing was removed from the index; say why once the
        // other collections have had their turn (one unplugged drive must not stop the rest)
        if (scanError) rootErrors.push(scanError as Error);
        else reports.push(collector.finish());
      } finally {
        stopOutcomes();
        stopProgress();
      }
    }
  }

  /**
   * Keyword indexing has work now: a batch or an explicit run under way, or jobs due in a
   * collection that is not paused. The background embedding stage waits while it does.
   */
  busy(): boolean {
    if (this.draining > 0 || this.runner.inBatch) return true;
    if (!this.runner.running || this.jobs.pauses().has(GLOBAL_PAUSE)) return false;
    const due = this.jobs.nextDueAt();
    return due !== null && due <= Date.now();
  }

  /** Merges the keyword indexes now (store/fts-merge.ts); watching hosts do it by themselves when idle. */
  compact(): Promise<void> {
    return this.runner.compact();
  }

  /** Another room wrote a keyword index (memory): it is merged once quiet (store/fts-merge.ts). */
  keywordIndexWritten(index: KeywordIndex): void {
    this.runner.keywordIndexWritten(index);
  }

  /** Look for work (and merging) now. */
  wake(): void {
    this.runner.wake();
  }

  get watching(): boolean {
    return this.live.watching;
  }

  startWatching(): Promise<void> {
    return this.live.start();
  }

  stopWatching(): Promise<void> {
    return this.live.stop();
  }

  collectionAdded(c: CollectionRow): void {
    if (this.live.watching) void this.live.watch(c);
  }

  collectionRenamed(c: CollectionRow): void {
    this.live.renamed(c.id, c.name);
  }

  /** Before the collection's rows go: stop its watcher and forget its queue at once. */
  collectionRemoved(collectionId: number): void {
    this.live.unwatch(collectionId);
    this.jobs.deleteForCollection(collectionId);
    this.filters.delete(collectionId);
    this.progressHub.forget(collectionId);
  }

  pause(collection?: CollectionRow): void {
    this.jobs.setPaused(collection?.id ?? GLOBAL_PAUSE, true);
    const targets = collection ? [collection] : this.collections.list(FILE_BACKED);
    for (const c of targets) this.progressHub.settle(c.id, c.name, 'paused');
  }

  resume(collection?: CollectionRow): void {
    this.jobs.setPaused(collection?.id ?? GLOBAL_PAUSE, false);
    this.runner.wake();
  }

  onProgress(listener: ProgressListener): () => void {
    return this.progressHub.subscribe(listener);
  }

  progress(): ProgressEvent[] {
    return this.progressHub.snapshot();
  }

  failures(collection: CollectionRow | undefined, limit = 500): FailureInfo[] {
    const names = new Map(this.collections.list(FILE_BACKED).map((c) => [c.id, c.name]));
    return this.jobs.failures(collection?.id, limit).map((j) => ({
      collection: names.get(j.collectionId) ?? String(j.collectionId),
      path: j.path || '.',
      reason: j.lastError ?? 'failed',
      attempts: j.attempts,
      nextRetryAt: j.nextRunAt === null ? null : new Date(j.nextRunAt).toISOString(),
    }));
  }

  status(): IndexingStatus {
    const counts = this.jobs.counts();
    const pauses = this.jobs.pauses();
    return {
      watching: this.live.watching,
      paused: pauses.has(GLOBAL_PAUSE),
      watchers: this.live.state(),
      collections: this.collections.list().map((c) => {
        const n = counts.get(c.id);
        return {
          collection: c.name,
          paused: pauses.has(c.id) || pauses.has(GLOBAL_PAUSE),
          queued: n?.queued ?? 0,
          retrying: n?.retrying ?? 0,
          gaveUp: n?.gaveUp ?? 0,
          progress: this.progressHub.latestFor(c.id) ?? null,
        };
      }),
    };
  }

  setPendingEmbeddingProbe(probe: PendingEmbeddingProbe | null): void {
    this.pendingEmbedding = probe;
  }

  freshness(documentIds: readonly number[]): Map<number, Freshness> {
    return freshnessOf(this.jobs, documentIds, this.pendingEmbedding);
  }

  /** The engine closes its database right after this returns; the promise settles when the parse workers have exited. */
  close(): Promise<void> {
    this.runner.close();
    void this.live.stop().catch(() => undefined);
    return this.parsers.close();
  }
}
