// Hot reload: while a host runs, the manifest folders are watched (shallowly: manifests sit at most
// two folders down) together with every FAISS dataset's own files, and any change to a manifest or
// one of those files asks the registry to look again, once things are quiet for a moment. The
// folders of documents inside folder datasets are the job runner's business (watch/live-folders.ts).
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { MANIFEST_FILE } from './manifest.js';

export interface ManifestWatchSettings {
  usePolling: boolean;
  pollIntervalMs: number;
  /** Quiet time before a burst of events becomes one reload. */
  debounceMs: number;
}

export class ManifestWatcher {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly roots = new Set<string>();
  private readonly files = new Set<string>();
  private closed = false;

  constructor(
    private readonly settings: ManifestWatchSettings,
    private readonly onChange: () => void,
  ) {}

  /** Starts watching these folders and files; resolves when events are live. */
  async start(roots: readonly string[], files: readonly string[]): Promise<void> {
    for (const r of roots) this.roots.add(r);
    for (const f of files) this.files.add(f);
    const w = chokidar.watch([...this.roots, ...this.files], {
      ignoreInitial: true,
      depth: 2, // <dir>/manifest.json, <dir>/<id>/manifest.json, <dir>/datasets/<id>/manifest.json
      usePolling: this.settings.usePolling,
      interval: this.settings.pollIntervalMs,
      atomic: true,
      ignorePermissionErrors: true,
      ignored: (p: string) => /[\\/](node_modules|\.git)([\\/]|$)/.test(p),
    });
    this.watcher = w;
    w.on('all', (event, p) => this.onEvent(event, p));
    w.on('error', (err) => process.stderr.write(`trove: watching dataset manifests: ${(err as Error).message}\n`));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  }

  /** Keeps the watched set in line with the registry's folders and FAISS files. */
  update(roots: readonly string[], files: readonly string[]): void {
    const w = this.watcher;
    if (!w || this.closed) return;
    const wantedRoots = new Set(roots);
    const wantedFiles = new Set(files);
    const gone = [...this.roots].filter((r) => !wantedRoots.has(r)).concat([...this.files].filter((f) => !wantedFiles.has(f)));
    const added = [...wantedRoots].filter((r) => !this.roots.has(r)).concat([...wantedFiles].filter((f) => !this.files.has(f)));
    this.roots.clear();
    this.files.clear();
    for (const r of wantedRoots) this.roots.add(r);
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
      ((event === 'addDir' || event === 'unlinkDir') && [...this.roots].some((r) => path.dirname(p) === r || path.dirname(path.dirname(p)) === r));
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
