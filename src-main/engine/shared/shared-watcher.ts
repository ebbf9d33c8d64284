// Keeps a shared index's folder collections fresh from one host, with the same watcher code as
// SQLite's live folders (watch/folder-watcher.ts, watch/live-folders.ts's watcherJobs): a watcher
// per collection this host sees turns changes into queue events, a reconcile scan at start and
// every so often catches what it missed, and a background loop claims due batches of the watched
// collections (pauses honoured) — the jobs any host's watcher recorded, so hosts watching the same
// shared folder split the work. It looks for work again at once after a batch, when its own
// watcher records one, and otherwise every POLL_MS (another host's events send no notification).
// Collections added, renamed or removed while it runs (here or by another host: the change feed,
// and every reconcile as a fallback) are followed by sync(): watched, renamed, or dropped.
import { FILE_BACKED, type CollectionRow } from '../store/collections.js';
import type { ClaimedJobs, Storage } from '../store/storage.js';
import { scanJob } from '../jobs/runner.js';
import { FolderWatcher, type PathChange } from '../watch/folder-watcher.js';
import { DEFAULT_LIVE, watcherJobs, type LiveOptions } from '../watch/live-folders.js';
import type { PathFilter } from '../watch/path-filter.js';
import { WakeableSleep } from '../jobs/wakeable-sleep.js';

const POLL_MS = 1000;

export interface SharedWatcherDeps {
  storage: Storage;
  filterFor: (c: CollectionRow) => PathFilter;
  /** Works one claimed batch (the indexer's own batch code) and settles the collection when its queue is empty. */
  work: (claim: ClaimedJobs) => Promise<void>;
  /** Nothing was left to claim here: runs whose last batches other hosts wrote end now. */
  nothingToClaim: () => Promise<void>;
  /** Collections an explicit run on this host is draining (SharedIndexer.index): left to it, so its report counts every file. */
  drained: { has(collectionId: number): boolean };
  batchFiles: number;
}

export class SharedWatcher {
  private readonly watchers = new Map<number, { name: string; watcher: FolderWatcher }>();
  private readonly opts: LiveOptions;
  private reconcileTimer: NodeJS.Timeout | null = null;
  private loopDone: Promise<void> | null = null;
  private readonly idle = new WakeableSleep();
  private active = false;
  private stopChanges: (() => void) | null = null;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;

  constructor(
    private readonly deps: SharedWatcherDeps,
    opts: Partial<LiveOptions> = {},
  ) {
    this.opts = { ...DEFAULT_LIVE, ...opts };
  }

  get watching(): boolean {
    return this.active;
  }

  /** The collections watched here, as status reports them. */
  state(): { collection: string; polling: boolean }[] {
    return [...this.watchers.values()].map((w) => ({ collection: w.name, polling: w.watcher.usesPolling }));
  }

  /** Watches every folder collection; resolves when the watchers are live and the start-up scans are queued. */
  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    for (const c of await this.deps.storage.collections.list(FILE_BACKED)) await this.watch(c);
    // another host's add, rename or remove: followed without a restart
    this.stopChanges = this.deps.storage.changes.onRemoteChange(() => void this.sync());
    this.reconcileTimer = setInterval(() => void this.reconcileAll(), this.opts.reconcileIntervalMs);
    this.reconcileTimer.unref();
    this.loopDone = this.loop();
  }

  /** Stops the watchers, then the loop once its batch under way is written. */
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
    this.wake();
    await Promise.all([...closing, this.loopDone]);
    this.loopDone = null;
  }

  /**
   * Brings the watched set in line with the database's collections: new ones watched (and
   * scanned), renamed ones renamed, removed ones dropped. Calls while one runs coalesce into one more.
   */
  sync(): Promise<void> {
    return this.syncAll();
  }

  /**
   * Watches a collection this host just added, without queueing a scan: the caller indexes it
   * (the app's run), and a scan queued here could be worked by this loop before that run starts,
   * splitting the run's report. Later changes and reconciles are queued as for any other.
   */
  async adopt(c: CollectionRow): Promise<void> {
    if (this.active && !this.watchers.has(c.id)) await this.watch(c, false);
  }

  private syncAll(): Promise<void> {
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
            if (!c) {
              this.watchers.delete(id);
              await w.watcher.close();
            } else w.name = c.name;
          }
          for (const c of rows) if (this.active && !this.watchers.has(c.id)) await this.watch(c);
        } catch (err) {
          process.stderr.write(`trove: could not follow the collections: ${(err as Error).message}\n`);
        }
      } while (this.syncAgain && this.active);
    };
    return (this.syncing = run().finally(() => (this.syncing = null)));
  }

  private async watch(c: CollectionRow, scan = true): Promise<void> {
    const watcher = new FolderWatcher(this.deps.filterFor(c), this.sinkFor(c), this.opts);
    this.watchers.set(c.id, { name: c.name, watcher });
    try {
      await watcher.start();
    } catch (err) {
      // a folder this host does not see (or cannot read): the scan reports it and retries; keep the others going
      process.stderr.write(`trove: cannot watch collection "${c.name}": ${(err as Error).message}\n`);
    }
    if (scan) await this.record(() => this.deps.storage.jobs.recordEvents([scanJob(c.id)]));
  }

  private async reconcileAll(): Promise<void> {
    await this.sync(); // a missed notification (a reconnect) is caught here at the latest
    for (const id of this.watchers.keys()) await this.record(() => this.deps.storage.jobs.recordEvents([scanJob(id)]));
  }

  private sinkFor(c: CollectionRow) {
    return {
      changes: (batch: PathChange[]): void => {
        if (this.watchers.has(c.id)) void this.record(() => this.deps.storage.jobs.recordEvents(watcherJobs(c.id, batch, this.opts.goneGraceMs)));
      },
      rescan: (): void => {
        if (this.watchers.has(c.id)) void this.record(() => this.deps.storage.jobs.recordEvents([scanJob(c.id)]));
      },
      error: (message: string): void => {
        process.stderr.write(`trove: collection "${this.watchers.get(c.id)?.name ?? c.name}": ${message}\n`);
      },
    };
  }

  /** Records events and looks for work; a database that cannot be reached is reported, and the next reconcile catches up. */
  private async record(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      process.stderr.write(`trove: could not queue changes: ${(err as Error).message}\n`);
    }
    this.wake();
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.active) {
      let worked = false;
      try {
        const ids = [...this.watchers.keys()].filter((id) => !this.deps.drained.has(id));
        const claim = ids.length ? await this.deps.storage.jobs.claim(Date.now(), this.deps.batchFiles, { collections: ids }) : null;
        if (claim) {
          worked = true;
          await this.deps.work(claim);
        } else {
          await this.deps.nothingToClaim();
        }
        failures = 0;
      } catch (err) {
        process.stderr.write(`trove: indexing batch failed: ${(err as Error).message}\n`);
        // a batch that fails every time (its jobs due again at once) must not be claimed in a hot
        // loop: wait, longer after each failure in a row (1 s, 2 s … 32 s); new events cut it short
        if (this.active) await this.idle.sleep(POLL_MS * 2 ** Math.min(failures++, 5));
        continue;
      }
      if (!worked && this.active) await this.idle.sleep(POLL_MS);
    }
  }

  private wake(): void {
    this.idle.wake();
  }
}
