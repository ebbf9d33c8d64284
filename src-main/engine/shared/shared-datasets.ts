// Registered datasets on a shared index (PostgreSQL): the same DatasetRegistry as SQLite's, over
// ports that are round trips through the storage interface. The added folders are the database's
// dataset_folders (a folder one host adds is looked in by every host; one a host cannot read is
// that host's Error, or simply holds nothing it can see), FAISS model checks are dataset_checks,
// and a folder dataset is a `dataset` collection of the database: watched, scanned and indexed by
// the hosts' SharedIndexers through the shared job queue (exactly once across hosts) into the
// dataset_fts keyword index and the shared vectors, and searched with the storage keyword and
// mode search. FAISS datasets stay files under each host's profile, loaded per host.
// Another host's change (NOTIFY) has the registry read the folders and look again.
import type { FusionMethod } from '../search/modes.js';
import type { QueryEmbedder } from '../embed/query-embedder.js';
import { servedDatasets } from '../datasets/datasets-api.js';
import { DatasetRegistry } from '../datasets/registry.js';
import type { DatasetCollections, DatasetFolderList, DatasetModels, FolderIndex } from '../datasets/ports.js';
import { StorageKeywordSearch } from '../search/storage-keyword.js';
import { StorageModeSearch } from '../search/storage-modes.js';
import type { ServedDatasets } from '../served-index.js';
import type { CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';

/** What a host's indexer gives the registry: its runs' progress, and following a collection just made. */
export interface DatasetIndexer {
  onProgress(listener: (e: { collection: string; phase: string }) => void): () => void;
  /** Watches (and scans) the dataset collections that are new to it, where this host watches. */
  followCollections(): Promise<void>;
}

export interface SharedDatasetsOptions {
  profileDir: string;
  fusion: FusionMethod;
  hnswGraphFrom?: number;
  projectRoot?: string;
  watch?: { usePolling: boolean; pollIntervalMs: number };
}

const KINDS = ['dataset'] as const;

export class SharedDatasets {
  readonly registry: DatasetRegistry;
  readonly api: ServedDatasets;
  private readonly keyword: StorageKeywordSearch;
  private readonly idle = new Set<(collection: string) => void>();
  private indexer: { off: () => void; follow: () => Promise<void> } | null = null;
  /** The registry has read the added folders once (it starts on the first question, as SQLite's). */
  private started = false;
  private closed = false;
  /** The follow-up of other hosts' changes under way; notices arriving meanwhile ask for one more. */
  private following: Promise<void> | null = null;
  private followAgain = false;
  /**
   * Folder datasets' document counts are round trips here, one per dataset: they are taken again only
   * after something that may move them — another host's change (NOTIFY), this host's indexing, a
   * dataset loaded, made Ready or dropped — not on every list and search.
   */
  private countsAsked = 0;
  private countsTaken = -1;

  constructor(
    private readonly storage: Storage,
    embedder: QueryEmbedder,
    opts: SharedDatasetsOptions,
  ) {
    this.keyword = new StorageKeywordSearch(storage, 'dataset_fts');
    const modes = new StorageModeSearch(storage, this.keyword, embedder, { fusion: opts.fusion });
    const models: DatasetModels = { manifest: embedder.manifest, resolve: (id) => embedder.embeddingModel(id), embedWithModel: (id, text, kind) => embedder.embedWithModel(id, text, kind) };
    const collections: DatasetCollections = {
      get: (name) => storage.collections.get(name, KINDS),
      byId: (id) => storage.collections.byId(id),
      list: () => storage.collections.list(KINDS),
      add: async (c) => {
        const row = await insertOnce(storage, c);
        this.keyword.changed();
        await this.indexer?.follow();
        return row;
      },
      remove: async (c) => {
        await storage.collections.remove(c.id);
        this.keyword.changed();
        await this.indexer?.follow();
      },
      modelChoice: async (id) => (await storage.vectors.collection(id)).modelChoice,
      setModelChoice: (id, model) => storage.vectors.setModelChoice(id, model),
    };
    const folderIndex: FolderIndex = {
      documentCount: (id) => storage.documents.indexedCount(id),
      hasVectors: async (id) => (await modes.spacesFor([id])).spaces.length > 0,
      keyword: (req) => this.keyword.search(req),
      modes: (req, filters, ids) => modes.run(req, filters, ids),
      async document(id, ref) {
        const doc = await storage.documents.byPath(id, ref);
        if (!doc || doc.status !== 'indexed') return undefined;
        const [text, chunks] = await Promise.all([storage.documents.content(doc.id), storage.chunks.forDocument(doc.id)]);
        return text === undefined ? undefined : { doc, text, chunks };
      },
    };
    this.registry = new DatasetRegistry({
      profileDir: opts.profileDir,
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
      ownsAllDatasets: false,
      watch: opts.watch ?? { usePolling: false, pollIntervalMs: 1000 },
      hnswGraphFrom: opts.hnswGraphFrom,
      projectRoot: opts.projectRoot,
    });
    this.api = servedDatasets(this.registry, models, () => this.sync());
    this.registry.onChange(() => this.countsAsked++);
  }

  /** This host indexes too (`trove serve --database`, the app): its runs make folder datasets Ready, and it follows the collections the registry makes. */
  attachIndexer(indexer: DatasetIndexer): void {
    this.indexer?.off();
    const off = indexer.onProgress((e) => {
      this.countsAsked++;
      if (e.phase !== 'idle') return;
      for (const l of this.idle) l(e.collection);
    });
    this.indexer = { off, follow: () => indexer.followCollections() };
  }

  /** Another host changed the index: counts are taken again, added folders read again, and folder datasets that host indexed may be Ready. */
  remoteChange(): void {
    this.keyword.changed();
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

  /** Follows the manifest folders (and FAISS files) until close, as the SQLite host does. */
  async startWatching(): Promise<void> {
    await this.sync();
    await this.registry.startWatching();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.indexer?.off();
    await this.following;
    await this.registry.close();
  }

  /** Before the registry answers: the added folders as the database has them now, and the folder datasets' documents counted if they may have moved. */
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
