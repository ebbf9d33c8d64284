// The knowledge room over an index in PostgreSQL: the same DocumentsSource and MemorySource the
// SQLite engine uses, reading through the storage interface (DocumentsIndex as round trips) and
// SharedIndex.memory, and the source that does not run on PostgreSQL yet (datasets) listed as
// unavailable with the reason, so a search or get that names it says why instead of answering
// empty. What the MCP tools reach of datasets on this backend (SharedIndex.datasets) fails the same way.
import { TroveError } from '../errors.js';
import { EngineKnowledge } from '../knowledge/knowledge-api.js';
import { KnowledgeService } from '../knowledge/knowledge-service.js';
import { DocumentsSource, type DocumentsIndex } from '../knowledge/sources/documents-source.js';
import { MemorySource } from '../knowledge/sources/memory-source.js';
import type { ServedMemory } from '../served-index.js';
import type { KnowledgeSource, SourceTarget } from '../knowledge/sources/source.js';
import type { StorageDocumentRetriever } from '../retrieve/storage-documents.js';
import type { StorageKeywordSearch } from '../search/storage-keyword.js';
import type { StorageModeSearch } from '../search/storage-modes.js';
import type { Storage } from '../store/storage.js';
import type { KnowledgeScope, KnowledgeSourceKind } from '../types/index.js';

export const DATASETS_UNAVAILABLE = 'datasets are not available on PostgreSQL yet — docs/scale-out.md';

export interface SharedKnowledgeDeps {
  storage: Storage;
  keyword: StorageKeywordSearch;
  modes: StorageModeSearch;
  retriever: StorageDocumentRetriever;
  memory: ServedMemory;
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
    new KnowledgeService([new DocumentsSource(documents), new UnavailableSource('datasets', DATASETS_UNAVAILABLE), new MemorySource(d.memory)]),
  );
}

/** A source kind this backend does not run: one target, unavailable with the reason; opening an item fails with it. */
class UnavailableSource implements KnowledgeSource {
  constructor(
    readonly kind: Exclude<KnowledgeSourceKind, 'documents'>,
    private readonly reason: string,
  ) {}

  targets(scope: KnowledgeScope): SourceTarget[] {
    if (this.kind === 'memory' && scope.memory === false) return [];
    if (this.kind === 'datasets' && scope.datasets && !scope.datasets.length) return [];
    return [{ source: this.kind, kind: this.kind, name: this.kind, key: this.kind, items: null, defaultMode: 'keyword', modes: [], unavailable: this.reason }];
  }

  search(): Promise<never> {
    return Promise.reject(new TroveError('UNAVAILABLE', this.reason));
  }

  open(): Promise<never> {
    return Promise.reject(new TroveError('UNAVAILABLE', this.reason));
  }
}

/** An API every call of which fails with UNAVAILABLE and the reason (datasets on PostgreSQL). */
export function unavailableApi<T extends object>(reason: string): T {
  const fail = () => {
    throw new TroveError('UNAVAILABLE', reason);
  };
  return new Proxy({} as T, { get: (_target, key) => (key === 'then' ? undefined : fail) });
}
