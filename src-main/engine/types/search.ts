// One search hit, one response, for every mode and every face (CLI --json, MCP, app API, UI).
// Types only (see collections.ts).
import type { OcrHitInfo } from './ocr.js';

/** How fresh a result is (watch/freshness.ts). */
export interface Freshness {
  /** ISO time the document was last (re)indexed. */
  indexed_at: string;
  /** The file changed (or vanished) after it was indexed, or a change is queued for it. */
  stale: boolean;
  /** Some of its chunks have no vector yet (vector search may miss it). */
  pendingEmbedding: boolean;
}

/** [start, end) offsets (UTF-16 code units, as JavaScript strings index) into a text a face shows. */
export type Span = [number, number];

/** Where in its document a hit's best chunk is. */
export interface ChunkLocation {
  ordinal: number;
  lineStart: number;
  lineEnd: number;
  headingPath: string[];
  /**
   * The page the chunk is on: a PDF page, a slide (PPTX, ODP), a sheet (XLSX, ODS, by position),
   * an EPUB chapter or an mbox message, 1-based; null for formats without pages.
   */
  page: number | null;
}

/** The fields every hit has, from whichever leg found it. */
export interface HitFields {
  docid: string;
  collection: string;
  path: string;
  title: string;
  kind: string;
  tags: string[];
  /** Relevance 0..1 within this result set. */
  score: number;
  /** Line-numbered excerpt around the best match. */
  snippet: string;
  /**
   * Where `snippet` shows the query's words: the terms the search used (stop words and words the
   * plan left out are not marked), whole words, stemmed forms included. Every face draws these.
   */
  highlights: Span[];
  /** Line of the best match. */
  line: number;
  /** Page (slide, sheet, chapter) of the best match; null where the format has none. Same as chunk.page. */
  page: number | null;
  chunk: ChunkLocation;
  /** Present when the best chunk's text was recognised by OCR (a scanned page, an image), with the page's confidence. */
  ocr?: OcrHitInfo;
  explain?: Record<string, unknown>;
}

export interface SearchResult extends HitFields, Partial<Freshness> {
  uri: string;
  /** ISO time the file was modified, as indexed. */
  modified: string;
}

export type SearchMode = 'keyword' | 'vector' | 'hybrid' | 'rerank';
export type SearchSyntax = 'match' | 'phrase' | 'prefix' | 'boolean';

export interface SearchResponse {
  query: string;
  syntax: string;
  results: SearchResult[];
  offset: number;
  limit: number;
  has_more: boolean;
  next_offset: number | null;
  total_estimated: number;
  took_ms: number;
  plan: { strategy: string; expression: string; dropped: string[] };
  /** What a semantic mode skipped and why (no vectors yet, no reranker); absent when nothing was. */
  notices?: string[];
}
