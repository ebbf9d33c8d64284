// Search hits → the response every face shows (SearchResponse): one result shape for every mode.
import { documentUri } from '../retrieve/documents.js';
import type { Freshness, SearchResponse, SearchResult } from '../types/search.js';
import type { RankedHit } from './hit.js';
import type { KeywordResult } from './keyword-search.js';
import type { ModeResult } from './modes.js';
import type { ValidSearchRequest } from './request.js';

/** Freshness of each result's document; null: not asked for (the fields are left out). */
export type FreshnessOf = Map<number, Freshness> | null;

export function toSearchResult(h: RankedHit, fresh: Freshness | undefined | null): SearchResult {
  return {
    docid: h.docid,
    collection: h.collection,
    path: h.path,
    uri: documentUri(h.collection, h.path),
    title: h.title,
    kind: h.kind,
    tags: h.tags,
    modified: new Date(h.modifiedMs).toISOString(),
    ...(fresh === null ? {} : (fresh ?? { indexed_at: new Date(h.modifiedMs).toISOString(), stale: true, pendingEmbedding: false })),
    score: h.score,
    snippet: h.snippet,
    highlights: h.highlights,
    line: h.line,
    page: h.page,
    chunk: h.chunk,
    ...(h.ocr ? { ocr: h.ocr } : {}),
    ...(h.explain ? { explain: h.explain } : {}),
  };
}

export function keywordResponse(req: ValidSearchRequest, r: KeywordResult, fresh: FreshnessOf, started: number): SearchResponse {
  return {
    query: req.query,
    syntax: req.syntax,
    results: r.hits.map((h) => toSearchResult(h, fresh && fresh.get(h.documentId))),
    offset: req.offset,
    limit: req.limit,
    has_more: r.hasMore,
    next_offset: r.nextOffset,
    total_estimated: r.totalEstimated,
    took_ms: Math.round((performance.now() - started) * 100) / 100,
    plan: r.plan,
  };
}

/** One page of a semantic mode's ranked hits (the page's freshness read once the page is known). */
export async function semanticResponse(
  req: ValidSearchRequest,
  r: ModeResult,
  freshness: (documentIds: number[]) => Promise<Map<number, Freshness>>,
  started: number,
): Promise<SearchResponse> {
  const page = r.hits.slice(req.offset, req.offset + req.limit);
  const hasMore = r.hits.length > req.offset + req.limit;
  const fresh = req.freshness ? await freshness(page.map((h) => h.documentId)) : null;
  return {
    query: req.query,
    syntax: req.syntax,
    results: page.map((h) => toSearchResult(h, fresh && fresh.get(h.documentId))),
    offset: req.offset,
    limit: req.limit,
    has_more: hasMore,
    next_offset: hasMore ? req.offset + req.limit : null,
    total_estimated: r.exhausted ? r.total : Math.max(r.total, req.offset + req.limit + 1),
    took_ms: Math.round((performance.now() - started) * 100) / 100,
    plan: r.plan,
    ...(r.notices.length ? { notices: r.notices } : {}),
  };
}

