// A memory search's answer from its ranked page and the page's entries (both backends): each hit
// with its preview and highlights, the legs' scores, and the response's totals, plan and timings.
import { queryMatcher } from '../search/highlight.js';
import type { MemoryEntry, MemoryHit, MemorySearchResponse } from '../types/memory.js';
import { highlighted, previewOf } from './entry-view.js';
import type { RankedEntry, RankedPage } from './memory-search.js';
import type { CheckedSearch } from './search-request.js';

/** A hit's snippet when the caller asked for none. */
const NO_PREVIEW: { text: string; highlights: [] } = { text: '', highlights: [] };

/** `present`: the page's ranked entries still in memory, `entries` theirs in the same order. */
export function memoryResponse(req: CheckedSearch, r: RankedPage, present: readonly RankedEntry[], entries: readonly MemoryEntry[], totalMs: number): MemorySearchResponse {
  const matcher = req.snippets || req.highlight ? queryMatcher(req.query, req.syntax) : null;
  const hits = present.map((p, i): MemoryHit => {
    const entry = entries[i]!;
    const preview = req.snippets ? previewOf(entry.text, matcher!, req.snippetChars) : NO_PREVIEW;
    return {
      entry,
      score: p.score,
      snippet: preview.text,
      highlights: preview.highlights,
      ...(req.highlight ? { highlighted: highlighted(entry.text, matcher!) } : {}),
      ...(p.keyword ? { keyword: p.keyword } : {}),
      ...(p.vector ? { vector: p.vector } : {}),
      ...(p.fused !== undefined ? { fused: p.fused } : {}),
      ...(p.rerank ? { rerank: p.rerank } : {}),
    };
  });
  return {
    query: req.query,
    mode: req.mode,
    hits,
    total: r.total,
    hasMore: r.hasMore,
    nextOffset: r.hasMore ? req.offset + req.limit : null,
    legs: r.legs,
    model: r.model,
    fusion: req.mode === 'hybrid' || req.mode === 'rerank' ? req.fusion : null,
    overlap: r.overlap,
    notices: r.notices,
    plan: r.plan,
    timings: { totalMs, ...r.timings },
    bm25Scale: r.bm25Scale,
  };
}

/** The search metrics' query type for a mode. */
export function metricType(mode: CheckedSearch['mode']): 'fts' | 'semantic' | 'hybrid' {
  return mode === 'keyword' ? 'fts' : mode === 'vector' ? 'semantic' : 'hybrid';
}
