// The knowledge room as the SQLite engine wires it: the documents source over the engine's own
// stores and searches (DocumentsIndex answered in hand, no extra work per call), beside the
// datasets and memory sources. The PostgreSQL index wires the same DocumentsSource over the
// storage interface (shared/shared-documents.ts).
import type { DocumentRetriever } from '../retrieve/documents.js';
import type { LexicalSearch } from '../search/lexical.js';
import type { ModeSearch } from '../search/modes.js';
import type { ChunkStore } from '../store/chunks.js';
import type { CollectionStore } from '../store/collections.js';
import type { DocumentStore } from '../store/documents.js';
import type { StatsStore } from '../store/stats.js';
import type { DatasetsApi, MemoryApi } from '../types/index.js';
import { EngineKnowledge } from './knowledge-api.js';
import { KnowledgeService } from './knowledge-service.js';
import { DatasetsSource } from './sources/datasets-source.js';
import { DocumentsSource, type DocumentsIndex } from './sources/documents-source.js';
import { MemorySource } from './sources/memory-source.js';

export interface SqliteKnowledgeDeps {
  collections: CollectionStore;
  documents: DocumentStore;
  chunks: ChunkStore;
  stats: StatsStore;
  lexical: LexicalSearch;
  modes: ModeSearch;
  retriever: DocumentRetriever;
  /** The index generation (caches keyed on it). */
  generation(): number;
  /** Tells background embedding a search is running. */
  searched(): void;
  datasets: DatasetsApi;
  memory: MemoryApi;
}

export function sqliteKnowledge(deps: SqliteKnowledgeDeps): EngineKnowledge {
  return new EngineKnowledge(new KnowledgeService([new DocumentsSource(sqliteDocuments(deps)), new DatasetsSource(deps.datasets), new MemorySource(deps.memory)]));
}

/** DocumentsIndex over the SQLite stores: every answer synchronous, as the engine's own calls. */
function sqliteDocuments(d: SqliteKnowledgeDeps): DocumentsIndex {
  return {
    collections: () => d.collections.list(),
    counts: () => d.stats.counts(),
    vectorsUnavailable: (ids) => d.modes.unavailableReason(ids),
    keyword: (req) => d.lexical.search(req, d.generation()),
    modes: (req, filters, ids) => d.modes.run(req, filters, ids, d.generation()),
    locate: (locator, collections) => d.retriever.locate(locator, collections),
    content: (id) => d.documents.content(id),
    chunks: (id) => d.chunks.forDocument(id),
    searched: () => d.searched(),
  };
}
