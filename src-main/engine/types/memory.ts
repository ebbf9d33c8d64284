// Agent memory: threads of entries an assistant stores and searches (engine/memory). Types only
// (see collections.ts). The MCP face maps these onto the context-server and persistence tool
// shapes; the app API and the CLI show them as they are.
import type { Span } from './search.js';

export type MemorySource = 'user' | 'agent';
export type MemoryContentType = 'text' | 'multimodal';
/** What a token may do with memory: nothing, search and read it, or also write it. */
export type MemoryGrant = 'none' | 'read' | 'write';

/** An image as given and returned: base64 data and its mime type. */
export interface MemoryImageInput {
  data: string;
  /** Default image/png. */
  mime_type?: string;
}

export interface MemoryImage {
  mime_type: string;
  /** Decoded size. */
  bytes: number;
  /** base64; present only when images were asked for. */
  data?: string;
}

export interface MemoryEntryInput {
  threadId: string;
  source: MemorySource;
  text: string;
  metadata?: Record<string, unknown> | null;
  tags?: string[] | null;
  images?: MemoryImageInput[] | null;
}

/** One update: at least one of the fields; metadata (full replacement) and metadataPatch (RFC 7396) exclude each other. */
export interface MemoryUpdateInput {
  id: number;
  text?: string | null;
  metadata?: Record<string, unknown> | null;
  metadataPatch?: Record<string, unknown> | null;
  tags?: string[] | null;
  images?: MemoryImageInput[] | null;
}

export interface MemoryEntry {
  id: number;
  threadId: string;
  source: MemorySource;
  contentType: MemoryContentType;
  text: string;
  metadata: Record<string, unknown>;
  tags: string[];
  /** ISO 8601, UTC. */
  createdAt: string;
  updatedAt: string;
  images: MemoryImage[];
  /** The entry has no vector yet (semantic search may miss it). */
  pendingEmbedding?: boolean;
}

export type MetadataOperator =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in'
  | 'not_in'
  | 'exists'
  | 'not_exists'
  | 'contains'
  | 'starts_with'
  | 'ends_with'
  | 'is_null'
  | 'is_not_null'
  | 'array_contains';

export interface MetadataFilter {
  /** A key, or a nested path written with dots (team.name). */
  key: string;
  operator?: MetadataOperator;
  value?: unknown;
  /** String comparisons ignore case unless this is true. */
  case_sensitive?: boolean;
}

/** Filters every memory listing and search takes; all of them must hold (tags: any of them). */
export interface MemoryFilters {
  threadId?: string;
  source?: MemorySource;
  /** Any of these tags. */
  tags?: string[];
  contentType?: MemoryContentType;
  /** ISO 8601; created at or after. */
  startDate?: string;
  /** ISO 8601; created at or before (a date alone: the end of that day). Naive times are UTC. */
  endDate?: string;
  /** Exact equality per key (nested keys with dots). */
  metadata?: Record<string, unknown>;
  metadataFilters?: MetadataFilter[];
}

export interface MemoryListRequest extends MemoryFilters {
  limit?: number;
  offset?: number;
  includeImages?: boolean;
}

export interface MemoryPage {
  entries: MemoryEntry[];
  /** Matching entries in all (the page is newest first). */
  total: number;
  hasMore: boolean;
  nextOffset: number | null;
  tookMs: number;
}

export type MemorySearchMode = 'keyword' | 'vector' | 'hybrid' | 'rerank';
export type MemorySearchSyntax = 'match' | 'phrase' | 'prefix' | 'boolean';

export interface MemorySearchRequest extends MemoryFilters {
  query: string;
  mode?: MemorySearchMode;
  syntax?: MemorySearchSyntax;
  limit?: number;
  offset?: number;
  /** Vector leg: leave out entries less similar than this (cosine 0..1). */
  minSimilarity?: number;
  /** Hybrid: reciprocal rank fusion (k, default 60) or a weighted sum of the legs' 0..1 scores. */
  fusion?: { method: 'rrf'; k?: number } | { method: 'weighted'; keyword: number; semantic: number };
  includeImages?: boolean;
  /** Mark the query's words in the entry's whole text with <mark>…</mark>. */
  highlight?: boolean;
  /** Characters of snippet around the best match (default 200). */
  snippetChars?: number;
  /** false: no snippet ('' and no highlights) for a caller that does not show one, which saves cutting it (default true). */
  snippets?: boolean;
}

/** Where one leg ranked an entry and how it scored it. */
export interface MemoryLegScore {
  /** 1-based. */
  rank: number;
  /** 0..1 within the leg's results. */
  score: number;
}

export interface MemoryHit {
  entry: MemoryEntry;
  /** Relevance 0..1 (keyword: normalised BM25; vector: cosine; hybrid: fused; rerank: blended). */
  score: number;
  /** About snippetChars of the text around the best match, as written. */
  snippet: string;
  /** Where `snippet` shows the query's words ([start, end) offsets; search/highlight.ts decides which). */
  highlights: Span[];
  /** With `highlight`: the whole text with the query's words wrapped in <mark>…</mark>. */
  highlighted?: string;
  keyword?: MemoryLegScore & { bm25: number };
  vector?: MemoryLegScore & { cosine: number };
  /** Hybrid: the fused score before normalisation (rrf: Σ 1/(k + rank)). */
  fused?: number;
  rerank?: { score: number };
}

export interface MemorySearchResponse {
  query: string;
  mode: MemorySearchMode;
  hits: MemoryHit[];
  /** Ranked matches found (at least the page; more may exist when `exhausted` is false). */
  total: number;
  hasMore: boolean;
  nextOffset: number | null;
  /** Candidates each leg contributed (hybrid) or found (single leg). */
  legs: { keyword: number | null; vector: number | null };
  /** The embedding model of the vector leg, when it ran. */
  model: string | null;
  fusion: { method: 'rrf'; k: number } | { method: 'weighted'; keyword: number; semantic: number } | null;
  /** Hybrid: how the legs' candidates overlapped. */
  overlap: { both: number; keywordOnly: number; vectorOnly: number } | null;
  /** What was skipped and why (no vectors yet, no reranker, a query of stop words). */
  notices: string[];
  plan: { strategy: string; expression: string; dropped: string[] };
  timings: { totalMs: number; keywordMs: number | null; vectorMs: number | null; embedMs: number | null };
  /**
   * How the keyword leg's BM25 compares across indexes (the most any row could score for the
   * query's words, and the share of them the index has); null when the keyword leg did not run or
   * took an FTS expression. The knowledge toolset calibrates memory hits' `keyword.bm25` with it.
   */
  bm25Scale: { bound: number; coverage: number } | null;
}

export interface MemoryWriteResult {
  id: number;
  threadId: string;
}

export interface MemoryBatchItem {
  index: number;
  success: boolean;
  id: number | null;
  error: string | null;
  /** Updates: the fields that changed. */
  updatedFields?: string[];
}

export interface MemoryBatchResult {
  results: MemoryBatchItem[];
  succeeded: number;
  failed: number;
}

export interface MemoryUpdateResult {
  id: number;
  updatedFields: string[];
}

/** Deletion criteria; all given ones must hold. `source` needs another criterion beside it. */
export interface MemoryDeleteCriteria {
  ids?: number[];
  threadIds?: string[];
  source?: MemorySource;
  olderThanDays?: number;
}

export interface MemoryDeleteResult {
  deleted: number;
  criteria: string[];
}

export interface MemoryThread {
  threadId: string;
  entries: number;
  /** 1: one source only; 2: both user and agent. */
  sourceTypes: number;
  multimodal: number;
  firstEntry: string;
  lastEntry: string;
  lastId: number;
}

export interface MemoryStatistics {
  entries: number;
  threads: number;
  bySource: Record<string, number>;
  byContentType: Record<string, number>;
  images: number;
  uniqueTags: number;
  /** The whole index file (documents and memory share it), in bytes. */
  databaseBytes: number;
  semantic: {
    /** The model of the memory's vectors (null: none yet). */
    model: string | null;
    dimensions: number | null;
    chunks: number;
    vectors: number;
    /** Chunks still waiting for the background embedding stage. */
    pendingChunks: number;
    /** Why there are no vectors (no model, no background embedding), when that is so. */
    problem: string | null;
  };
  keyword: { indexedEntries: number; chunks: number; segments: number };
  reranker: string | null;
  /** The persistence server's search metrics, by kind of search. */
  searches: { type: string; count: number; avgMs: number; lastAt: string | null }[];
}

/** One line of `trove memory export` (and what import reads). */
export interface MemoryExportLine {
  id: number;
  thread_id: string;
  source: MemorySource;
  text: string;
  metadata: Record<string, unknown>;
  tags: string[];
  images: { data: string; mime_type: string }[];
  created_at: string;
  updated_at: string;
}

export interface MemoryImportReport {
  imported: number;
  /** Already present (same thread, source, creation time and text): left alone. */
  skipped: number;
}

/** An entry with its neighbours in its thread (the knowledge toolset's siblings). */
export interface MemoryContext {
  entry: MemoryEntry;
  before: MemoryEntry[];
  after: MemoryEntry[];
}

/** Engine.memory: the agent memory store. Plain data in and out; every write is one transaction. Every answer is a promise, on every backend. */
export interface MemoryApi {
  store(input: MemoryEntryInput): Promise<MemoryWriteResult>;
  /** ≤ 100 entries. atomic: all or none (a bad entry is an INVALID_INPUT naming it); else per-entry results. */
  storeBatch(inputs: readonly MemoryEntryInput[], opts?: { atomic?: boolean }): Promise<MemoryBatchResult>;
  get(ids: readonly number[], opts?: { includeImages?: boolean }): Promise<MemoryEntry[]>;
  update(input: MemoryUpdateInput): Promise<MemoryUpdateResult>;
  updateBatch(inputs: readonly MemoryUpdateInput[], opts?: { atomic?: boolean }): Promise<MemoryBatchResult>;
  delete(criteria: MemoryDeleteCriteria): Promise<MemoryDeleteResult>;
  /** Filters only, newest first. */
  list(request?: MemoryListRequest): Promise<MemoryPage>;
  /** Every mode; vector, hybrid and rerank embed the query in a worker. */
  search(request: MemorySearchRequest): Promise<MemorySearchResponse>;
  threads(): Promise<MemoryThread[]>;
  statistics(): Promise<MemoryStatistics>;
  /** Counts only (cheap): entries, threads, chunks waiting for vectors. */
  summary(): Promise<{ entries: number; threads: number; needsEmbedding: number }>;
  /** An entry and up to `before`/`after` entries around it in its thread, oldest first. */
  context(id: number, opts?: { before?: number; after?: number }): Promise<MemoryContext>;
  /** Every entry (or one thread's), oldest first, with images. */
  export(opts?: { threadId?: string }): AsyncIterable<MemoryExportLine>;
  /** Validates every line first (a bad one is INVALID_INPUT naming it; nothing is written), then skips entries already present. */
  import(lines: readonly unknown[]): Promise<MemoryImportReport>;
}
