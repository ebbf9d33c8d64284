// Registered datasets in an engine: the DatasetRegistry over ports wired to the storage interface
// and the engine's services. The added folders are the index's dataset_folders (on a shared
// database a folder one host adds is looked in by every host; one a host cannot read is that host's
// Error, or simply holds nothing it can see), FAISS model checks are dataset_checks, and a folder
// dataset is a `dataset` collection: watched, scanned and indexed by the engine's indexing service
// into the dataset_fts keyword index and the shared vectors, and searched with the engine's keyword
// and mode search. FAISS datasets stay files under the profile, loaded by each host.
import type { EmbeddingService } from '../embed/embeddings.js';
import type { IndexingService } from '../indexing/indexing-service.js';
import { KeywordSearch } from '../search/keyword-search.js';
import { ModeSearch, type FusionMethod } from '../search/modes.js';
import type { PageAnchors } from '../search/page-anchors.js';
import type { CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';
import type { DatasetsApi } from '../types/datasets.js';
import { datasetsApi } from './datasets-api.js';
import type { DatasetCollections, DatasetFolderList, DatasetModels, FolderIndex } from './ports.js';
import { DatasetRegistry } from './registry.js';

export interface DatasetsRoomDeps {
  storage: Storage;
  profileDir: string;
  embeddings: EmbeddingService;
  indexing: IndexingService;
  /** The documents' anchors: a folder dataset's hits are read the same way. */
  anchors: PageAnchors;
  fusion: FusionMethod;
  /** The engine's index generation (caches key on it). */
  generation: () => number;
  /** A dataset collection was made or dropped here: the engine's caches and the embedding stage hear it. */
  changed: () => void;
  watch: { usePolling: boolean; pollIntervalMs: number };
  hnswGraphFrom?: number;
  /** The project root, whose datasets/ is searched for manifests like the profile's (the CLI's working directory). */
  projectRoot?: string;
}

const KINDS = ['dataset'] as const;

export class DatasetsRoom {
  readonly registry: DatasetRegistry;
  readonly api: DatasetsApi;
  private readonly offIndexing: () => void;
  private readonly idle = new Set<(collection: string) => void>();
  /** The registry has read the added folders once (it starts on the first question). */
  private started = false;
  private closed = false;
  /** The follow-up of other hosts' changes under way; notices arriving meanwhile ask for one more. */
  private following: Promise<void> | null = null;
  private followAgain = false;
  /**
   * Folder datasets' document counts are one query per dataset: they are taken again only after
   * something that may move them — another host's change, this engine's indexing, a dataset loaded,
   * made Ready or dropped — not on every list and search.
   */
  private countsAsked = 0;
  private countsTaken = -1;

  constructor(deps: DatasetsRoomDeps) {
    const { storage, indexing } = deps;
    const keyword = new KeywordSearch(storage, deps.anchors, 'dataset_fts');
    const modes = new ModeSearch(storage, keyword, deps.embeddings, { fusion: deps.fusion });
    const models: DatasetModels = {
      manifest: deps.embeddings.models.manifest,
      resolve: (id) => deps.embeddings.models.resolve(id),
      embedWithModel: (id, text, kind) => deps.embeddings.models.embedWithModel(id, text, kind),
    };
    const collections: DatasetCollections = {
      get: (name) => storage.collections.get(name, KINDS),
      byId: (id) => storage.collections.byId(id),
      list: () => storage.collections.list(KINDS),
      add: async (c) => {
        const row = await insertOnce(storage, c);
        deps.changed();
        await indexing.followCollections(); // watched and scanned where this host watches
        return row;
      },
      remove: async (c) => {
        await indexing.removeCollection(c.id);
        deps.changed();
        await indexing.followCollections();
      },
      modelChoice: async (id) => (await storage.vectors.collection(id)).modelChoice,
      setModelChoice: (id, model) => storage.vectors.setModelChoice(id, model),
    };
    const named = async (id: number) => ({ id, name: (await storage.collections.byId(id))?.name ?? String(id) });
    const folderIndex: FolderIndex = {
      documentCount: (id) => storage.documents.indexedCount(id),
      hasVectors: async (id) => (await deps.embeddings.activeSpace(id)) !== null,
      keyword: (req) => keyword.search(req, deps.generation()),
      modes: async (req, filters, ids) => modes.run(req, filters, await Promise.all(ids.map(named)), deps.generation()),
      async document(id, ref) {
        const doc = await storage.documents.byPath(id, ref);
        if (!doc || doc.status !== 'indexed') return undefined;
        const [text, chunks] = await Promise.all([storage.documents.content(doc.id), storage.chunks.forDocument(doc.id)]);
        return text === undefined ? undefined : { doc, text, chunks };
      },
    };
    this.registry = new DatasetRegistry({
      profileDir: deps.profileDir,
      folders: new StoredFolderList(storage),
      checks: { get: (key) => storage.datasets.check(key), put: (key, v) => storage.datasets.putCheck(key, v) },
      collections,
      indexing: {
        onIdle: (listener) => {
          this.idle.add(listener);
          return () => this.idle.delete(listener);
        },
      },
      models,
      folderIndex,
      // one host per SQLite file: it owns every dataset collection; on a shared database another host's manifests may want one
      ownsAllDatasets: !storage.changes.shared,
      watch: deps.watch,
      hnswGraphFrom: deps.hnswGraphFrom,
      projectRoot: deps.projectRoot,
    });
    this.api = datasetsApi(this.registry, models, () => this.sync());
    this.registry.onChange(() => this.countsAsked++);
    this.offIndexing = indexing.onProgress((e) => {
      this.countsAsked++;
      if (e.phase !== 'idle') return;
      for (const l of this.idle) l(e.collection);
    });
  }

  /** The collections of folder datasets (read after the registry has looked at its folders). */
  async datasetCollections(): Promise<CollectionRow[]> {
    await this.sync();
    return this.registry.datasetCollections();
  }

  /** An index run finished here: folder datasets waiting for their first index become Ready. */
  indexed(): Promise<void> {
    this.countsAsked++;
    return this.registry.indexed();
  }

  /** Another host changed the index: counts are taken again, added folders read again, and folder datasets that host indexed may be Ready. */
  remoteChange(): void {
    this.countsAsked++;
    if (!this.started || this.closed) return;
    // a burst of notices (another host indexing) is one run plus at most one more, never one each
    if (this.following) {
      this.followAgain = true;
      return;
    }
    this.following = (async () => {
      do {
        this.followAgain = false;
        await this.registry.sync();
        await this.registry.indexed();
      } while (this.followAgain && !this.closed);
    })()
      .catch((err: unknown) => {
        if (!this.closed) process.stderr.write(`trove: datasets: ${(err as Error).message}\n`);
      })
      .finally(() => (this.following = null));
  }

  /** Follows the manifest folders (and FAISS files) until stopWatching: changes reload without a restart. */
  async startWatching(): Promise<void> {
    await this.sync();
    await this.registry.startWatching();
  }

  stopWatching(): Promise<void> {
    return this.registry.stopWatching();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.offIndexing();
    await this.following;
    await this.registry.close();
  }

  /** Before the registry answers: the added folders as the index has them now, and the folder datasets' documents counted if they may have moved. */
  private async sync(): Promise<void> {
    this.started = true;
    await this.registry.sync();
    if (this.countsTaken === this.countsAsked) return;
    const asked = this.countsAsked; // a change while counting leaves the counts to take again next time
    await this.registry.countDocuments();
    this.countsTaken = asked;
  }
}

/** dataset_folders as last read (list() answers in hand; reload() reads the table). */
class StoredFolderList implements DatasetFolderList {
  private folders: string[] = [];

  constructor(private readonly storage: Storage) {}

  list(): string[] {
    return this.folders;
  }

  async reload(): Promise<void> {
    this.folders = await this.storage.datasets.folders();
  }

  async add(folder: string): Promise<boolean> {
    const added = await this.storage.datasets.addFolder(folder);
    await this.reload();
    return added;
  }

  async remove(folder: string): Promise<boolean> {
    const removed = await this.storage.datasets.removeFolder(folder);
    await this.reload();
    return removed;
  }
}

/** The dataset's collection, made once: two hosts loading the same manifest at once both end with the one row. */
async function insertOnce(storage: Storage, c: { name: string; root: string; include: string[]; exclude: string[]; context: string }): Promise<CollectionRow> {
  try {
    return await storage.collections.insert({ ...c, kind: 'dataset' });
  } catch (err) {
    const row = await storage.collections.get(c.name, KINDS);
    if (row) return row; // another host made it first (unique name)
    throw err;
  }
}
