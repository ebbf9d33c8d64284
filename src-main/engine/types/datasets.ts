// Registered datasets (engine/datasets): what a manifest declares, the state it is in and why,
// search hits and documents. The seam with the knowledge tools (docs: datasets-contract); fields
// may be added, never renamed or dropped. Types only (see collections.ts).

/** Unloaded → Validating → Invalid | Loading → Ready | Error (the dataset-registry spec's lifecycle). */
export type DatasetState = 'unloaded' | 'validating' | 'invalid' | 'loading' | 'ready' | 'error';

export type DatasetKind = 'faiss' | 'folder';

export interface DatasetInfo {
  /** The manifest's id (^[a-z0-9-]+$, 1..64); for a manifest too broken to name one, its folder's name. */
  id: string;
  name: string;
  description: string;
  /** 1..100, default 5. */
  defaultTopK: number;
  state: DatasetState;
  /** Why it is invalid / in error (null when ready, and while validating or loading). */
  reason: string | null;
  manifestPath: string;
  /** null until the manifest validated. */
  kind: DatasetKind | null;
  /** The embedding model the vectors came from (faiss), or the folder's model (null: automatic). */
  model: string | null;
  /** faiss: the manifest named no model and `model` is the installed one that reproduced the vectors. */
  modelInferred: boolean;
  /** Vectors (faiss) or indexed documents (folder). */
  documents: number;
  /** e.g. "IndexFlatIP", "IndexIDMap(IndexFlatL2)", "IndexHNSWFlat"; null for folders and before loading. */
  indexType: string | null;
  /** ISO time of the last state change. */
  updatedAt: string;
  /** Where the index files are, resolved (faiss: the index file; folder: the documents folder); null before validation. */
  indexPath: string | null;
  /** faiss: the metadata file, resolved; null otherwise. */
  metadataPath: string | null;
  /** faiss: vector dimensions; null otherwise. */
  dims: number | null;
  /** faiss: how a hit's score and similarity are derived from the index's metric (unnormalised vectors are said so here). */
  scoring: string | null;
  /** The added folder this manifest was found under; null for `<profile>/datasets`. */
  folder: string | null;
  /** Things that work but deserve a look (e.g. metadata entries without a path). */
  warnings: string[];
}

export interface DatasetHit {
  dataset: string;
  /** How to fetch it again: FAISS — the document's position in the metadata array (as a string); folder — its relative path. */
  ref: string;
  /** Non-empty (falls back to the path's basename). */
  title: string;
  /** Non-empty (attribution). */
  path: string;
  /** Plain text, ≤ the requested snippet length. */
  snippet: string;
  /** 0..1, higher is better. */
  score: number;
  /** Cosine similarity of query and document vector (−1..1) when a vector ranked it, else null. */
  similarity: number | null;
  /** Folder datasets: the anchor chunk, like a document hit (ordinal, lineStart, lineEnd, page: the PDF page, slide, sheet… or null); FAISS: null. */
  chunk: { ordinal: number; lineStart: number; lineEnd: number; page: number | null } | null;
  /** ISO; folder datasets: the file's mtime. */
  modified: string | null;
  /**
   * Folder datasets: the raw evidence the legs had for it — its best chunk's BM25 and how BM25
   * compares across indexes for this query (search/plan.ts: the bound, the share of the query's
   * words the index has), the cosine — so callers merging several result lists can put it on a
   * common scale (engine/knowledge/calibrate.ts). FAISS: absent (`similarity` is its cosine).
   */
  evidence?: { bm25: number | null; bm25Scale: { bound: number; coverage: number } | null; cosine: number | null };
}

export type DatasetSearchMode = 'keyword' | 'semantic' | 'hybrid';

export interface DatasetSearchOptions {
  /** 1..100; default the dataset's defaultTopK. */
  topK?: number;
  offset?: number;
  /** Default: hybrid when the dataset has vectors, else keyword (FAISS: always semantic). */
  mode?: DatasetSearchMode;
  /** Default 300. */
  snippetLength?: number;
}

export interface DatasetSearchResult {
  dataset: string;
  /** What ran (FAISS datasets: always semantic). */
  mode: DatasetSearchMode;
  results: DatasetHit[];
  durationMs: number;
  datasetSize: number;
  notices: string[];
  /** More results past this page. */
  hasMore: boolean;
  nextOffset: number | null;
}

export interface DatasetDocument {
  dataset: string;
  ref: string;
  title: string;
  path: string;
  /** The full text (FAISS: metadata's text, else its snippet). */
  text: string;
  /** The rest of the metadata entry (FAISS) / front matter (folder). */
  metadata: Record<string, unknown>;
  /** Folder datasets: the document's chunks as char ranges into text, in order; FAISS: null (chunk on the fly). */
  chunks: { ordinal: number; charStart: number; charEnd: number; lineStart: number; lineEnd: number; page: number | null }[] | null;
  /** ISO; folder datasets: the file's mtime. */
  modified: string | null;
}

/** Engine.datasets: plain-data methods over the registry; answers are promises (onChange and profileFolder, which read no index, answer in hand). */
export interface DatasetsApi {
  /** Every dataset in every state. */
  list(): Promise<DatasetInfo[]>;
  /** NOT_FOUND names the known ids. */
  info(id: string): Promise<DatasetInfo>;
  /** Ready datasets only (UNAVAILABLE with the reason otherwise). topK 1..100; offset for paging. */
  search(id: string, query: string, opts?: DatasetSearchOptions): Promise<DatasetSearchResult>;
  /** NOT_FOUND for an unknown ref. */
  document(id: string, ref: string): Promise<DatasetDocument>;
  /** Folders scanned for datasets/<id>/manifest.json (besides <profile>/datasets). */
  folders(): Promise<string[]>;
  /** Returns the datasets found there. */
  addFolder(dir: string): Promise<DatasetInfo[]>;
  removeFolder(dir: string): Promise<void>;
  /** State changes (for the app's events and tests). Returns an unsubscribe. */
  onChange(listener: (d: DatasetInfo) => void): () => void;
  /** Resolves when no dataset is validating or loading files (a folder dataset's first indexing is not waited for). */
  settled(): Promise<DatasetInfo[]>;
  /** Looks at every manifest folder again now (the watcher does this by itself while a host runs). */
  reload(): Promise<DatasetInfo[]>;
  /** `<profile>/datasets`: always scanned. */
  profileFolder(): string;
}
