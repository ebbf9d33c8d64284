// One native watch (fs.watch: inotify on Linux) per wanted folder of a collection's tree. An event
// names the entry that changed, and only that entry is looked at: one lstat per event, whatever
// the folder holds. chokidar, which the watcher used for native events before, re-read the whole
// folder (readdir and an lstat of every entry) on each event in it, so a file rewritten every
// 50 ms in a 50-file folder cost ~50 lstats an event (strace: 4,977 for 98 writes), and a log
// file beside 10,000 notes would have cost 10,000 a second. Folders are tracked by inode, so a
// folder removed and made again under the same name is watched again. Polling stays chokidar's
// (folder-watcher.ts).
import fs from 'node:fs';
import path from 'node:path';

export interface TreeEvents {
  /** An entry of a watched folder changed, appeared or went (`stats` undefined: gone); not a folder. A null name: the platform did not say which. */
  entry(abs: string, stats: fs.Stats | undefined): void;
  unnamed(dir: string): void;
  /** A folder appeared after the start (made, moved in): it is watched now; its files are the listener's to read. */
  folderAdded(abs: string): void;
  /** A watched folder is gone (removed, moved out), the root included. */
  folderRemoved(abs: string): void;
  /** A watch could not be made or failed (ENOSPC, EMFILE: out of watches or handles). */
  error(err: NodeJS.ErrnoException): void;
}

interface WatchedFolder {
  watcher: fs.FSWatcher;
  ino: number;
}

export class NativeTreeWatch {
  private readonly folders = new Map<string, WatchedFolder>();
  private closed = false;

  constructor(
    private readonly root: string,
    /** Whether a folder under the root is watched (ignore rules); asked again on refresh(). */
    private readonly wantsFolder: (abs: string) => boolean,
    private readonly events: TreeEvents,
  ) {}

  /** Resolves once every wanted folder is watched. */
  start(): Promise<void> {
    return this.add(this.root, false);
  }

  /** The ignore rules changed: watches the folders wanted now, and lets go of those no longer wanted. */
  async refresh(): Promise<void> {
    for (const dir of [...this.folders.keys()]) if (dir !== this.root && this.folders.has(dir) && !this.wantsFolder(dir)) this.drop(dir);
    await this.add(this.root, false);
  }

  /** How many folders are watched (tests). */
  get size(): number {
    return this.folders.size;
  }

  close(): void {
    this.closed = true;
    for (const f of this.folders.values()) f.watcher.close();
    this.folders.clear();
  }

  /** Watches `dir` (unless it already is, the same folder) and every wanted folder under it; `announce`: tell of each newly watched one. */
  private async add(dir: string, announce: boolean): Promise<void> {
    if (this.closed) return;
    const stats = await fs.promises.lstat(dir).catch(() => undefined);
    if (!stats?.isDirectory()) return; // gone again, or a link: links are not followed
    const known = this.folders.get(dir);
    if (known?.ino !== stats.ino) {
      if (known) this.drop(dir); // another folder under the old name
      if (!this.watch(dir, stats.ino)) return;
      if (announce) this.events.folderAdded(dir);
    }
    const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    for (const e of entries) {
      if (this.closed) return;
      const abs = path.join(dir, e.name);
      if (e.isDirectory() && this.wantsFolder(abs)) await this.add(abs, announce);
    }
  }

  private watch(dir: string, ino: number): boolean {
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, (_type, name) => this.onEvent(dir, name));
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      // removed before its watch, or not ours to read: nothing to hear there
      if (e.code !== 'ENOENT' && e.code !== 'EACCES' && e.code !== 'EPERM') this.events.error(e);
      return false;
    }
    watcher.on('error', (err: NodeJS.ErrnoException) => {
      if (this.folders.get(dir)?.watcher !== watcher) return;
      this.drop(dir);
      this.events.error(err);
    });
    this.folders.set(dir, { watcher, ino });
    return true;
  }

  private onEvent(dir: string, name: string | null): void {
    if (this.closed || !this.folders.has(dir)) return;
    if (!name) return this.events.unnamed(dir);
    const abs = path.join(dir, name);
    const stats = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (stats?.isDirectory()) {
      if (this.folders.get(abs)?.ino !== stats.ino && this.wantsFolder(abs)) void this.add(abs, true);
      return;
    }
    if (!stats && this.folders.has(abs)) return this.gone(abs); // a watched folder removed or moved out
    // a watched folder's own removal arrives as an event named after it, not an entry of it
    if (!stats && name === path.basename(dir) && !fs.existsSync(dir)) return this.gone(dir);
    this.events.entry(abs, stats);
  }

  private gone(dir: string): void {
    this.drop(dir);
    this.events.folderRemoved(dir);
  }

  /** Closes the watches of `dir` and every folder under it. */
  private drop(dir: string): void {
    const under = dir + path.sep;
    for (const [d, f] of this.folders) {
      if (d !== dir && !d.startsWith(under)) continue;
      f.watcher.close();
      this.folders.delete(d);
    }
  }
}
