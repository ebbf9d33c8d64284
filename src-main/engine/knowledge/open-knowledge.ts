// The knowledge room as an engine wires it: the documents source over the storage interface and
// the engine's own searches, beside the datasets and memory sources.
import type { DocumentRetriever } from '../retrieve/documents.js';
import type { KeywordSearch } from '../search/keyword-search.js';
import type { ModeSearch } from '../search/modes.js';
import type { Storage } from '../store/storage.js';
import type { DatasetsApi, MemoryApi } from '../types/index.js';
import { EngineKnowledge } from './knowledge-api.js';
import { KnowledgeService } from './knowledge-service.js';
import { DatasetsSource } from './sources/datasets-source.js';
import { DocumentsSource, type DocumentsIndex } from './sources/documents-source.js';
import { MemorySource } from './sources/memory-source.js';

export interface KnowledgeDeps {
  storage: Storage;
  keyword: KeywordSearch;
  modes: ModeSearch;
  retriever: DocumentRetriever;
  /** The index generation (caches keyed on it). */
  generation(): number;
  /** Tells background embedding a search is running. */
  searched(): void;
  datasets: DatasetsApi;
  memory: MemoryApi;
}

export function openKnowledge(d: KnowledgeDeps): EngineKnowledge {
  const named = async (ids: readonly number[]) => Promise.all(ids.map(async (id) => ({ id, name: (await d.storage.collections.byId(id))?.name ?? String(id) })));
  const documents: DocumentsIndex = {
    collections: () => d.storage.collections.list(),
    counts: () => d.storage.stats.counts(),
    vectorsUnavailable: async (ids, opts) => d.modes.unavailableReason(await named(ids), opts),
    keyword: (req) => d.keyword.search(req, d.generation()),
    modes: async (req, filters, ids) => d.modes.run(req, filters, await named(ids), d.generation()),
    locate: (locator, collections) => d.retriever.locate(locator, collections),
    content: (id) => d.storage.documents.content(id),
    chunks: (id) => d.storage.chunks.forDocument(id),
    searched: () => d.searched(),
  };
  return new EngineKnowledge(new KnowledgeService([new DocumentsSource(documents), new DatasetsSource(d.datasets), new MemorySource(d.memory)]));
}
