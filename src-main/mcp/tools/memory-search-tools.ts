// The context server's ranked searches on Trove's memory store: fts_search_context (keyword,
// modes match | prefix | phrase | boolean — every query is safe FTS5, so natural language never
// hits a syntax error), semantic_search_context (vectors) and hybrid_search_context (both legs
// fused by RRF with rrf_k, or a weighted sum). Every one takes the same filters as
// search_context, pushed into the search itself. Scores as the spec's scores object.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { MemoryHit, MemorySearchResponse } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { contextEntry, entryShape, filterCount, filterFields, jsonResult, pageFields, storeNames, toFilters, type FilterArgs } from './memory-shapes.js';
import { guarded } from './results.js';
import { convertedOnce } from './schema-cache.js';

export const MEMORY_SEARCH_TOOLS = ['fts_search_context', 'semantic_search_context', 'hybrid_search_context'] as const;

const query = z.string().trim().min(1, 'query is empty').max(4000).describe('What to look for');
const score = z.number().nullable();
const scores = z.object({
  fts_score: score.optional().describe('BM25 (higher is better)'),
  fts_rank: z.number().int().nullable().optional().describe('Rank in the keyword results (1 = best)'),
  semantic_distance: score.optional().describe('L2 distance of the normalised vectors (lower is better)'),
  semantic_rank: z.number().int().nullable().optional(),
  rrf: score.optional().describe('Fused score (higher is better)'),
  rerank_score: score.optional().describe('Cross-encoder relevance 0..1 (hybrid with rerank: true)'),
});
const hit = z.object({ ...entryShape, scores, highlighted: z.string().optional() });
const stats = z.record(z.string(), z.unknown()).optional();
const common = { results: z.array(hit), count: z.number().int(), total: z.number().int(), has_more: z.boolean(), stats };

const ftsInput = convertedOnce(
  z.object({
    query,
    mode: z.enum(['match', 'prefix', 'phrase', 'boolean']).default('match').describe('match: words, ranked (default); prefix: word beginnings; phrase: exact phrase; boolean: AND OR NOT ( ) "…"'),
    ...filterFields,
    ...pageFields(5),
    highlight: z.boolean().default(false).describe('Add the text with matches marked <mark>…</mark>'),
  }),
);
const semanticInput = convertedOnce(z.object({ query, ...filterFields, ...pageFields(5) }));
const hybridInput = convertedOnce(
  z.object({
    query,
    fusion_method: z.enum(['rrf', 'weighted']).default('rrf').describe('rrf: reciprocal rank fusion (default); weighted: a weighted sum of the legs’ 0..1 scores'),
    rrf_k: z.number().int().min(1).max(1000).default(60).describe('RRF smoothing constant (default 60)'),
    weights: z
      .object({ fts: z.number().min(0).max(1), semantic: z.number().min(0).max(1) })
      .refine((w) => Math.abs(w.fts + w.semantic - 1) < 0.01, { message: 'weights must add up to 1' })
      .optional()
      .describe('Weighted fusion: {fts, semantic} adding up to 1 (default 0.4 / 0.6)'),
    rerank: z.boolean().default(false).describe('Rerank the top 30 with the cross-encoder (slower)'),
    ...filterFields,
    ...pageFields(5),
  }),
);

const TOOLS = {
  fts_search_context: {
    title: 'Full-text search of context',
    description:
      'Keyword search (BM25, stemming, CJK) over stored entries with highlighted matches. Natural-language queries are safe: every query is quoted for FTS5. ' +
      'Entries missing some of the words still rank, below those that have them all. Takes the same filters as search_context.',
    inputSchema: ftsInput,
    outputSchema: convertedOnce(z.object({ query: z.string(), mode: z.string(), language: z.string(), ...common })),
  },
  semantic_search_context: {
    title: 'Semantic search of context',
    description:
      'Search entries by meaning (local embedding model), even without shared words. Entries are embedded in the background after they are stored; ' +
      'until memory has vectors this says so. Takes the same filters as search_context.',
    inputSchema: semanticInput,
    outputSchema: convertedOnce(z.object({ query: z.string(), model: z.string(), ...common })),
  },
  hybrid_search_context: {
    title: 'Hybrid search of context',
    description:
      'Keyword and semantic search fused (reciprocal rank fusion with rrf_k, or weighted); entries found by both rank highest. ' +
      'Without vectors yet it returns keyword results and says so in warnings. Takes the same filters as search_context.',
    inputSchema: hybridInput,
    outputSchema: convertedOnce(
      z.object({
        query: z.string(),
        fusion_method: z.string(),
        search_modes_used: z.array(z.string()),
        fts_count: z.number().int(),
        semantic_count: z.number().int(),
        warnings: z.array(z.string()).optional(),
        ...common,
      }),
    ),
  },
} as const;

/** L2 distance between unit vectors from their cosine: √(2 − 2·cos). */
function l2(cosine: number): number {
  return Math.round(Math.sqrt(Math.max(0, 2 - 2 * cosine)) * 10_000) / 10_000;
}

function entryOf(h: MemoryHit, images: boolean) {
  return contextEntry(h.entry, { truncate: true, images });
}

function statsOf(r: MemorySearchResponse, a: FilterArgs, store: ReturnType<typeof storeNames>): Record<string, unknown> {
  const base = { execution_time_ms: r.timings.totalMs, filters_applied: filterCount(a), rows_returned: r.hits.length, backend: store.backend };
  if (r.mode === 'keyword') return { ...base, query_plan: `${r.plan.strategy}: ${r.plan.expression}`, dropped_terms: r.plan.dropped };
  if (r.mode === 'vector') return { ...base, embedding_generation_ms: r.timings.embedMs, search_ms: r.timings.vectorMs, model: r.model };
  return {
    ...base,
    fts_stats: { execution_time_ms: r.timings.keywordMs, rows_returned: r.legs.keyword, query_plan: r.plan.expression || null, backend: store.fts },
    semantic_stats: r.legs.vector === null ? null : { execution_time_ms: r.timings.vectorMs, embedding_generation_ms: r.timings.embedMs, rows_returned: r.legs.vector, backend: store.vectors },
    fusion_stats: {
      method: r.fusion?.method,
      ...(r.fusion?.method === 'rrf' ? { rrf_k: r.fusion.k } : {}),
      total_unique_documents: r.overlap ? r.overlap.both + r.overlap.keywordOnly + r.overlap.vectorOnly : 0,
      documents_in_both: r.overlap?.both ?? 0,
      documents_fts_only: r.overlap?.keywordOnly ?? 0,
      documents_semantic_only: r.overlap?.vectorOnly ?? 0,
    },
  };
}

function page(r: MemorySearchResponse) {
  return { count: r.hits.length, total: r.total, has_more: r.hasMore };
}

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

export function registerMemorySearchTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  const m = ctx.engine.memory;
  if (allowed('fts_search_context')) {
    const t = TOOLS.fts_search_context;
    server.registerTool('fts_search_context', { title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: readOnly }, (a) =>
      guarded('fts_search_context', async () => {
        const r = await m.search({ ...toFilters(a), query: a.query, mode: 'keyword', syntax: a.mode, limit: a.limit, offset: a.offset, includeImages: a.include_images, highlight: a.highlight, snippets: false });
        const results = r.hits.map((h) => ({
          ...entryOf(h, a.include_images),
          scores: { fts_score: h.keyword?.bm25 ?? null, fts_rank: null, rerank_score: null },
          ...(a.highlight ? { highlighted: h.highlighted ?? '' } : {}),
        }));
        return jsonResult({ query: r.query, mode: a.mode, language: 'multilingual', results, ...page(r), ...(a.explain_query ? { stats: statsOf(r, a, storeNames(ctx.engine.backend)) } : {}) });
      }),
    );
  }
  if (allowed('semantic_search_context')) {
    const t = TOOLS.semantic_search_context;
    server.registerTool('semantic_search_context', { title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: readOnly }, (a) =>
      guarded('semantic_search_context', async () => {
        const r = await m.search({ ...toFilters(a), query: a.query, mode: 'vector', limit: a.limit, offset: a.offset, includeImages: a.include_images, snippets: false });
        const results = r.hits.map((h) => ({ ...entryOf(h, a.include_images), scores: { semantic_distance: h.vector ? l2(h.vector.cosine) : null, semantic_rank: null, rerank_score: null } }));
        return jsonResult({ query: r.query, model: r.model ?? '', results, ...page(r), ...(a.explain_query ? { stats: statsOf(r, a, storeNames(ctx.engine.backend)) } : {}) });
      }),
    );
  }
  if (allowed('hybrid_search_context')) {
    const t = TOOLS.hybrid_search_context;
    server.registerTool('hybrid_search_context', { title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: readOnly }, (a) =>
      guarded('hybrid_search_context', async () => {
        const w = a.weights ?? { fts: 0.4, semantic: 0.6 };
        const fusion = a.fusion_method === 'weighted' ? { method: 'weighted' as const, keyword: w.fts, semantic: w.semantic } : { method: 'rrf' as const, k: a.rrf_k };
        const r = await m.search({ ...toFilters(a), query: a.query, mode: a.rerank ? 'rerank' : 'hybrid', fusion, limit: a.limit, offset: a.offset, includeImages: a.include_images, snippets: false });
        const results = r.hits.map((h) => ({
          ...entryOf(h, a.include_images),
          scores: {
            rrf: h.fused ?? h.score,
            fts_rank: h.keyword?.rank ?? null,
            semantic_rank: h.vector?.rank ?? null,
            fts_score: h.keyword?.bm25 ?? null,
            semantic_distance: h.vector ? l2(h.vector.cosine) : null,
            rerank_score: h.rerank?.score ?? null,
          },
        }));
        return jsonResult({
          query: r.query,
          fusion_method: a.fusion_method,
          search_modes_used: [...(r.legs.keyword !== null ? ['fts'] : []), ...(r.legs.vector !== null ? ['semantic'] : [])],
          fts_count: r.legs.keyword ?? 0,
          semantic_count: r.legs.vector ?? 0,
          results,
          ...page(r),
          ...(r.notices.length ? { warnings: r.notices } : {}),
          ...(a.explain_query ? { stats: statsOf(r, a, storeNames(ctx.engine.backend)) } : {}),
        });
      }),
    );
  }
}
