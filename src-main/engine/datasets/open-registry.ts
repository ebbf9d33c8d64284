// Wires the dataset registry into an engine's SQLite stores (the registry's ports, ports.ts, each
// answering in hand): folder datasets get their own keyword index (dataset_fts) with its own
// lexical and mode search, while the vectors and the embedding stage are the documents' own.
// Kept apart from the Engine facade so it stays a list of rooms.
import type { EmbeddingService } from '../embed/embeddings.js';
import type { IndexingService } from '../jobs/indexing-service.js';
import { LexicalSearch } from '../search/lexical.js';
import { ModeSearch, type FusionMethod } from '../search/modes.js';
import type { ChunkStore } from '../store/chunks.js';
import type { CollectionStore } from '../store/collections.js';
import type { Db } from '../store/database.js';
import { DatasetCheckStore, DatasetFolderStore } from '../store/dataset-folders.js';
import type { DocumentStore } from '../store/documents.js';
import type { DatasetCollections, FolderIndex } from './ports.js';
import { DatasetRegistry } from './registry.js';

export interface RegistryWiring {
  db: Db;
  profileDir: string;
  collections: CollectionStore;
  documents: DocumentStore;
  /** The documents' chunk store; the registry writes through its dataset_fts view. */
  chunks: ChunkStore;
  /** The documents' lexical search, whose anchors the dataset index shares. */
  lexical: LexicalSearch;
  indexing: IndexingService;
  embeddings: EmbeddingService;
  fusion: FusionMethod;
  generation: () => number;
  changed: () => void;
  watch: { usePolling: boolean; pollIntervalMs: number };
  hnswGraphFrom?: number;
  projectRoot?: string;
}

export function openDatasetRegistry(w: RegistryWiring): DatasetRegistry {
  const lexical = new LexicalSearch(w.db, w.lexical.anchors, 'dataset_fts');
  const chunks = w.chunks.forIndex('dataset_fts');
  const modes = new ModeSearch(w.db, w.embeddings, lexical, w.collections, { fusion: w.fusion });
  const folders = new DatasetFolderStore(w.db);
  const kinds = ['dataset'] as const;
  const collections: DatasetCollections = {
    get: (name) => w.collections.get(name, kinds),
    byId: (id) => w.collections.byId(id),
    list: () => w.collections.list(kinds),
    add(c) {
      const row = w.collections.insert({ ...c, kind: 'dataset' });
      w.changed();
      w.indexing.collectionAdded(row); // watched (and scanned) when a host is watching
      return row;
    },
    remove(c) {
      w.indexing.collectionRemoved(c.id);
      w.db.transaction(() => {
        chunks.deleteForCollection(c.id);
        w.collections.delete(c.id);
      })();
      w.changed();
    },
    modelChoice: (id) => w.embeddings.vectors.collection(id).modelChoice,
    setModelChoice: (id, model) => w.embeddings.vectors.setModelChoice(id, model),
  };
  const folderIndex: FolderIndex = {
    documentCount: (id) => w.documents.indexedCount(id),
    hasVectors: (id) => modes.spacesFor([id]).spaces.length > 0,
    keyword: (req) => lexical.search(req, w.generation()),
    modes: (req, filters, ids) => modes.run(req, filters, ids, w.generation()),
    document(id, ref) {
      const doc = w.documents.byPath(id, ref);
      const text = doc && doc.status === 'indexed' ? w.documents.content(doc.id) : undefined;
      return doc && text !== undefined ? { doc, text, chunks: chunks.forDocument(doc.id) } : undefined;
    },
  };
  return new DatasetRegistry({
    profileDir: w.profileDir,
    folders: { list: () => folders.list(), reload: () => undefined, add: (f) => folders.add(f), remove: (f) => folders.remove(f) },
    checks: new DatasetCheckStore(w.db),
    collections,
    indexing: { onIdle: (listener) => w.indexing.onProgress((e) => e.phase === 'idle' && listener(e.collection)) },
    models: w.embeddings,
    folderIndex,
    ownsAllDatasets: true,
    watch: w.watch,
    hnswGraphFrom: w.hnswGraphFrom,
    projectRoot: w.projectRoot,
  });
}
