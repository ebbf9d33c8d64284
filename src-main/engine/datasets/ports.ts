// What the dataset registry needs of the index it lives in, as narrow ports both backends
// implement: the added folders (dataset_folders), the model checks (dataset_checks), the folder
// datasets' collections, indexing's news, the embedding models, and a folder dataset's search.
// SQLite's ports (open-registry.ts) answer in hand, so the registry's steps run synchronously
// there exactly as before; PostgreSQL's (shared/shared-datasets.ts) answer with promises. One
// registry class runs on both: each step is chained with `after`, which calls on at once for a
// value and after the promise for a promise.
import type { Manifest } from '../embed/manifest.js';
import type { ResolvedModel } from '../embed/resolver.js';
import type { RankedHit } from '../search/hit.js';
import type { Bm25Scale, LexicalRequest } from '../search/lexical.js';
import type { ResolvedFilters } from '../search/filters.js';
import type { ValidSearchRequest } from '../search/request.js';
import type { ChunkRow } from '../store/chunks.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentRow } from '../store/documents.js';

/** A port's answer: in hand (SQLite's ports) or a promise (PostgreSQL's). */
export type Awaitable<T> = T | Promise<T>;

/** Calls `fn` with the value: at once when it is in hand, after it settles when it is a promise. */
export function after<T, R>(value: Awaitable<T>, fn: (v: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

/** Every value in hand, or one promise of them all. */
export function allOf<T>(values: readonly Awaitable<T>[]): Awaitable<T[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as T[]);
}

/** dataset_folders: the folders a person added, in the order added. */
export interface DatasetFolderList {
  /** As last read: SQLite reads its table; PostgreSQL keeps what reload() read (another host may add one). */
  list(): string[];
  /** Reads the list again (PostgreSQL: one round trip). */
  reload(): Awaitable<void>;
  add(folder: string): Awaitable<boolean>;
  remove(folder: string): Awaitable<boolean>;
}

/** dataset_checks: how well a FAISS index's vectors matched its model when last checked. */
export interface ModelChecks {
  get(key: string): Awaitable<number | undefined>;
  put(key: string, bestCosine: number): Awaitable<void>;
}

/** The `dataset` collections holding folder datasets (named with DATASET_COLLECTION_PREFIX). */
export interface DatasetCollections {
  get(name: string): Awaitable<CollectionRow | undefined>;
  byId(id: number): Awaitable<CollectionRow | undefined>;
  list(): Awaitable<CollectionRow[]>;
  /** Creates it, and has it watched and scanned where this host watches. */
  add(c: { name: string; root: string; include: string[]; exclude: string[]; context: string }): Awaitable<CollectionRow>;
  /** The collection and everything of it: documents, keyword rows, vectors, jobs. */
  remove(c: CollectionRow): Awaitable<void>;
  modelChoice(id: number): Awaitable<string | null>;
  setModelChoice(id: number, modelId: string | null): Awaitable<void>;
}

/** Indexing's news: a collection's run went idle (a folder dataset may be Ready). Returns an unsubscribe. */
export interface DatasetIndexing {
  onIdle(listener: (collection: string) => void): () => void;
}

/** The embedding models a FAISS dataset's vectors came from (EmbeddingService; QueryEmbedder on PostgreSQL). */
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
  documentCount(collectionId: number): Awaitable<number>;
  /** Whether any of its chunks has a vector in its active space. */
  hasVectors(collectionId: number): Awaitable<boolean>;
  keyword(req: LexicalRequest): Awaitable<FolderKeywordPage>;
  modes(req: ValidSearchRequest, filters: ResolvedFilters, collectionIds: number[]): Promise<FolderModePage>;
  /** An indexed document by its path, with its text and chunks; undefined when there is none. */
  document(collectionId: number, path: string): Awaitable<{ doc: DocumentRow; text: string; chunks: ChunkRow[] } | undefined>;
}
