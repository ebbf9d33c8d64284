// The dataset registry: every manifest under <profile>/datasets, the project root's datasets/ and the folders a person added,
// each with its state (Unloaded → Validating → Invalid | Loading → Ready | Error) and the reason.
// Looking again (refresh) is synchronous up to validation (over the added folders as last read),
// so a list is never empty because files are still being read; loading a FAISS index (read, check, probe the model) runs in the background,
// and a folder dataset is Ready once its folder has been indexed. A manifest whose text and files
// are unchanged keeps its loaded state; one bad manifest never stops the others. Nothing starts
// until a face first asks (a plain `trove search` never reads a manifest).
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { CollectionRow } from '../store/collections.js';
import type { DatasetInfo, DatasetState } from '../types/datasets.js';
import { findManifests, manifestPlaces, watchRoots, type FoundManifest, type ManifestPlaces } from './discovery.js';
import { FAISS_FILE, FaissDataset } from './faiss-dataset.js';
import { DATASET_COLLECTION_PREFIX, FolderDataset } from './folder-dataset.js';
import { dropUnwanted, indexedOnce, isDirectory, loadFolderDataset, wantedCollections } from './folder-loading.js';
import { readManifest, resolveDatasetPath, type DatasetManifest, type ManifestRead } from './manifest.js';
import { ManifestWatcher, type ManifestWatchSettings, type WatchRoot } from './manifest-watcher.js';
import type { DatasetCollections, DatasetFolderList, DatasetIndexing, DatasetModels, FolderIndex, ModelChecks } from './ports.js';

/** The registry's ports (ports.ts), wired by datasets-room.ts. */
export interface RegistryDeps {
  profileDir: string;
  /** The project root (the folder a host was started in): its datasets/ is searched like the profile's, as the spec's server does. */
  projectRoot?: string | null;
  folders: DatasetFolderList;
  checks: ModelChecks;
  collections: DatasetCollections;
  indexing: DatasetIndexing;
  models: DatasetModels;
  folderIndex: FolderIndex;
  /**
   * true: this host is the index's only one (SQLite), and drops every dataset collection no
   * manifest here wants; false (a shared database): another host's manifests may want one, so a
   * host drops only the collections it stopped wanting.
   */
  ownsAllDatasets: boolean;
  watch: Omit<ManifestWatchSettings, 'debounceMs'> & { debounceMs?: number };
  /** An IndexHNSWFlat with this many vectors is searched through its graph (default HNSW_GRAPH_FROM). */
  hnswGraphFrom?: number;
}

export interface Entry {
  file: string;
  folder: string | null;
  /** The manifest's text, its resolved files' sizes and times, and whether its id was free: any change reloads it. */
  fingerprint: string;
  info: DatasetInfo;
  manifest: DatasetManifest | null;
  dataset: FaissDataset | FolderDataset | null;
  /** Files the watcher follows besides the manifest (a FAISS index and its metadata). */
  files: string[];
  /** A file the manifest names that is not there (reported when loading: Error). */
  missing: string | null;
  /** Its load under way (a FAISS index read and checked, or a folder dataset's collection made). */
  loading?: Promise<void>;
}

interface Plan {
  read: ManifestRead;
  fingerprint: string;
  /** Set when the manifest is valid but its id is already claimed. */
  taken: string | null;
  index: string | null;
  metadata: string | null;
  files: string[];
  missing: string | null;
}

export class DatasetRegistry {
  private entries = new Map<string, Entry>();
  private started = false;
  private closed = false;
  private readonly listeners = new Set<(d: DatasetInfo) => void>();
  private readonly loads = new Set<Promise<void>>();
  private watcher: ManifestWatcher | null = null;
  private offProgress: (() => void) | null = null;
  /** While a refresh builds the new list, its changes wait here: a listener then sees them in list(). */
  private held: DatasetInfo[] | null = null;
  /** The collection names this host's manifests wanted at the last refresh. */
  private wanted = new Set<string>();
  /** Collections wanted by manifests in added folders (kept until dropped): on a shared database another host may serve them. */
  private inAddedFolders = new Set<string>();
  /** Collections of an added folder this host removed: dropped at the next refresh even on a shared database. */
  private removedFolders = new Set<string>();

  constructor(private readonly deps: RegistryDeps) {}

  profileFolder(): string {
    return path.join(this.deps.profileDir, 'datasets');
  }

  private places(added: readonly string[]): ManifestPlaces {
    return manifestPlaces(this.profileFolder(), this.deps.projectRoot ?? null, added);
  }

  private manifests(added: readonly string[]): FoundManifest[] {
    return findManifests(this.places(added));
  }

  /** Discovers and validates every manifest the first time anyone asks. */
  ensureStarted(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.offProgress = this.deps.indexing.onIdle((collection) => {
      if (collection.startsWith(DATASET_COLLECTION_PREFIX)) this.track(this.indexed());
    });
    this.refresh();
  }

  list(): DatasetInfo[] {
    this.ensureStarted();
    return [...this.entries.values()].map((e) => this.snapshot(e));
  }

  entry(id: string): Entry | undefined {
    this.ensureStarted();
    const all = [...this.entries.values()].filter((e) => e.info.id === id);
    return all.find((e) => e.info.state !== 'invalid') ?? all[0];
  }

  onChange(listener: (d: DatasetInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when no manifest is being validated or its files loaded. */
  async settled(): Promise<DatasetInfo[]> {
    this.ensureStarted();
    while (this.loads.size) await Promise.all([...this.loads]);
    return this.list();
  }

  folders(): string[] {
    return this.deps.folders.list();
  }

  async addFolder(dir: string): Promise<DatasetInfo[]> {
    const profile = realFolderOrSelf(this.profileFolder());
    if (realFolderOrSelf(path.resolve(dir)) === profile) throw new TroveError('CONFLICT', `${profile} is the profile's own datasets folder, which is always scanned`);
    const abs = realFolder(dir);
    if (abs === profile) throw new TroveError('CONFLICT', `${abs} is the profile's own datasets folder, which is always scanned`);
    await this.deps.folders.add(abs);
    this.ensureStarted();
    this.refresh();
    return [...this.entries.values()].filter((e) => e.folder === abs).map((e) => this.snapshot(e));
  }

  async removeFolder(dir: string): Promise<void> {
    const abs = path.resolve(dir);
    await this.deps.folders.reload();
    const known = this.deps.folders.list();
    const match = known.find((f) => f === abs || f === realFolderOrSelf(abs));
    if (!match) throw new TroveError('NOT_FOUND', `${abs} is not an added dataset folder${known.length ? ` (added: ${known.join(', ')})` : ' (none are added)'}`);
    // its folder datasets' collections go too, even where this registry had not loaded them yet (a one-shot command on a shared database)
    const leaving = this.manifests([match]).filter((f) => f.folder === match).map((f) => readManifest(f.file));
    await this.deps.folders.remove(match);
    this.ensureStarted();
    for (const name of wantedCollections(leaving.map((r) => (r.ok ? r.manifest : null)))) {
      this.wanted.add(name);
      this.removedFolders.add(name);
    }
    this.refresh();
  }

  /** Reads the added folders again (another host may have added or removed one), and looks again when they changed; the first call starts the registry. */
  async sync(): Promise<void> {
    const before = this.deps.folders.list().join('\0');
    await this.deps.folders.reload();
    if (!this.started) return this.ensureStarted();
    if (this.deps.folders.list().join('\0') !== before) this.refresh();
  }

  /** Counts the folder datasets' documents again, for list(). */
  async countDocuments(): Promise<void> {
    await Promise.all([...this.entries.values()].flatMap((e) => (e.dataset instanceof FolderDataset ? [e.dataset.refreshSize()] : [])));
  }

  /** Follows the manifest folders (and FAISS files) until close: changes reload without a restart. */
  async startWatching(): Promise<void> {
    this.ensureStarted();
    if (this.watcher || this.closed) return;
    try {
      fs.mkdirSync(this.profileFolder(), { recursive: true }); // where a person drops datasets in
    } catch (err) {
      process.stderr.write(`trove: cannot create ${this.profileFolder()} (${(err as NodeJS.ErrnoException).code ?? 'error'}); datasets there are not watched\n`);
    }
    const w = new ManifestWatcher({ debounceMs: 150, ...this.deps.watch }, () => this.refresh());
    this.watcher = w;
    await w.start(this.watchedRoots(), this.watchedFiles());
    this.refresh(); // anything that changed while the watcher started
  }

  async stopWatching(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.offProgress?.();
    this.listeners.clear();
    await this.stopWatching();
    await Promise.all([...this.loads]).catch(() => undefined);
  }

  /** Looks at every manifest folder again: validates what changed, loads what became valid, drops what went away. */
  refresh(): void {
    if (!this.started || this.closed) return;
    const found = this.manifests(this.deps.folders.list());
    const claims = new Map<string, string>(); // id → the manifest holding it
    const next = new Map<string, Entry>();
    const toLoad: Entry[] = [];
    const held: DatasetInfo[] = [];
    this.held = held;
    try {
      for (const f of found) {
        const plan = this.plan(f, claims);
        const prev = this.entries.get(f.file);
        if (prev && prev.fingerprint === plan.fingerprint) {
          next.set(f.file, prev);
          continue;
        }
        const entry = this.validate(f, plan);
        next.set(f.file, entry);
        if (entry.info.state === 'loading') toLoad.push(entry);
      }
    } finally {
      this.held = null;
    }
    const before = this.entries;
    this.entries = next;
    for (const info of held) this.emit(info);
    const folders = new Set(this.deps.folders.list());
    for (const [file, e] of before) {
      if (next.has(file)) continue;
      const reason = e.folder && !folders.has(e.folder) ? `its folder ${e.folder} is no longer a dataset folder` : 'the manifest is gone';
      this.emit({ ...this.snapshot(e), state: 'unloaded', reason, updatedAt: new Date().toISOString() });
    }
    this.dropUnwantedCollections();
    for (const e of toLoad) this.startLoad(e);
    this.watcher?.update(this.watchedRoots(), this.watchedFiles());
  }

  /** What a manifest says and where its files are, before anything is loaded. */
  private plan(f: FoundManifest, claims: Map<string, string>): Plan {
    const read = readManifest(f.file);
    let taken: string | null = null;
    let index: string | null = null;
    let metadata: string | null = null;
    let missing: string | null = null;
    const stamps: string[] = [];
    if (read.ok) {
      const m = read.manifest;
      const holder = claims.get(m.id);
      if (holder) taken = holder;
      else claims.set(m.id, f.file);
      const idx = resolveDatasetPath(m.index, f.file);
      index = idx.path ?? idx.tried[0]!;
      if (!idx.path) missing = `the index "${m.index}" is not there (looked for ${idx.tried.join(' and ')})`;
      if (m.metadata && m.kind === 'faiss') {
        const md = resolveDatasetPath(m.metadata, f.file);
        metadata = md.path ?? md.tried[0]!;
        if (!md.path) missing ??= `the metadata file "${m.metadata}" is not there (looked for ${md.tried.join(' and ')})`;
      }
      if (m.kind === 'faiss') {
        const faissFile = isDirectory(index) ? path.join(index, FAISS_FILE) : index;
        for (const p of [faissFile, metadata!]) stamps.push(stamp(p));
      } else stamps.push(`${index}:${isDirectory(index)}`); // its files are the job runner's: only whether the folder is there
    }
    const files = read.ok && read.manifest.kind === 'faiss' ? [isDirectory(index!) ? path.join(index!, FAISS_FILE) : index!, metadata!] : [];
    return { read, taken, index, metadata, files, missing, fingerprint: [read.raw ?? (read.ok ? '' : read.reason), taken ?? '', ...stamps].join('\u0000') };
  }

  /** A new or changed manifest: Unloaded → Validating → Invalid, or → Loading (files next). */
  private validate(f: FoundManifest, plan: Plan): Entry {
    const { read } = plan;
    const now = new Date().toISOString();
    const info: DatasetInfo = {
      ...read.label,
      state: 'unloaded',
      reason: null,
      manifestPath: f.file,
      kind: null,
      model: null,
      documents: 0,
      indexType: null,
      updatedAt: now,
      indexPath: null,
      metadataPath: null,
      dims: null,
      scoring: null,
      modelInferred: false,
      folder: f.folder,
      warnings: [],
    };
    const entry: Entry = { file: f.file, folder: f.folder, fingerprint: plan.fingerprint, info, manifest: read.ok ? read.manifest : null, dataset: null, files: plan.files, missing: plan.missing };
    this.emit(this.snapshot(entry));
    this.transition(entry, 'validating', null);
    if (!read.ok) {
      this.transition(entry, 'invalid', read.reason);
      return entry;
    }
    if (plan.taken) {
      entry.manifest = null;
      this.transition(entry, 'invalid', `id "${read.manifest.id}" is already used by ${plan.taken}; dataset ids must be unique`);
      return entry;
    }
    const m = read.manifest;
    Object.assign(entry.info, { kind: m.kind, model: m.model ?? null, indexPath: plan.index, metadataPath: plan.metadata });
    this.transition(entry, 'loading', null);
    return entry;
  }

  private startLoad(entry: Entry): void {
    const p: Promise<void> = this.load(entry).finally(() => {
      this.loads.delete(p);
      if (entry.loading === p) entry.loading = undefined;
    });
    this.loads.add(p);
    entry.loading = p;
  }

  private async load(entry: Entry): Promise<void> {
    const m = entry.manifest!;
    try {
      if (entry.missing) throw new TroveError('UNAVAILABLE', entry.missing);
      if (m.kind === 'folder') await this.loadFolder(entry, m);
      else {
        const ds = await FaissDataset.load({ id: m.id, model: m.model ?? null, indexPath: entry.info.indexPath!, metadataPath: entry.info.metadataPath!, hnswGraphFrom: this.deps.hnswGraphFrom }, this.deps.models, this.deps.checks);
        if (!this.current(entry)) return;
        entry.dataset = ds;
        Object.assign(entry.info, { model: ds.model, modelInferred: ds.modelInferred, indexType: ds.indexType, dims: ds.dims, scoring: ds.scoring, warnings: ds.warnings, documents: ds.size });
        this.transition(entry, 'ready', null);
      }
    } catch (err) {
      if (!this.current(entry)) return;
      if (!(err instanceof TroveError)) process.stderr.write(`trove: loading dataset "${m.id}" failed: ${(err as Error).stack ?? String(err)}\n`);
      // a manifest missing what loading needed (no model, and none could be inferred) is Invalid; a file that does not fit is an Error
      const invalid = err instanceof TroveError && err.details?.state === 'invalid';
      this.transition(entry, invalid ? 'invalid' : 'error', err instanceof Error ? err.message : String(err));
    }
  }

  /** Its collection (created, or re-rooted when the manifest moved it), the model it embeds with; Ready once indexed. */
  private async loadFolder(entry: Entry, m: DatasetManifest): Promise<void> {
    const { dataset, model } = await loadFolderDataset(this.deps, m, entry.info.indexPath!);
    if (!this.current(entry)) return;
    entry.dataset = dataset;
    entry.info.model = model;
    if (dataset.collection.lastIndexedAt !== null) this.transition(entry, 'ready', null);
  }

  /** A folder dataset's indexing finished (here, or on another host): those waiting for their first index become Ready. */
  async indexed(): Promise<void> {
    const waiting = [...this.entries.values()].filter((e) => e.info.state === 'loading' && e.dataset instanceof FolderDataset);
    await Promise.all(
      waiting.map(async (e) => {
        const folder = e.dataset as FolderDataset;
        const done = await indexedOnce(this.deps.collections, folder.collection);
        await folder.refreshSize();
        if (done && e.info.state === 'loading' && this.current(e)) this.transition(e, 'ready', null);
      }),
    );
  }

  /** The collections of folder datasets, once those being loaded have theirs (an index run right after a dataset is added must find it). */
  async datasetCollections(): Promise<CollectionRow[]> {
    this.ensureStarted();
    await Promise.all([...this.entries.values()].flatMap((e) => (e.manifest?.kind === 'folder' && e.loading ? [e.loading] : [])));
    return [...this.entries.values()].flatMap((e) => (e.dataset instanceof FolderDataset ? [e.dataset.collection] : []));
  }

  /** Drops collections no valid folder manifest wants (removed, invalid, renamed ids, or left from another run; on a shared database only those this host stopped wanting). */
  private dropUnwantedCollections(): void {
    const entries = [...this.entries.values()];
    const wanted = wantedCollections(entries.map((e) => e.manifest));
    for (const name of wantedCollections(entries.filter((e) => e.folder !== null).map((e) => e.manifest))) this.inAddedFolders.add(name);
    // On a shared database an added folder's dataset this host merely stopped seeing (the folder
    // unreadable here for a moment, an unmounted share) is still the other hosts': dropping it would
    // delete their documents and vectors. Only what this host's own profile stopped wanting, or a
    // folder removed from the list here, is dropped.
    const mayDrop = (name: string) => this.deps.ownsAllDatasets || !this.inAddedFolders.has(name) || this.removedFolders.has(name);
    const stopped = new Set([...this.wanted].filter((n) => !wanted.has(n) && mayDrop(n)));
    for (const name of stopped) {
      this.inAddedFolders.delete(name);
      this.removedFolders.delete(name);
    }
    this.wanted = new Set([...wanted, ...[...this.wanted].filter((n) => !wanted.has(n) && !stopped.has(n))]);
    if (!this.deps.ownsAllDatasets && !stopped.size) return;
    // asked again when the list answers: a manifest valid again meanwhile keeps its collection
    this.track(dropUnwanted(this.deps.collections, (name) => !this.wanted.has(name) && (this.deps.ownsAllDatasets || stopped.has(name))));
  }

  /** Background work (the storage's round trips) is waited for by settled(); a failure is logged, never thrown at a caller that did not ask. */
  private track(work: Promise<void>): void {
    const p: Promise<void> = work
      .catch((err: unknown) => {
        if (!this.closed) process.stderr.write(`trove: datasets: ${(err as Error).message}\n`);
      })
      .finally(() => this.loads.delete(p));
    this.loads.add(p);
  }

  private current(entry: Entry): boolean {
    return !this.closed && this.entries.get(entry.file) === entry;
  }

  private transition(entry: Entry, state: DatasetState, reason: string | null): void {
    entry.info = { ...entry.info, state, reason, updatedAt: new Date().toISOString() };
    this.emit(this.snapshot(entry));
  }

  private snapshot(e: Entry): DatasetInfo {
    const documents = e.dataset instanceof FolderDataset ? e.dataset.size : e.info.documents;
    return { ...e.info, documents, warnings: [...e.info.warnings] };
  }

  private emit(info: DatasetInfo): void {
    if (this.held) {
      this.held.push(info);
      return;
    }
    for (const l of this.listeners) {
      try {
        l(info);
      } catch (err) {
        process.stderr.write(`trove: dataset listener failed: ${(err as Error).message}\n`);
      }
    }
  }

  private watchedRoots(): WatchRoot[] {
    return watchRoots(this.places(this.deps.folders.list()));
  }

  private watchedFiles(): string[] {
    return [...new Set([...this.entries.values()].flatMap((e) => e.files))];
  }
}

function stamp(p: string): string {
  try {
    const st = fs.statSync(p);
    return `${p}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${p}:missing`;
  }
}

function realFolder(dir: string): string {
  const abs = path.resolve(dir);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (err) {
    throw new TroveError('IO', `folder ${abs} does not exist or cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!st.isDirectory()) throw new TroveError('IO', `${abs} is a file, not a folder`);
  return fs.realpathSync(abs);
}

function realFolderOrSelf(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}
