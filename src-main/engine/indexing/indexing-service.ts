// Everything that keeps the index in line with the folders, behind the few calls the engine
// facade exposes: explicit index runs with their reports, watching (live folders and the work
// loop that claims the queue's batches), pause/resume, the progress stream, the failures list and
// per-result freshness. Over the storage interface, so hosts that share an index in PostgreSQL
// share its queue (each batch claimed by one host) while a profile's SQLite file has one writer.
// One batch written at a time per engine (an explicit run reads the next while one is written:
// BatchWorker.series); idle time goes to the backend's housekeeping (FTS merges).
import { TroveError, notFound } from '../errors.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import type { IndexProgress, IndexReport, IndexerOptions } from '../ingest/indexer.js';
import { ParsePool, type ParsePoolOptions } from '../ingest/parse-pool.js';
import type { OcrMerge, Prepared } from '../ingest/prepare.js';
import { FILE_BACKED, type CollectionRow } from '../store/collections.js';
import { GLOBAL_PAUSE } from '../store/jobs.js';
import type { KeywordIndex } from '../store/keyword-index.js';
import type { ClaimedJobs, Storage } from '../store/storage.js';
import { freshnessOf, type Freshness } from './freshness.js';
import { DEFAULT_LIVE, LiveFolders, type LiveOptions } from './live-folders.js';
import { PathFilter } from '../ingest/path-filter.js';
import type { CollectionActivity, FailureInfo, IndexingStatus } from '../types/indexing.js';
import { BatchWorker, DEFAULT_TEXTS_QUIET_MS, scanJob, type BatchOptions, type OutcomeListener } from './batch-worker.js';
import { indexProgressOf, ProgressHub, type ProgressEvent, type ProgressListener } from './progress.js';
import { ReportCollector } from './report.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { WakeableSleep } from './wakeable-sleep.js';

export type { CollectionActivity, FailureInfo, IndexingStatus };

export interface IndexingOptions extends Omit<IndexerOptions, 'chunking'> {
  chunking?: ChunkOptions;
  live?: Partial<LiveOptions>;
  retry?: Partial<RetryPolicy>;
  /** Files per write transaction (default 256; 64 where other hosts share the queue: a claim holds its jobs while it reads). */
  batchFiles?: number;
  /** Files read at once. */
  readConcurrency?: number;
  /** Documents (PDF, Office, …) per write batch (default 32). */
  batchDocuments?: number;
  /** The document parse workers: how many, time and memory limits, parse bounds. */
  parsing?: Partial<ParsePoolOptions>;
  /** How long after a search a batch's text files are read on the engine's thread rather than in the parse workers (default 2 s). */
  textsQuietMs?: number;
}

/** The longest a watching host sleeps with nothing due (a new event wakes it at once). */
const MAX_IDLE_MS = 60_000;
/** Where other hosts share the queue their events wake nobody here: look at least this often. */
const SHARED_POLL_MS = 1000;
/** How long a run waits before looking again when the jobs left are held by other hosts. */
const HELD_ELSEWHERE_MS = 50;
/**
 * Batches of one explicit run worked in one turn of the engine's batch order, each read while the
 * one before is written (BatchWorker.series); then removals, compaction and the watched
 * collections' batches queued meanwhile get their turn.
 */
const SERIES_BATCHES = 16;
/** Batches of one run that may roll back on a collision with another host before the run gives up. */
const MAX_COLLISIONS = 20;

export class IndexingService {
  private readonly progressHub = new ProgressHub();
  private readonly parsers: ParsePool;
  private readonly worker: BatchWorker;
  private readonly live: LiveFolders;
  private readonly filters = new Map<number, PathFilter>();
  private readonly batchFiles: number;
  /** Collections an explicit run drains: the work loop leaves their jobs to it, so its report counts every file. */
  private readonly drained = new Map<number, ReportCollector>();
  /** Collections whose rows are being removed: their batches are dropped. */
  private readonly removing = new Set<number>();
  private chain: Promise<unknown> = Promise.resolve();
  private batches = 0;
  private pauses: ReadonlySet<number> = new Set();
  private readonly idle = new WakeableSleep();
  private loopDone: Promise<void> | null = null;
  private looping = false;
  /** Events were queued since the loop last found nothing to claim. */
  private eventsWaiting = false;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    opts: IndexingOptions & { chunking: ChunkOptions; willParse?: BatchOptions['willParse'] },
    /** Called after every batch that may have changed the index (the engine bumps its cache generation). */
    private readonly onChanged: () => void,
  ) {
    const filterFor = (c: CollectionRow): PathFilter => {
      let f = this.filters.get(c.id);
      if (!f) this.filters.set(c.id, (f = new PathFilter(c.root, c.include, c.exclude)));
      return f;
    };
    const shared = storage.changes.shared;
    const live: LiveOptions = { ...DEFAULT_LIVE, ...opts.live };
    this.batchFiles = opts.batchFiles ?? (shared ? 64 : 256);
    // a file found gone, by a scan or a watcher, waits for a rename's other half; a run drains what it finds at once
    const goneGraceMs = (id: number) => (this.drained.has(id) ? 0 : live.goneGraceMs);
    this.parsers = new ParsePool(opts.chunking, opts.parsing);
    this.worker = new BatchWorker(
      storage,
      this.parsers,
      this.progressHub,
      filterFor,
      {
        chunking: opts.chunking,
        maxFileBytes: opts.maxFileBytesNow ?? (() => opts.maxFileBytes),
        batchDocuments: opts.batchDocuments ?? 32,
        readConcurrency: opts.readConcurrency ?? 16, // small files are latency-bound: 4 at once read cpp-docs 4x slower
        retry: { ...DEFAULT_RETRY, ...opts.retry },
        willParse: opts.willParse,
        vanishedGraceMs: goneGraceMs,
        textsQuietMs: opts.textsQuietMs ?? DEFAULT_TEXTS_QUIET_MS,
      },
      // looked at after the lookup: a removal asked while it ran is heard
      async (id) => !(await this.fileBacked(id)) || this.closed || this.removing.has(id),
    );
    this.live = new LiveFolders({ storage, filterFor, wake: () => this.wake(), goneGraceMs }, live);
    void this.refreshPauses();
  }

  // ---- explicit runs -------------------------------------------------------------------

  /** Brings collections up to date now (a reconcile scan, then every due job), pauses or not; other hosts sharing the queue help. */
  async index(targets: readonly CollectionRow[], opts: { onProgress?: (p: IndexProgress) => void; signal?: AbortSignal }): Promise<IndexReport[]> {
    const reports: IndexReport[] = [];
    const rootErrors: Error[] = [];
    for (const c of targets) {
      const collector = new ReportCollector(c.name);
      const stopProgress = this.progressHub.subscribe((e) => e.collection === c.name && opts.onProgress?.(indexProgressOf(e)));
      this.drained.set(c.id, collector);
      try {
        // between two batches of the work loop: a live scan under way has queued what it found (files
        // found missing wait out the grace there), and all of it is due for this run
        await this.exclusive(async () => {
          await this.storage.jobs.makeDue(c.id, Date.now());
          await this.storage.jobs.recordEvents([scanJob(c.id)]);
        });
        const scanError = await this.drain(c, collector, opts.signal);
        // a missing or unreadable root: nothing was removed from the index; say why once the
        // other collections have had their turn (one unplugged drive must not stop the rest)
        if (scanError) rootErrors.push(scanError);
        else reports.push(collector.finish());
      } finally {
        this.drained.delete(c.id);
        stopProgress();
      }
    }
    if (rootErrors.length === 1) throw rootErrors[0];
    if (rootErrors.length) throw new TroveError('IO', rootErrors.map((e) => e.message).join('; '));
    return reports;
  }

  /** Works the collection's jobs until none is due (here or held by another host); returns the scan's error, if the folder could not be walked. */
  private async drain(c: CollectionRow, collector: ReportCollector, signal?: AbortSignal): Promise<Error | null> {
    let scanError: Error | null = null;
    let collisions = 0;
    const listener: OutcomeListener = { scanned: (plan) => collector.scanned(plan), file: (o) => collector.file(o) };
    for (;;) {
      if (signal?.aborted) throw new TroveError('INTERNAL', 'indexing cancelled; the remaining work stays queued');
      if (this.closed) throw new TroveError('UNAVAILABLE', 'the engine was closed while indexing; the remaining work stays queued');
      const outcome = await this.exclusive(async () => {
        // looked up in turn with the batches: a removal asked meanwhile has run before this, or drops this batch
        const current = await this.fileBacked(c.id);
        if (!current) return 'removed' as const;
        const claim = await this.storage.jobs.claim(Date.now(), this.batchFiles, { only: c.id });
        if (!claim) return 'none' as const;
        try {
          // the run's next batches follow in this turn, each claimed and read while the one before is written
          let turn = 1;
          const next = () =>
            this.closed || this.removing.has(c.id) || signal?.aborted || turn++ >= SERIES_BATCHES
              ? Promise.resolve(null)
              : this.storage.jobs.claim(Date.now(), this.batchFiles, { only: c.id });
          return { scanError: await this.runClaim(current, claim, listener, next) };
        } catch (err) {
          await claim.release().catch(() => undefined);
          // another host's write collided with this batch's (a docid drawn twice, a deadlock): its jobs are due again
          if (collided(err) && ++collisions <= MAX_COLLISIONS) return 'collided' as const;
          throw err;
        }
      });
      if (outcome === 'removed') throw notFound('the collection was removed while it was being indexed; its jobs were cancelled');
      if (outcome === 'collided') continue;
      if (outcome === 'none') {
        // nothing free: done, unless other hosts still hold some of this collection's due jobs
        if ((await this.storage.jobs.dueCount(c.id, Date.now())) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, HELD_ELSEWHERE_MS));
        continue;
      }
      scanError = outcome.scanError ?? scanError;
      await breathe();
    }
    await this.settle(c);
    return scanError;
  }

  /** Merges the keyword indexes now (the backend's housekeeping); watching hosts do it by themselves when idle. */
  async compact(): Promise<void> {
    while (await this.exclusive(async () => !this.closed && this.storage.maintenance.step({ now: true }))) await breathe();
  }

  /** Another room wrote a keyword index (memory): it is merged once quiet. */
  keywordIndexWritten(index: KeywordIndex): void {
    this.storage.maintenance.written(index);
  }

  // ---- watching and the work loop ------------------------------------------------------

  get watching(): boolean {
    return this.live.watching;
  }

  /** Watches every collection with a folder and works the queue in the background until stopWatching(). */
  async startWatching(): Promise<void> {
    if (this.closed) return;
    await this.live.start();
    if (!this.looping) {
      this.looping = true;
      this.loopDone = this.loop();
    }
  }

  /** Stops the watchers, then the loop once its batch under way is written. */
  async stopWatching(): Promise<void> {
    await this.live.stop();
    this.looping = false;
    this.wake();
    await this.loopDone;
    this.loopDone = null;
  }

  /** New events were queued: look for work (and housekeeping) now. */
  wake(): void {
    this.eventsWaiting = true;
    this.idle.wake();
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.looping && !this.closed) {
      let worked = false;
      let globalPause = false;
      try {
        globalPause = (await this.refreshPauses()).has(GLOBAL_PAUSE);
        if (!globalPause) worked = await this.exclusive(() => this.claimAndRun());
        else this.eventsWaiting = false; // looked at: nothing may run while everything is paused (busy() is false)
        // idle: the backend's housekeeping in slices; new work comes first
        if (!worked && !globalPause && this.looping) worked = await this.exclusive(async () => !this.closed && this.storage.maintenance.step());
        if (!worked) await this.settleFinishedRuns();
        failures = 0;
      } catch (err) {
        if (this.closed) return;
        process.stderr.write(`trove: indexing batch failed: ${(this.storage.describeError(err) ?? (err as Error)).message}\n`);
        // a batch that fails every time (its jobs due again at once) must not be claimed in a hot
        // loop: wait, longer after each failure in a row (1 s, 2 s … 32 s); new events cut it short
        await this.idle.sleep(1000 * 2 ** Math.min(failures++, 5));
        continue;
      }
      if (worked) {
        await breathe();
        continue;
      }
      if (!this.looping) return;
      const due = globalPause ? null : await this.storage.jobs.nextDueAt();
      const longest = this.storage.changes.shared ? SHARED_POLL_MS : MAX_IDLE_MS;
      await this.idle.sleep(due === null ? longest : Math.min(longest, Math.max(0, due - Date.now())));
    }
  }

  /** One batch of the watched collections (not those an explicit run drains); false when nothing was due. */
  private async claimAndRun(): Promise<boolean> {
    if (this.closed) return false;
    const ids = this.live.watchedIds().filter((id) => !this.drained.has(id));
    const claim = ids.length ? await this.storage.jobs.claim(Date.now(), this.batchFiles, { collections: ids }) : null;
    if (!claim) {
      this.eventsWaiting = false;
      return false;
    }
    if (this.drained.has(claim.jobs[0]!.collectionId)) {
      // an explicit run began while this claim was asked for (PostgreSQL answers later): its jobs are the run's
      await claim.release();
      return true;
    }
    const c = await this.fileBacked(claim.jobs[0]!.collectionId);
    if (!c || this.closed) {
      await claim.release();
      return true;
    }
    try {
      await this.runClaim(c, claim, this.drained.get(c.id));
    } catch (err) {
      await claim.release().catch(() => undefined);
      if (collided(err)) return true;
      throw err;
    }
    await this.settle(c);
    return true;
  }

  private async runClaim(c: CollectionRow, claim: ClaimedJobs, listener?: OutcomeListener, next?: () => Promise<ClaimedJobs | null>): Promise<Error | null> {
    this.batches++;
    try {
      // each batch written bumps the engine's cache generation: searches see it while the run goes on
      const heard: OutcomeListener = { ...listener, written: () => this.onChanged() };
      return await (next ? this.worker.series(c, claim, next, heard) : this.worker.run(c, claim, heard));
    } catch (err) {
      throw this.storage.describeError(err) ?? err;
    } finally {
      this.batches--;
      this.onChanged();
    }
  }

  /** Ends the collection's run once none of its jobs is due, here or on another host. */
  private async settle(c: CollectionRow): Promise<void> {
    if (!(await this.fileBacked(c.id))) return;
    if ((await this.storage.jobs.dueCount(c.id, Date.now())) > 0) return;
    await this.storage.collections.markIndexed(c.id, Date.now());
    this.worker.runEnded(c.id);
    this.progressHub.settle(c.id, c.name, 'idle');
  }

  /** Ends this host's runs whose collection has no due job left (other hosts wrote its last batches) or is gone. */
  private async settleFinishedRuns(): Promise<void> {
    for (const { collectionId, collection } of this.progressHub.running()) {
      if (this.drained.has(collectionId)) continue;
      const c = await this.fileBacked(collectionId);
      if (c) await this.settle(c);
      else this.progressHub.settle(collectionId, collection, 'idle');
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn);
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** A search started: for a moment, a batch's text files are prepared here, between requests, not in the parse workers. */
  searched(): void {
    this.worker.searched();
  }

  /**
   * Keyword indexing has work now: a batch or an explicit run under way, or jobs due in a
   * collection that is not paused. The background embedding stage waits while it does.
   */
  busy(): boolean {
    return this.drained.size > 0 || this.batches > 0 || this.progressHub.active() || (this.looping && this.eventsWaiting);
  }

  // ---- collections, pauses -------------------------------------------------------------

  /** A collection this engine just added: watched at once when watching (its first run is the caller's). */
  async collectionAdded(c: CollectionRow): Promise<void> {
    await this.live.adopt(c);
  }

  /** Collections added elsewhere (a folder dataset's collection, another host's): watched and scanned now rather than at the next reconcile. */
  followCollections(): Promise<void> {
    return this.live.sync();
  }

  collectionRenamed(c: CollectionRow): void {
    this.live.renamed(c.id, c.name);
  }

  /**
   * Removes the collection's rows: its watcher stopped and it forgotten here at once, its batch in
   * flight dropped (abandoned), and the rows deleted between batches. On PostgreSQL a batch holds
   * its claimed jobs until it completes: a removal waiting on them while the batch wrote the
   * collection's documents deadlocked (PostgreSQL aborted the removal and the run went on).
   */
  async removeCollection(collectionId: number): Promise<void> {
    this.live.unwatch(collectionId);
    this.filters.delete(collectionId);
    const release = this.holdForRemoval(collectionId);
    try {
      await this.exclusive(() => this.storage.collections.remove(collectionId));
    } finally {
      release();
    }
  }

  /**
   * A removal was asked for by name, its row not yet looked up: from now on nothing more is said of
   * a run of that name and no further batch of it is written (the next batch may already be read:
   * BatchWorker.series). Returns the undo, for when the lookup fails; removeCollection follows.
   */
  removalAsked(name: string): () => void {
    const run = this.progressHub.running().find((r) => r.collection === name);
    return run ? this.holdForRemoval(run.collectionId) : () => undefined;
  }

  /** No batch of the collection is written and nothing is said of it until the returned release. */
  private holdForRemoval(collectionId: number): () => void {
    this.removing.add(collectionId);
    this.progressHub.mute(collectionId);
    return () => {
      this.removing.delete(collectionId);
      this.progressHub.unmute(collectionId);
    };
  }

  async pause(collection?: CollectionRow): Promise<void> {
    const id = collection?.id ?? GLOBAL_PAUSE;
    this.pauses = new Set([...this.pauses, id]); // heeded by background embedding at once, before the row is written
    await this.storage.jobs.setPaused(id, true);
    await this.refreshPauses();
    const targets = collection ? [collection] : await this.storage.collections.list(FILE_BACKED);
    for (const c of targets) this.progressHub.settle(c.id, c.name, 'paused');
  }

  async resume(collection?: CollectionRow): Promise<void> {
    await this.storage.jobs.setPaused(collection?.id ?? GLOBAL_PAUSE, false);
    await this.refreshPauses();
    this.wake();
  }

  /** Paused collections as last read (0: everything): what background embedding heeds between batches. */
  pausesNow(): ReadonlySet<number> {
    return this.pauses;
  }

  /** Reads the pauses again (another host may have paused or resumed). */
  async refreshPauses(): Promise<ReadonlySet<number>> {
    try {
      this.pauses = await this.storage.jobs.pauses();
    } catch {
      /* closed, or the database is away: keep what we knew */
    }
    return this.pauses;
  }

  // ---- what faces show -----------------------------------------------------------------

  onProgress(listener: ProgressListener): () => void {
    return this.progressHub.subscribe(listener);
  }

  progress(): ProgressEvent[] {
    return this.progressHub.snapshot();
  }

  async status(): Promise<IndexingStatus> {
    const [counts, pauses, collections] = await Promise.all([this.storage.jobs.counts(), this.refreshPauses(), this.storage.collections.list()]);
    return {
      watching: this.live.watching,
      paused: pauses.has(GLOBAL_PAUSE),
      watchers: this.live.state(),
      collections: collections.map((c) => {
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

  freshness(documentIds: readonly number[]): Promise<Map<number, Freshness>> {
    return freshnessOf(this.storage, documentIds);
  }

  /** Parses a file in the parse workers, recognised pages merged in (the OCR stage's re-write of a scanned document). */
  parse(bytes: Uint8Array, path: string, ocr: OcrMerge): Promise<Prepared> {
    return this.parsers.prepare(bytes, path, ocr);
  }

  /** No batch may touch the index after this returns; the promise settles when the watchers, the loop and the parse workers have stopped. */
  async close(): Promise<void> {
    this.closed = true;
    this.looping = false;
    this.wake();
    await this.live.stop().catch(() => undefined);
    await this.loopDone?.catch(() => undefined);
    await this.chain;
    await this.parsers.close();
  }

  /** A folder or a registered dataset's folder (the kinds with files); undefined when it is gone. */
  private async fileBacked(id: number): Promise<CollectionRow | undefined> {
    const c = await this.storage.collections.byId(id);
    return c && FILE_BACKED.includes(c.kind) ? c : undefined;
  }
}

/** PostgreSQL's unique violation, deadlock and serialization failure: the batch rolled back and may simply run again. */
function collided(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === '40P01' || code === '40001';
}

const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
