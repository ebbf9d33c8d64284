// Wires the dataset registry into an engine's stores: folder datasets get their own keyword index
// (dataset_fts) with its own lexical and mode search, while the vectors and the embedding stage
// are the documents' own. Kept apart from the Engine facade so it stays a list of rooms.
import type { EmbeddingService } from '../embed/embeddings.js';
import type { IndexingService } from '../jobs/indexing-service.js';
import { LexicalSearch } from '../search/lexical.js';
import { ModeSearch, type FusionMethod } from '../search/modes.js';
import type { ChunkStore } from '../store/chunks.js';
import type { CollectionStore } from '../store/collections.js';
import type { Db } from '../store/database.js';
import { DatasetCheckStore, DatasetFolderStore } from '../store/dataset-folders.js';
import type { DocumentStore } from '../store/documents.js';
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
}

export function openDatasetRegistry(w: RegistryWiring): DatasetRegistry {
  const lexical = new LexicalSearch(w.db, w.lexical.anchors, 'dataset_fts');
  const chunks = w.chunks.forIndex('dataset_fts');
  return new DatasetRegistry({
    db: w.db,
    profileDir: w.profileDir,
    collections: w.collections,
    chunks,
    folders: new DatasetFolderStore(w.db),
    checks: new DatasetCheckStore(w.db),
    indexing: w.indexing,
    embeddings: w.embeddings,
    search: {
      documents: w.documents,
      chunks,
      lexical,
      modes: new ModeSearch(w.db, w.embeddings, lexical, w.collections, { fusion: w.fusion }),
      generation: w.generation,
    },
    changed: w.changed,
    watch: w.watch,
    hnswGraphFrom: w.hnswGraphFrom,
  });
}
