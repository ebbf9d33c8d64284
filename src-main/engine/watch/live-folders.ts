// Keeps every collection fresh by itself: a watcher per collection feeds the durable queue, a
// reconcile scan at start-up and every so often catches what the watchers missed (the app was
// closed, events were dropped), and the job runner works the queue in the background.
import type { JobRunner } from '../jobs/runner.js';
import { PRIORITY } from '../jobs/runner.js';
import { FILE_BACKED, type CollectionRow, type CollectionStore } from '../store/collections.js';
import type { JobEnqueue, JobStore } from '../store/jobs.js';
import { FolderWatcher, type PathChange, type WatchSettings } from './folder-watcher.js';
import type { PathFilter } from './path-filter.js';
import type { WatchState } from '../types/indexing.js';

export type { WatchState };

export interface LiveOptions extends WatchSettings {
  /** How often every collection is reconciled with its folder while watching. */
  reconcileIntervalMs: number;
  /**
   * A vanished file waits this long before it leaves the index, so that "unlink old + add new"
   * (a rename, a folder move) is seen as a move and the document keeps its docid.
   */
  goneGraceMs: number;
}

export const DEFAULT_LIVE: LiveOptions = {
  usePolling: false,
  pollIntervalMs: 1000,
  debounceMs: 100,
  maxWaitMs: 500,
  maxBuffered: 2000,
  burstQuietMs: 1000,
  reconcileIntervalMs: 15 * 60_000,
  goneGraceMs: 400,
};

export interface LiveDeps {
  jobs: JobStore;
  collections: CollectionStore;
  runner: JobRunner;
  filterFor: (c: CollectionRow) => PathFilter;
}

export class LiveFolders {
  private readonly watchers = new Map<number, { name: string; watcher: FolderWatcher }>();
  private reconcileTimer: NodeJS.Timeout | null = null;
  private active = false;

  constructor(
    private readonly deps: LiveDeps,
    private readonly opts: LiveOptions,
  ) {}

  get watching(): boolean {
    return this.active;
  }

  state(): WatchState[] {
    return [...this.watchers.values()].map((w) => ({ collection: w.name, polling: w.watcher.usesPolling }));
  }

  /** Watches every collection; resolves when all watchers are live. A start-up reconcile is queued. */
  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    this.deps.runner.start();
    for (const c of this.deps.collections.list(FILE_BACKED)) await this.watch(c); // folders and registered datasets' folders
    this.reconcileTimer = setInterval(() => this.reconcileAll(), this.opts.reconcileIntervalMs);
    this.reconcileTimer.unref();
  }

  async stop(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.reconcileTimer = null;
    const closing = [...this.watchers.values()].map((w) => w.watcher.close());
    this.watchers.clear();
    await Promise.all(closing);
    await this.deps.runner.stop();
  }

  /** Starts a collection's watcher, then reconciles (so nothing changed in between is missed). */
  async watch(c: CollectionRow): Promise<void> {
    if (!this.active || this.watchers.has(c.id)) return;
    const watcher = new FolderWatcher(this.deps.filterFor(c), this.sinkFor(c.id, c.name), this.opts);
    this.watchers.set(c.id, { name: c.name, watcher });
    try {
      await watcher.start();
    } catch (err) {
      // an unreadable root: the reconcile scan reports it and retries; keep the others going
      process.stderr.write(`trove: cannot watch collection "${c.name}": ${(err as Error).message}\n`);
    }
    if (this.watchers.has(c.id)) this.requestScan(c.id);
  }

  /** A collection is being removed: stop its watcher at once. */
  unwatch(collectionId: number): void {
    const w = this.watchers.get(collectionId);
    this.watchers.delete(collectionId);
    void w?.watcher.close();
  }

  renamed(collectionId: number, name: string): void {
    const w = this.watchers.get(collectionId);
    if (w) w.name = name;
  }

  requestScan(collectionId: number): void {
    this.deps.jobs.recordEvents([
      { collectionId, kind: 'scan', path: '', priority: PRIORITY.scan, changedAt: Date.now(), gone: false, runAt: Date.now() },
    ]);
    this.deps.runner.wake();
  }

  private reconcileAll(): void {
    for (const id of this.watchers.keys()) this.requestScan(id);
  }

  private sinkFor(collectionId: number, name: string) {
    return {
      changes: (batch: PathChange[]): void => {
        if (!this.watchers.has(collectionId)) return; // unwatched (removed) meanwhile
        this.deps.jobs.recordEvents(watcherJobs(collectionId, batch, this.opts.goneGraceMs));
        this.deps.runner.wake();
      },
      rescan: (): void => {
        if (this.watchers.has(collectionId)) this.requestScan(collectionId);
      },
      error: (message: string): void => {
        process.stderr.write(`trove: collection "${this.watchers.get(collectionId)?.name ?? name}": ${message}\n`);
      },
    };
  }
}

/** A watcher's changes as queue events: what the user touched runs first; a vanished file waits out the grace time (a rename's other half). */
export function watcherJobs(collectionId: number, batch: readonly PathChange[], goneGraceMs: number): JobEnqueue[] {
  return batch.map((c) => ({
    collectionId,
    kind: 'file' as const,
    path: c.path,
    priority: PRIORITY.userChange,
    changedAt: c.at,
    gone: c.gone,
    runAt: c.gone ? c.at + goneGraceMs : c.at,
  }));
}
