// The knowledge room over an index in PostgreSQL: the same DocumentsSource, DatasetsSource and
// MemorySource the SQLite engine uses, reading through the storage interface (DocumentsIndex as
// round trips), SharedIndex.datasets and SharedIndex.memory.
import { EngineKnowledge } from '../knowledge/knowledge-api.js';
import { KnowledgeService } from '../knowledge/knowledge-service.js';
import { DocumentsSource, type DocumentsIndex } from '../knowledge/sources/documents-source.js';
import { DatasetsSource } from '../knowledge/sources/datasets-source.js';
import { MemorySource } from '../knowledge/sources/memory-source.js';
import type { StorageDocumentRetriever } from '../retrieve/storage-documents.js';
import type { StorageKeywordSearch } from '../search/storage-keyword.js';
import type { StorageModeSearch } from '../search/storage-modes.js';
import type { Storage } from '../store/storage.js';
import type { DatasetsApi, MemoryApi } from '../types/index.js';

export interface SharedKnowledgeDeps {
  storage: Storage;
  keyword: StorageKeywordSearch;
  modes: StorageModeSearch;
  retriever: StorageDocumentRetriever;
  memory: MemoryApi;
  datasets: DatasetsApi;
}

export function sharedKnowledge(d: SharedKnowledgeDeps): EngineKnowledge {
  const documents: DocumentsIndex = {
    collections: () => d.storage.collections.list(),
    counts: () => d.storage.stats.counts(),
    vectorsUnavailable: (ids) => d.modes.unavailableReason(ids),
    keyword: (req) => d.keyword.search(req),
    modes: (req, filters, ids) => d.modes.run(req, filters, ids),
    locate: (locator, collections) => d.retriever.locate(locator, collections),
    content: (id) => d.storage.documents.content(id),
    chunks: (id) => d.storage.chunks.forDocument(id),
    searched: () => undefined, // a serving host's background embedding (shared-embedding-loop.ts) does not give way to searches yet
  };
  return new EngineKnowledge(
    new KnowledgeService([new DocumentsSource(documents), new DatasetsSource(d.datasets), new MemorySource(d.memory)]),
  );
}
