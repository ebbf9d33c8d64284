// What the dataset registry needs of the engine it lives in, as narrow ports (datasets-room.ts
// wires them to the storage interface and the engine's services): the added folders
// (dataset_folders), the model checks (dataset_checks), the folder datasets' collections,
// indexing's news, the embedding models, and a folder dataset's search.
import type { Manifest } from '../embed/manifest.js';
import type { ResolvedModel } from '../embed/resolver.js';
import type { RankedHit } from '../search/hit.js';
import type { Bm25Scale, KeywordRequest } from '../search/keyword-search.js';
import type { ResolvedFilters } from '../store/filters.js';
import type { ValidSearchRequest } from '../search/request.js';
import type { ChunkRow } from '../store/chunks.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentRow } from '../store/documents.js';

/** dataset_folders: the folders a person added, in the order added. */
export interface DatasetFolderList {
  /** As last read by reload() (another host sharing the index may add one). */
  list(): string[];
  /** Reads the list again. */
  reload(): Promise<void>;
  add(folder: string): Promise<boolean>;
  remove(folder: string): Promise<boolean>;
}

/** dataset_checks: how well a FAISS index's vectors matched its model when last checked. */
export interface ModelChecks {
  get(key: string): Promise<number | undefined>;
  put(key: string, bestCosine: number): Promise<void>;
}

/** The `dataset` collections holding folder datasets (named with DATASET_COLLECTION_PREFIX). */
export interface DatasetCollections {
  get(name: string): Promise<CollectionRow | undefined>;
  byId(id: number): Promise<CollectionRow | undefined>;
  list(): Promise<CollectionRow[]>;
  /** Creates it, and has it watched and scanned where this host watches. */
  add(c: { name: string; root: string; include: string[]; exclude: string[]; context: string }): Promise<CollectionRow>;
  /** The collection and everything of it: documents, keyword rows, vectors, jobs. */
  remove(c: CollectionRow): Promise<void>;
  modelChoice(id: number): Promise<string | null>;
  setModelChoice(id: number, modelId: string | null): Promise<void>;
}

/** Indexing's news: a collection's run went idle (a folder dataset may be Ready). Returns an unsubscribe. */
export interface DatasetIndexing {
  onIdle(listener: (collection: string) => void): () => void;
}

/** The embedding models a FAISS dataset's vectors came from (embed/models.ts). */
export interface DatasetModels {
  readonly manifest: Manifest;
  /** UNAVAILABLE (or NOT_FOUND) when the model is unknown or not on this host. */
  resolve(modelId: string): Promise<ResolvedModel>;
  embedWithModel(modelId: string, text: string, kind: 'query' | 'passage'): Promise<{ vector: Float32Array }>;
}

export interface FolderKeywordPage {
  hits: RankedHit[];
  hasMore: boolean;
  bm25Scale: Bm25Scale | null;
}

export interface FolderModePage {
  hits: RankedHit[];
  bm25Scale: Bm25Scale | null;
  notices: string[];
}

/** A folder dataset's documents, its keyword index (dataset_fts) and the shared vectors. */
export interface FolderIndex {
  documentCount(collectionId: number): Promise<number>;
  /** Whether any of its chunks has a vector in its active space. */
  hasVectors(collectionId: number): Promise<boolean>;
  keyword(req: KeywordRequest): Promise<FolderKeywordPage>;
  modes(req: ValidSearchRequest, filters: ResolvedFilters, collectionIds: number[]): Promise<FolderModePage>;
  /** An indexed document by its path, with its text and chunks; undefined when there is none. */
  document(collectionId: number, path: string): Promise<{ doc: DocumentRow; text: string; chunks: ChunkRow[] } | undefined>;
}
