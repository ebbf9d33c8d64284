// The knowledge toolset's shapes (knowledge.search / knowledge.get and the per-source tools, the
// app's Search screen): one result item and one get response for every source — a collection's
// documents, a registered dataset, the agent memory. Types only (see collections.ts).

import type { Span } from './search.js';

/** The kinds of source the aggregator fans out to. */
export type KnowledgeSourceKind = 'documents' | 'datasets' | 'memory';

/**
 * The knowledge-search spec's own source names (engine/knowledge/spec-sources.ts): notes and media
 * are documents (by kind), chats the memory's threads; characters and prompts Trove does not have.
 */
export type KnowledgeSpecSource = 'notes' | 'media' | 'chats' | 'characters' | 'prompts';

/** keyword: BM25; semantic: vectors; hybrid: both, fused. */
export type KnowledgeMode = 'keyword' | 'semantic' | 'hybrid';

/** What a score was computed from: fts (BM25), semantic (cosine), hybrid (both legs). */
export type KnowledgeScoreType = 'fts' | 'semantic' | 'hybrid';

export type KnowledgeOrder = 'relevance' | 'recent';

export type RetrievalMode = 'snippet' | 'chunk' | 'chunk_with_siblings' | 'full' | 'auto';

/** Where in its item a result's best passage is; what knowledge.get anchors on. */
export interface KnowledgeLoc {
  /** The anchor chunk's index (0-based, the item's own chunks, or on-the-fly chunks; a memory entry's: its entry id, each message of its thread being a chunk). */
  chunk_index: number;
  line_start: number | null;
  line_end: number | null;
  /** The page (paged formats such as PDF), when the source knows it. */
  page?: number;
  /** The page's text was recognised by OCR (a scan, an image): its confidence, 0-100 (it may hold recognition errors). */
  ocr_confidence?: number;
  heading_path?: string[];
}

/** One result, the same shape from every source (the spec's ResultItem). */
export interface KnowledgeItem {
  /** Source-native id: a document's #docid, `<dataset>:<ref>`, a memory entry id. */
  id: string;
  /** Trove's source kind, or the spec's name for it when the caller asked by that name (notes, media, chats). */
  source: KnowledgeSourceKind | KnowledgeSpecSource;
  /** documents: the collection it is in. */
  collection?: string;
  /** datasets: the dataset id. */
  dataset?: string;
  /** memory: the thread the entry belongs to. */
  thread_id?: string;
  title: string;
  /** Plain text around the best match, whitespace collapsed, at most snippet_length characters. */
  snippet: string | null;
  /** Where `snippet` shows the words the query searched for (search/highlight.ts, as every face marks them). */
  highlights: Span[];
  /** trove://<collection>/<path>, trove://~datasets/<id>/<ref>, trove://~memory/<entry id>. */
  uri: string;
  /** The path within its container (attribution). */
  path: string;
  /** 0..1, comparable across sources and modes (see docs/knowledge.md); null in a get's meta. */
  score: number | null;
  score_type: KnowledgeScoreType | null;
  created_at: string | null;
  last_modified: string | null;
  version: number | null;
  tags: string[] | null;
  /** The document's format (markdown, text, html, …), when known. */
  kind: string | null;
  loc: KnowledgeLoc | null;
  /** media (asked as the spec's `media`): the spec's media type (pdf, html, txt, …). */
  media_type?: string | null;
  /** media: the page it was fetched from; Trove indexes files, so null. */
  url?: string | null;
  /** chats (the spec's name for memory): the thread, the entry, and who stored it (user | agent). */
  conversation_id?: string | null;
  message_id?: string | null;
  sender?: string | null;
}

export interface KnowledgeFilters {
  /** Document kinds (markdown, text, html, …). */
  kinds?: string[];
  /** Modified on or after / before (ISO 8601 or anything Date.parse reads). */
  date_from?: string;
  date_to?: string;
  /** Every tag must be present. */
  tags?: string[];
  /** A glob over the item's path (picomatch; a bare name matches at any depth). */
  path?: string;
}

/**
 * The spec's per-source filters, nested under each source's name. What means something here
 * applies to that source's run (notes.keywords: tags; media.media_types: kinds; media's dates;
 * chats.sender: user or agent); the rest is reported as ignored in the response's notices.
 */
export interface KnowledgeSpecFilters {
  media?: { media_types?: string[]; date_from?: string; date_to?: string; order_by?: KnowledgeOrder; [key: string]: unknown };
  notes?: { keywords?: string[]; [key: string]: unknown };
  chats?: { by?: 'both' | 'title' | 'message'; character_id?: number; sender?: string; [key: string]: unknown };
  prompts?: { fields?: string[]; [key: string]: unknown };
  characters?: Record<string, unknown>;
}

/** knowledge.search as the engine takes it (faces clamp and resolve their defaults first). */
export interface KnowledgeSearchRequest {
  query: string;
  /** 1..100 (default 10). */
  limit?: number;
  offset?: number;
  /** 50..2000 (default 300; clamped). */
  snippet_length?: number;
  /**
   * Which sources: `documents` (every collection), `documents:<collection>`, `datasets`,
   * `datasets:<id>`, `memory`; or the spec's `notes`, `media`, `chats`, `characters`, `prompts`.
   * Default: every source the caller may see.
   */
  sources?: string[];
  order_by?: KnowledgeOrder;
  /** Default: hybrid where a source has vectors, else keyword (each source says what ran). */
  mode?: KnowledgeMode;
  filters?: KnowledgeFilters & KnowledgeSpecFilters;
  /**
   * URIs to leave out (a session's already-returned results): the page is filled from further
   * down instead, and `skipped` says how many were passed over.
   */
  exclude?: readonly string[];
}

/** What one source did for a search. */
export interface KnowledgeSourceRun {
  /** The selector it answered for: `documents`, `datasets:<id>`, `memory`. */
  source: string;
  kind: KnowledgeSourceKind;
  /** The mode that ran (null: the source did not run, see notice). */
  mode: KnowledgeMode | null;
  /** Results it contributed to the merge. */
  results: number;
  took_ms: number;
  notices: string[];
}

export interface KnowledgeSearchResponse {
  query: string;
  results: KnowledgeItem[];
  has_more: boolean;
  next_offset: number | null;
  total_estimated: number | null;
  offset: number;
  limit: number;
  order_by: KnowledgeOrder;
  /** What ran: the one mode every source ran, or "mixed". */
  mode: KnowledgeMode | 'mixed' | null;
  sources: KnowledgeSourceRun[];
  /** Excluded URIs passed over to fill this page. */
  skipped: number;
  notices: string[];
  took_ms: number;
}

/** The spec's RetrievalOptions, as the engine takes them (every field optional; clamped). */
export interface RetrievalOptions {
  mode?: RetrievalMode;
  snippet_length?: number;
  max_tokens?: number;
  chars_per_token?: number;
  chunk_size_tokens?: number;
  chunk_overlap_tokens?: number;
  sibling_window?: number;
  prefer_prechunked?: boolean;
}

/** An anchor for knowledge.get: a result's loc, or part of one (first given wins: chunk_index, page, line, approx_offset). */
export interface KnowledgeAnchor {
  chunk_index?: number;
  /** A line of the item (1-based): the chunk holding it. */
  line?: number;
  /** A character offset into the item's text: the chunk holding it. */
  approx_offset?: number;
  page?: number;
}

export interface KnowledgeGetRequest {
  /** documents, datasets or memory (or the spec's notes, media, chats); optional with a trove:// uri (it names its source). */
  source?: KnowledgeSourceKind | KnowledgeSpecSource;
  /** Source-native: a string, or a number (a memory entry's id). */
  id?: string | number;
  uri?: string;
  loc?: KnowledgeAnchor;
  /** Words to anchor on when no loc is given (a light search inside the item). */
  query?: string;
  retrieval?: RetrievalOptions;
  /** Continues a paginated `full` retrieval. */
  cursor?: string;
  /**
   * Whether max_tokens was set by someone (tool input, session, request config) rather than
   * being the global default: `auto` picks chunk_with_siblings only then.
   */
  max_tokens_explicit?: boolean;
}

/** How the content was cut. */
export interface RetrievalInfo {
  /** The mode that ran (auto resolved). */
  mode: Exclude<RetrievalMode, 'auto'>;
  /** ceil(content characters / chars_per_token). */
  tokens: number;
  max_tokens: number;
  chars_per_token: number;
  /** The chunks the content covers (indexes), anchor first. */
  chunks: number[];
  anchor: number | null;
  /** How the anchor was found: loc, query (a light search), session query, or first chunk. */
  anchored_by: 'loc' | 'query' | 'first';
  /** prechunked: the index's own chunks; on_the_fly: chunk_size_tokens / chunk_overlap_tokens. */
  chunking: 'prechunked' | 'on_the_fly';
  /** Character range of the item's text the content came from. */
  char_start: number;
  char_end: number;
  line_start: number | null;
  line_end: number | null;
  /** The content stops short of what the mode asked for (the budget, or the page). */
  truncated: boolean;
  /** full: pass back as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
  total_chars: number;
}

export interface KnowledgeGetResponse {
  meta: KnowledgeItem;
  content: string;
  /** Where `content` shows the words of the query it was anchored on (none without a query). */
  highlights: Span[];
  attachments: Record<string, unknown>[] | null;
  retrieval: RetrievalInfo;
}

/** A source the caller may search, as knowledge.search's `sources` names it. */
export interface KnowledgeSourceInfo {
  source: string;
  kind: KnowledgeSourceKind;
  name: string;
  /** Items it holds (documents, dataset entries, memory entries); null when not counted. */
  items: number | null;
  /** The mode knowledge.search runs there by default. */
  defaultMode: KnowledgeMode;
  /** Modes it can run now. */
  modes: KnowledgeMode[];
  /** Why it cannot be searched now (a dataset not ready), else null. */
  unavailable: string | null;
  /** Results a search of it alone returns by default (a dataset's defaultTopK); absent: knowledge.search's default. */
  defaultLimit?: number;
}

/**
 * What a caller may reach. Omitted fields: everything. A collection allow-list (a scoped
 * token) leaves datasets and memory out unless they are allowed too.
 */
export interface KnowledgeScope {
  collections?: readonly string[] | null;
  datasets?: readonly string[] | null;
  memory?: boolean;
}

/** Engine.knowledge */
export interface KnowledgeApi {
  /** The sources this scope may search. */
  sources(scope?: KnowledgeScope): Promise<KnowledgeSourceInfo[]>;
  search(request: KnowledgeSearchRequest, scope?: KnowledgeScope): Promise<KnowledgeSearchResponse>;
  get(request: KnowledgeGetRequest, scope?: KnowledgeScope): Promise<KnowledgeGetResponse>;
}
