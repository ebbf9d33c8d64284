// Watches one collection's folder and turns its events into coalesced path changes: events for
// the same path inside the debounce window become one (the last word wins), an editor's atomic save
// (temp write + rename) arrives as one change, and the buffer is flushed in one piece, early when
// it grows large, so a 10,000-file checkout costs bounded memory. Folder-level events (a folder
// removed, a .gitignore changed, dropped events) ask for a reconcile scan instead. A large burst
// may lose events (the kernel's queue overflows), so a burst that overflowed the buffer is
// followed, once quiet, by a reconcile scan.
// Native events come from one watch per folder (native-tree-watch.ts): a file's events come
// through its folder's watch, never one watch per file — 5,650 for 5,000 files, each an inotify
// watch and a handle, ~0.8 GB idle at 100,000 documents, and past the kernel's watch limit on a
// large tree. Where native events fail (inotify limits) it falls back to chokidar's polling,
// which watches files.
import fs from 'node:fs';
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { EXCLUDED_DIR_NAMES } from '../ingest/defaults.js';
import type { PathFilter } from '../ingest/path-filter.js';
import { NativeTreeWatch } from './native-tree-watch.js';

/**
 * A path is read no sooner than this after its event: by then a write still going on at the event
 * is on disk, and later writes raise new events. (chokidar's polling also drops further changes of
 * a path for 50 ms after one, with no trailing event.)
 */
const SETTLE_AFTER_EVENT_MS = 60;

export interface PathChange {
  path: string;
  /** The last event said the file is gone. */
  gone: boolean;
  /** When the watcher saw it (ms). */
  at: number;
}

export interface WatchSettings {
  /** Poll the file system instead of native events (network drives, some containers). */
  usePolling: boolean;
  pollIntervalMs: number;
  /** Quiet time after the last event before a flush. */
  debounceMs: number;
  /** Longest a change waits in the buffer while events keep coming. */
  maxWaitMs: number;
  /** Flush at once when this many paths are buffered. */
  maxBuffered: number;
  /** Quiet time after a burst before the reconcile scan. */
  burstQuietMs: number;
}

export interface WatchSink {
  changes(batch: PathChange[]): void;
  /** Something happened that per-file events cannot describe: reconcile the whole folder. */
  rescan(reason: string): void;
  error(message: string): void;
}

export class FolderWatcher {
  /** Native events: one watch per folder. */
  private tree: NativeTreeWatch | null = null;
  /** Polling: chokidar. */
  private watcher: FSWatcher | null = null;
  private buffer = new Map<string, PathChange>();
  private timer: NodeJS.Timeout | null = null;
  private firstBufferedAt = 0;
  /** The buffer overflowed since the last quiet moment: reconcile when things calm down. */
  private burst = false;
  private quietTimer: NodeJS.Timeout | null = null;
  private polling: boolean;
  private closed = false;
  /** A .gitignore changed: reconcile with the next flush (after the same settle time). */
  private rescanReason: string | null = null;

  constructor(
    private readonly filter: PathFilter,
    private readonly sink: WatchSink,
    private readonly settings: WatchSettings,
  ) {
    this.polling = settings.usePolling;
  }

  get usesPolling(): boolean {
    return this.polling;
  }

  /** Resolves once the initial directory walk is done and events are live. */
  async start(): Promise<void> {
    if (!this.polling) return this.startNative();
    const w = chokidar.watch(this.filter.root, {
      ignoreInitial: true,
      followSymlinks: false,
      usePolling: true,
      interval: this.settings.pollIntervalMs,
      binaryInterval: this.settings.pollIntervalMs,
      atomic: true,
      ignorePermissionErrors: true,
      ignored: (p, stats) => this.ignored(p, stats),
    });
    this.watcher = w;
    w.on('add', (p) => this.onFile(p, false));
    w.on('change', (p) => this.onFile(p, false));
    w.on('unlink', (p) => this.onFile(p, true));
    w.on('unlinkDir', (p) => this.onDir(p));
    w.on('error', (err) => this.onError(err as NodeJS.ErrnoException));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  }

  private startNative(): Promise<void> {
    const tree = new NativeTreeWatch(
      this.filter.root,
      (abs) => {
        const rel = this.filter.relative(abs);
        return rel === null || this.filter.wantsDir(rel);
      },
      {
        entry: (abs, stats) => this.onEntry(abs, stats),
        unnamed: () => this.sink.rescan('a file event without a name'), // not seen on Linux; be safe elsewhere
        folderAdded: (abs) => void this.walkNewDir(abs),
        folderRemoved: (abs) => this.onDir(abs),
        error: (err) => this.onError(err),
      },
    );
    this.tree = tree;
    return tree.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.timer = null;
    this.quietTimer = null;
    this.flush();
    await this.stopWatching();
  }

  private async stopWatching(): Promise<void> {
    this.tree?.close();
    this.tree = null;
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }

  private ignored(abs: string, stats?: { isDirectory(): boolean; isFile(): boolean }): boolean {
    const rel = this.filter.relative(abs);
    if (rel === null) return false; // the root itself
    if (path.basename(abs) === '.gitignore') return false; // its changes change what we index
    if (stats?.isDirectory()) return !this.filter.wantsDir(rel);
    if (stats?.isFile()) return !this.filter.wantsFile(rel);
    // no stats yet: only what is certainly unwanted (tooling folders); decided again with stats
    return rel.split('/').some((part) => EXCLUDED_DIR_NAMES.has(part));
  }

  private onFile(abs: string, gone: boolean): void {
    if (this.closed) return;
    const rel = this.filter.relative(abs);
    if (rel === null) return;
    if (path.basename(rel) === '.gitignore') {
      this.filter.forgetGitignore(path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel));
      void this.tree?.refresh(); // folders the new rules let in are watched; the reconcile reads them
      this.rescanReason = `${rel} changed`;
      if (this.buffer.size === 0) this.firstBufferedAt = Date.now();
      this.schedule(Date.now());
      return;
    }
    // an unlink carries no stats, and a file that just stopped matching must still leave the
    // index, so every path under the root is passed on; the job re-checks the rules
    const now = Date.now();
    if (this.buffer.size === 0) this.firstBufferedAt = now;
    this.buffer.set(rel, { path: rel, gone, at: now });
    if (this.buffer.size >= this.settings.maxBuffered) {
      this.burst = true; // everything goes now; the reconcile after the burst covers the rest
      this.flush(true);
    } else this.schedule(now);
    if (this.burst) this.afterBurst();
  }

  /** An entry of a watched folder changed, appeared or went (`stats` undefined): a file's event, unless it is a link or a socket. */
  private onEntry(abs: string, stats: fs.Stats | undefined): void {
    if (this.closed) return;
    if (stats && !stats.isFile()) return;
    if (stats && path.basename(abs) !== '.gitignore' && this.ignored(abs, stats)) return;
    this.onFile(abs, !stats);
  }

  /** A folder appeared (created, moved in): its files were there before its watch, so each is a change now. */
  private async walkNewDir(dir: string): Promise<void> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return; // gone again, or unreadable: the reconcile scan has the last word
    }
    for (const e of entries) {
      if (this.closed) return;
      const abs = path.join(dir, e.name);
      if (this.ignored(abs, e)) continue;
      if (e.isDirectory()) continue; // the tree reports it as a folder of its own
      if (e.isFile()) this.onFile(abs, false);
    }
  }

  private onDir(abs: string): void {
    if (this.closed) return;
    const rel = this.filter.relative(abs);
    this.sink.rescan(rel === null ? 'the collection folder was removed' : `folder ${rel} was removed`);
  }

  private onError(err: NodeJS.ErrnoException): void {
    if (this.closed) return;
    if (!this.polling && (err.code === 'ENOSPC' || err.code === 'EMFILE')) {
      // out of inotify watches or file handles: native events are unreliable now, poll instead
      this.sink.error(`native file events unavailable (${err.code}); falling back to polling`);
      this.polling = true;
      void this.restart('switched to polling');
      return;
    }
    this.sink.error(`watcher error: ${err.message}`);
    this.sink.rescan('watcher error');
  }

  /** Watching anew over the same root (polling now), then a reconcile for the gap. */
  private async restart(reason: string): Promise<void> {
    try {
      await this.stopWatching();
      if (this.closed) return;
      await this.start();
    } catch (err) {
      this.sink.error(`cannot restart the watcher: ${(err as Error).message}`);
    }
    if (!this.closed) this.sink.rescan(reason);
  }

  private afterBurst(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.burst = false;
      if (!this.closed) this.sink.rescan('a burst of changes (events may have been dropped)');
    }, this.settings.burstQuietMs);
  }

  private schedule(now: number): void {
    if (this.timer) clearTimeout(this.timer);
    const waited = now - this.firstBufferedAt;
    const debounce = Math.max(this.settings.debounceMs, SETTLE_AFTER_EVENT_MS);
    const delay = Math.max(SETTLE_AFTER_EVENT_MS, Math.min(debounce, this.settings.maxWaitMs - waited));
    this.timer = setTimeout(() => this.flush(), delay);
  }

  /** Hands over the paths whose event has settled (all of them when `all`); the rest wait. */
  private flush(all = false): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    const ready: PathChange[] = [];
    for (const [rel, change] of this.buffer) {
      if (!all && !this.closed && now - change.at < SETTLE_AFTER_EVENT_MS) continue;
      ready.push(change);
      this.buffer.delete(rel);
    }
    if (ready.length) this.sink.changes(ready);
    if (this.rescanReason) {
      // the watches follow the new rules (tree.refresh; chokidar asks `ignored` again for new
      // events): no restart (tested: a folder un-ignored later is watched); the reconcile reads the disk
      this.sink.rescan(this.rescanReason);
      this.rescanReason = null;
    }
    if (this.buffer.size) {
      this.firstBufferedAt = Math.min(...[...this.buffer.values()].map((c) => c.at));
      this.schedule(now);
    }
  }
}
