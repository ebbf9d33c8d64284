// Keeps every collection with a folder fresh while a host runs: a watcher per collection turns
// changes into queue events (store/storage.ts JobQueue.recordEvents), a reconcile scan at start
// and every so often catches what the watchers missed (the app was closed, events were dropped),
// and the indexing service's work loop (jobs/indexing-service.ts) works the queue. Collections
// added, renamed or removed while it runs — here, or by another host sharing the index (the change
// feed, and every reconcile as a fallback) — are followed by sync(): watched, renamed, or dropped.
import { scanJob, PRIORITY } from './batch-worker.js';
import { FILE_BACKED, type CollectionRow } from '../store/collections.js';
import type { JobEnqueue } from '../store/jobs.js';
import type { Storage } from '../store/storage.js';
import type { WatchState } from '../types/indexing.js';
import { FolderWatcher, type PathChange, type WatchSettings } from './folder-watcher.js';
import type { PathFilter } from '../ingest/path-filter.js';

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
  storage: Storage;
  filterFor: (c: CollectionRow) => PathFilter;
  /** New events were queued: the work loop looks now. */
  wake: () => void;
  /** How long a file the watcher saw vanish waits in this collection now (none while an explicit run drains it). */
  goneGraceMs: (collectionId: number) => number;
}

export class LiveFolders {
  private readonly watchers = new Map<number, { name: string; watcher: FolderWatcher }>();
  private reconcileTimer: NodeJS.Timeout | null = null;
  private active = false;
  private stopChanges: (() => void) | null = null;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;

  constructor(
    private readonly deps: LiveDeps,
    private readonly opts: LiveOptions,
  ) {}

  get watching(): boolean {
    return this.active;
  }

  /** The collections watched here, by id. */
  watchedIds(): number[] {
    return [...this.watchers.keys()];
  }

  state(): WatchState[] {
    return [...this.watchers.values()].map((w) => ({ collection: w.name, polling: w.watcher.usesPolling }));
  }

  /** Watches every collection with a folder; resolves when the watchers are live and their start-up scans are queued. */
  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    for (const c of await this.deps.storage.collections.list(FILE_BACKED)) await this.watch(c); // folders and registered datasets' folders
    // another host's add, rename or remove: followed without a restart
    this.stopChanges = this.deps.storage.changes.onRemoteChange(() => void this.sync());
    this.reconcileTimer = setInterval(() => void this.reconcileAll(), this.opts.reconcileIntervalMs);
    this.reconcileTimer.unref();
  }

  async stop(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    this.stopChanges?.();
    this.stopChanges = null;
    await this.syncing;
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.reconcileTimer = null;
    const closing = [...this.watchers.values()].map((w) => w.watcher.close());
    this.watchers.clear();
    await Promise.all(closing);
  }

  /**
   * Brings the watched set in line with the index's collections: new ones watched (and scanned),
   * renamed ones renamed, removed ones dropped. Calls while one runs coalesce into one more.
   */
  sync(): Promise<void> {
    if (!this.active) return Promise.resolve();
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    const run = async () => {
      do {
        this.syncAgain = false;
        try {
          const rows = await this.deps.storage.collections.list(FILE_BACKED);
          const now = new Map(rows.map((c) => [c.id, c]));
          for (const [id, w] of this.watchers) {
            const c = now.get(id);
            if (!c) this.unwatch(id);
            else w.name = c.name;
          }
          for (const c of rows) if (this.active && !this.watchers.has(c.id)) await this.watch(c);
        } catch (err) {
          process.stderr.write(`trove: could not follow the collections: ${(err as Error).message}\n`);
        }
      } while (this.syncAgain && this.active);
    };
    return (this.syncing = run().finally(() => (this.syncing = null)));
  }

  /**
   * Watches a collection this host just added, without queueing a scan: the caller indexes it
   * (the app's run), and a scan queued here could be worked by the loop before that run starts,
   * splitting the run's report. Later changes and reconciles are queued as for any other.
   */
  async adopt(c: CollectionRow): Promise<void> {
    if (this.active && !this.watchers.has(c.id)) await this.watch(c, false);
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

  /** Starts a collection's watcher, then reconciles (so nothing changed in between is missed). */
  private async watch(c: CollectionRow, scan = true): Promise<void> {
    const watcher = new FolderWatcher(this.deps.filterFor(c), this.sinkFor(c), this.opts);
    this.watchers.set(c.id, { name: c.name, watcher });
    try {
      await watcher.start();
    } catch (err) {
      // a folder this host does not see (or cannot read): the scan reports it and retries; keep the others going
      process.stderr.write(`trove: cannot watch collection "${c.name}": ${(err as Error).message}\n`);
    }
    if (scan && this.watchers.has(c.id)) await this.record([scanJob(c.id)]);
  }

  private async reconcileAll(): Promise<void> {
    await this.sync(); // a missed notification (a reconnect) is caught here at the latest
    for (const id of this.watchers.keys()) await this.record([scanJob(id)]);
  }

  private sinkFor(c: CollectionRow) {
    return {
      changes: (batch: PathChange[]): void => {
        if (this.watchers.has(c.id)) void this.record(watcherJobs(c.id, batch, this.deps.goneGraceMs(c.id))); // not when unwatched (removed) meanwhile
      },
      rescan: (): void => {
        if (this.watchers.has(c.id)) void this.record([scanJob(c.id)]);
      },
      error: (message: string): void => {
        process.stderr.write(`trove: collection "${this.watchers.get(c.id)?.name ?? c.name}": ${message}\n`);
      },
    };
  }

  /** Records events and wakes the work loop; an index that cannot be written is reported, and the next reconcile catches up. */
  private async record(jobs: JobEnqueue[]): Promise<void> {
    try {
      await this.deps.storage.jobs.recordEvents(jobs);
    } catch (err) {
      process.stderr.write(`trove: could not queue changes: ${(err as Error).message}\n`);
    }
    this.deps.wake();
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
