// The dataset registry: every manifest under <profile>/datasets and the folders a person added,
// each with its state (Unloaded → Validating → Invalid | Loading → Ready | Error) and the reason.
// Looking again (refresh) is synchronous up to validation, so a list is never empty because files
// are still being read; loading a FAISS index (read, check, probe the model) runs in the background,
// and a folder dataset is Ready once its folder has been indexed. A manifest whose text and files
// are unchanged keeps its loaded state; one bad manifest never stops the others. Nothing starts
// until a face first asks (a plain `trove search` never reads a manifest).
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { EmbeddingService } from '../embed/embeddings.js';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../ingest/defaults.js';
import type { IndexingService } from '../jobs/indexing-service.js';
import type { ChunkStore } from '../store/chunks.js';
import type { CollectionRow, CollectionStore } from '../store/collections.js';
import type { Db } from '../store/database.js';
import type { DatasetFolderStore } from '../store/dataset-folders.js';
import type { DatasetInfo, DatasetState } from '../types/datasets.js';
import { findManifests, type FoundManifest } from './discovery.js';
import { embeddingModel, FAISS_FILE, FaissDataset, type ModelChecks } from './faiss-dataset.js';
import { DATASET_COLLECTION_PREFIX, datasetCollectionName, FolderDataset, type FolderSearchDeps } from './folder-dataset.js';
import { readManifest, resolveDatasetPath, type DatasetManifest, type ManifestRead } from './manifest.js';
import { ManifestWatcher, type ManifestWatchSettings } from './manifest-watcher.js';

export interface RegistryDeps {
  db: Db;
  profileDir: string;
  collections: CollectionStore;
  /** The chunk store writing dataset_fts (dropping a dataset's collection clears its rows). */
  chunks: ChunkStore;
  folders: DatasetFolderStore;
  checks: ModelChecks;
  indexing: IndexingService;
  embeddings: EmbeddingService;
  search: FolderSearchDeps;
  /** A dataset collection came or went: the engine bumps its cache generation. */
  changed(): void;
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

  constructor(private readonly deps: RegistryDeps) {}

  profileFolder(): string {
    return path.join(this.deps.profileDir, 'datasets');
  }

  /** Discovers and validates every manifest the first time anyone asks. */
  ensureStarted(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.offProgress = this.deps.indexing.onProgress((e) => {
      if (e.phase === 'idle' && e.collection.startsWith(DATASET_COLLECTION_PREFIX)) this.indexed();
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

  addFolder(dir: string): DatasetInfo[] {
    const profile = realFolderOrSelf(this.profileFolder());
    if (realFolderOrSelf(path.resolve(dir)) === profile) throw new TroveError('CONFLICT', `${profile} is the profile's own datasets folder, which is always scanned`);
    const abs = realFolder(dir);
    if (abs === profile) throw new TroveError('CONFLICT', `${abs} is the profile's own datasets folder, which is always scanned`);
    this.deps.folders.add(abs);
    this.ensureStarted();
    this.refresh();
    return [...this.entries.values()].filter((e) => e.folder === abs).map((e) => this.snapshot(e));
  }

  removeFolder(dir: string): void {
    const abs = path.resolve(dir);
    const known = this.deps.folders.list();
    const match = known.find((f) => f === abs || f === realFolderOrSelf(abs));
    if (!match) throw new TroveError('NOT_FOUND', `${abs} is not an added dataset folder${known.length ? ` (added: ${known.join(', ')})` : ' (none are added)'}`);
    this.deps.folders.remove(match);
    this.ensureStarted();
    this.refresh();
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
    const found = findManifests(this.profileFolder(), this.deps.folders.list());
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
    const p: Promise<void> = this.load(entry).finally(() => this.loads.delete(p));
    this.loads.add(p);
  }

  private async load(entry: Entry): Promise<void> {
    const m = entry.manifest!;
    try {
      if (entry.missing) throw new TroveError('UNAVAILABLE', entry.missing);
      if (m.kind === 'folder') this.loadFolder(entry, m);
      else {
        const ds = await FaissDataset.load({ id: m.id, model: m.model!, indexPath: entry.info.indexPath!, metadataPath: entry.info.metadataPath!, hnswGraphFrom: this.deps.hnswGraphFrom }, this.deps.embeddings, this.deps.checks);
        if (!this.current(entry)) return;
        entry.dataset = ds;
        Object.assign(entry.info, { model: ds.model, indexType: ds.indexType, dims: ds.dims, scoring: ds.scoring, warnings: ds.warnings, documents: ds.size });
        this.transition(entry, 'ready', null);
      }
    } catch (err) {
      if (!this.current(entry)) return;
      if (!(err instanceof TroveError)) process.stderr.write(`trove: loading dataset "${m.id}" failed: ${(err as Error).stack ?? String(err)}\n`);
      this.transition(entry, 'error', err instanceof Error ? err.message : String(err));
    }
  }

  /** Its collection (created, or re-rooted when the manifest moved it), the model it embeds with; Ready once indexed. */
  private loadFolder(entry: Entry, m: DatasetManifest): void {
    const root = entry.info.indexPath!;
    if (!isDirectory(root)) throw new TroveError('IO', `the documents folder ${root} does not exist or is not a folder`);
    try {
      fs.readdirSync(root);
    } catch (err) {
      throw new TroveError('IO', `the documents folder ${root} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const model = m.model ? embeddingModel(this.deps.embeddings.manifest, m.model).id : null;
    const real = fs.realpathSync(root);
    const name = datasetCollectionName(m.id);
    let row = this.deps.collections.get(name, ['dataset']);
    if (row && row.root !== real) {
      this.dropCollection(row);
      row = undefined;
    }
    if (!row) {
      row = this.deps.collections.insert({
        name,
        kind: 'dataset',
        root: real,
        include: [...DEFAULT_INCLUDE],
        exclude: [...DEFAULT_EXCLUDE, MANIFEST_GLOB],
        context: m.description,
      });
      this.deps.changed();
      this.deps.indexing.collectionAdded(row); // watched (and scanned) when a host is watching
    }
    // the embedding stage reports a model that is not here yet; keyword search works meanwhile
    if ((this.deps.embeddings.vectors.collection(row.id).modelChoice ?? null) !== model) this.deps.embeddings.vectors.setModelChoice(row.id, model);
    if (!this.current(entry)) return;
    entry.dataset = new FolderDataset(m.id, row, this.deps.search);
    entry.info.model = model;
    if (row.lastIndexedAt !== null) this.transition(entry, 'ready', null);
  }

  /** A folder dataset's indexing finished: those waiting for their first index become Ready. */
  indexed(): void {
    for (const e of this.entries.values()) {
      if (e.info.state !== 'loading' || !(e.dataset instanceof FolderDataset)) continue;
      const row = this.deps.collections.byId(e.dataset.collection.id);
      if (row?.lastIndexedAt) this.transition(e, 'ready', null);
    }
  }

  /** The collections of folder datasets that are loading or loaded. */
  datasetCollections(): CollectionRow[] {
    this.ensureStarted();
    return [...this.entries.values()].flatMap((e) => (e.dataset instanceof FolderDataset ? [e.dataset.collection] : []));
  }

  /** Drops collections no valid folder manifest wants (removed, invalid, renamed ids, or left from another run). */
  private dropUnwantedCollections(): void {
    const wanted = new Set<string>();
    for (const e of this.entries.values()) if (e.manifest?.kind === 'folder') wanted.add(datasetCollectionName(e.manifest.id));
    for (const c of this.deps.collections.list(['dataset'])) if (!wanted.has(c.name)) this.dropCollection(c);
  }

  private dropCollection(c: CollectionRow): void {
    this.deps.indexing.collectionRemoved(c.id);
    this.deps.db.transaction(() => {
      this.deps.chunks.deleteForCollection(c.id);
      this.deps.collections.delete(c.id);
    })();
    this.deps.changed();
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

  private watchedRoots(): string[] {
    return [this.profileFolder(), ...this.deps.folders.list()];
  }

  private watchedFiles(): string[] {
    return [...new Set([...this.entries.values()].flatMap((e) => e.files))];
  }
}

/** A folder dataset never indexes its own manifest (when its documents folder holds it). */
const MANIFEST_GLOB = 'manifest.json';

function stamp(p: string): string {
  try {
    const st = fs.statSync(p);
    return `${p}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${p}:missing`;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
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
