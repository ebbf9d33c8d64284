// Hot reload: while a host runs, the manifest folders are watched (each as deep as discovery looks
// in it: an added folder two folders down, a datasets/ folder DATASETS_DEPTH) together with every
// FAISS dataset's own files, and any change to a manifest or one of those files asks the registry
// to look again, once things are quiet for a moment. The folders of documents inside folder
// datasets are the job runner's business (watch/live-folders.ts).
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { MANIFEST_FILE } from './manifest.js';

/** A folder to watch and how many folders down (0: its own entries only). */
export interface WatchRoot {
  path: string;
  depth: number;
}

export interface ManifestWatchSettings {
  usePolling: boolean;
  pollIntervalMs: number;
  /** Quiet time before a burst of events becomes one reload. */
  debounceMs: number;
}

export class ManifestWatcher {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Root path → how deep it is watched. */
  private readonly roots = new Map<string, number>();
  private readonly files = new Set<string>();
  private closed = false;

  constructor(
    private readonly settings: ManifestWatchSettings,
    private readonly onChange: () => void,
  ) {}

  /** Starts watching these folders and files; resolves when events are live. */
  async start(roots: readonly WatchRoot[], files: readonly string[]): Promise<void> {
    for (const r of roots) this.roots.set(r.path, r.depth);
    for (const f of files) this.files.add(f);
    const w = chokidar.watch([...this.roots.keys(), ...this.files], {
      ignoreInitial: true,
      depth: Math.max(0, ...this.roots.values()), // the deepest root's; tooDeep() holds each root to its own
      usePolling: this.settings.usePolling,
      interval: this.settings.pollIntervalMs,
      atomic: true,
      ignorePermissionErrors: true,
      ignored: (p: string, stats?: { isDirectory(): boolean }) => /[\\/](node_modules|\.git)([\\/]|$)/.test(p) || (!!stats?.isDirectory() && this.tooDeep(p)),
    });
    this.watcher = w;
    w.on('all', (event, p) => this.onEvent(event, p));
    w.on('error', (err) => process.stderr.write(`trove: watching dataset manifests: ${(err as Error).message}\n`));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  }

  /**
   * A folder below every root that holds it deeper than that root is watched (a FAISS file's
   * folder never is). As with chokidar's own depth, a root watched `depth` folders down still
   * reports the folders one level further (a datasets/ folder appearing in the project root).
   */
  private tooDeep(p: string): boolean {
    if ([...this.files].some((f) => f.startsWith(p + path.sep))) return false;
    let held = false;
    for (const [root, depth] of this.roots) {
      if (p === root) return false;
      if (!p.startsWith(root + path.sep)) continue;
      held = true;
      if (p.slice(root.length + 1).split(path.sep).length <= depth + 1) return false;
    }
    return held;
  }

  /** Keeps the watched set in line with the registry's folders and FAISS files. */
  update(roots: readonly WatchRoot[], files: readonly string[]): void {
    const w = this.watcher;
    if (!w || this.closed) return;
    const wantedRoots = new Map(roots.map((r) => [r.path, r.depth]));
    const wantedFiles = new Set(files);
    const gone = [...this.roots.keys()].filter((r) => !wantedRoots.has(r)).concat([...this.files].filter((f) => !wantedFiles.has(f)));
    const added = [...wantedRoots.keys()].filter((r) => !this.roots.has(r)).concat([...wantedFiles].filter((f) => !this.files.has(f)));
    this.roots.clear();
    this.files.clear();
    for (const [r, depth] of wantedRoots) this.roots.set(r, depth);
    for (const f of wantedFiles) this.files.add(f);
    if (gone.length) w.unwatch(gone);
    if (added.length) w.add(added);
  }

  private onEvent(event: string, p: string): void {
    if (this.closed) return;
    const relevant =
      path.basename(p) === MANIFEST_FILE ||
      this.files.has(p) ||
      [...this.files].some((f) => f.startsWith(p + path.sep)) || // a FAISS index folder or its parent replaced
      ((event === 'addDir' || event === 'unlinkDir') && [...this.roots.keys()].some((r) => path.dirname(p) === r || path.dirname(path.dirname(p)) === r));
    if (!relevant) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closed) this.onChange();
    }, this.settings.debounceMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }
}
