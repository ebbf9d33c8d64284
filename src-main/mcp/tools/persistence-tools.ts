// The conversation-persistence server's semantic_search and hybrid_search on Trove's memory
// store: conversations are threads, messages are entries (conversationId = thread id,
// messageId = entry id). Inputs, defaults and result fields as that server's design gives them;
// totalCount counts every match found (not just the page) and hasMore says whether a next page has any.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { guarded } from './results.js';
import { jsonResult } from './memory-shapes.js';
import { convertedOnce } from './schema-cache.js';

export const PERSISTENCE_TOOLS = ['semantic_search', 'hybrid_search'] as const;

const base = {
  query: z.string().trim().min(1, 'query is empty').max(4000).describe('Search query'),
  limit: z.number().int().min(1).max(100).default(20).describe('Maximum results to return'),
  offset: z.number().int().min(0).default(0).describe('Number of results to skip'),
  conversationId: z.string().min(1).optional().describe('Limit search to one conversation'),
  startDate: z.string().min(1).optional().describe('Filter by start date (ISO 8601)'),
  endDate: z.string().min(1).optional().describe('Filter by end date (ISO 8601)'),
};

const semanticInput = convertedOnce(z.object({ ...base, threshold: z.number().min(0).max(1).default(0.7).describe('Minimum similarity (cosine, default 0.7)') }));
const hybridInput = convertedOnce(
  z.object({
    ...base,
    matchType: z.enum(['fuzzy', 'exact', 'prefix']).default('fuzzy').describe('Keyword side: fuzzy (ranked words), exact (phrase) or prefix'),
    weights: z
      .object({ semantic: z.number().min(0).max(1).default(0.6), fts: z.number().min(0).max(1).default(0.4) })
      .refine((w) => Math.abs(w.semantic + w.fts - 1) < 0.01, { message: 'Weights must sum to 1' })
      .optional()
      .describe('{semantic, fts}, summing to 1 (default 0.6 / 0.4)'),
  }),
);

const pagination = { totalCount: z.number().int(), hasMore: z.boolean() };
const semanticOutput = convertedOnce(
  z.object({
    results: z.array(z.object({ messageId: z.string(), conversationId: z.string(), content: z.string(), similarity: z.number(), preview: z.string() })),
    ...pagination,
    metadata: z.object({ model: z.string(), threshold: z.number(), searchDuration: z.number() }),
  }),
);
const hybridOutput = convertedOnce(
  z.object({
    results: z.array(
      z.object({
        messageId: z.string(),
        conversationId: z.string(),
        content: z.string(),
        score: z.number(),
        highlights: z.array(z.string()),
        matchType: z.literal('hybrid'),
        subScores: z.object({ fts: z.number().optional(), semantic: z.number().optional() }),
      }),
    ),
    ...pagination,
    metadata: z.object({ queryType: z.literal('hybrid'), weights: z.object({ semantic: z.number(), fts: z.number() }), searchDuration: z.number(), model: z.string().nullable(), warnings: z.array(z.string()).optional() }),
    pagination: z.object({ offset: z.number().int(), limit: z.number().int() }),
  }),
);

const SYNTAX = { fuzzy: 'match', exact: 'phrase', prefix: 'prefix' } as const;
const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

export function registerPersistenceTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  const m = ctx.engine.memory;
  if (allowed('semantic_search')) {
    server.registerTool(
      'semantic_search',
      {
        title: 'Semantic search of messages',
        description: 'Search stored messages (memory entries) by meaning with a local embedding model; only messages at least `threshold` similar are returned.',
        inputSchema: semanticInput,
        outputSchema: semanticOutput,
        annotations: readOnly,
      },
      (a) =>
        guarded('semantic_search', async () => {
          const r = await m.search({ query: a.query, mode: 'vector', limit: a.limit, offset: a.offset, threadId: a.conversationId, startDate: a.startDate, endDate: a.endDate, minSimilarity: a.threshold });
          return jsonResult({
            results: r.hits.map((h) => ({ messageId: String(h.entry.id), conversationId: h.entry.threadId, content: h.entry.text, similarity: h.vector?.cosine ?? h.score, preview: h.snippet })),
            totalCount: r.total,
            hasMore: r.hasMore,
            metadata: { model: r.model ?? '', threshold: a.threshold, searchDuration: r.timings.totalMs },
          });
        }),
    );
  }
  if (allowed('hybrid_search')) {
    server.registerTool(
      'hybrid_search',
      {
        title: 'Hybrid search of messages',
        description: 'Search stored messages by meaning and by keyword at once, combined by weights (semantic 0.6, fts 0.4 by default). Without vectors yet, keyword results only (said in metadata.warnings).',
        inputSchema: hybridInput,
        outputSchema: hybridOutput,
        annotations: readOnly,
      },
      (a) =>
        guarded('hybrid_search', async () => {
          const weights = { semantic: a.weights?.semantic ?? 0.6, fts: a.weights?.fts ?? 0.4 };
          const r = await m.search({
            query: a.query,
            mode: 'hybrid',
            syntax: SYNTAX[a.matchType],
            fusion: { method: 'weighted', keyword: weights.fts, semantic: weights.semantic },
            limit: a.limit,
            offset: a.offset,
            threadId: a.conversationId,
            startDate: a.startDate,
            endDate: a.endDate,
            highlight: true,
          });
          return jsonResult({
            results: r.hits.map((h) => ({
              messageId: String(h.entry.id),
              conversationId: h.entry.threadId,
              content: h.entry.text,
              score: h.score,
              highlights: highlightsOf(h.highlighted ?? ''),
              matchType: 'hybrid' as const,
              subScores: { ...(h.keyword ? { fts: h.keyword.score } : {}), ...(h.vector ? { semantic: h.vector.cosine } : {}) },
            })),
            totalCount: r.total,
            hasMore: r.hasMore,
            metadata: { queryType: 'hybrid' as const, weights, searchDuration: r.timings.totalMs, model: r.model, ...(r.notices.length ? { warnings: r.notices } : {}) },
            pagination: { offset: a.offset, limit: a.limit },
          });
        }),
    );
  }
}

/** Up to three short passages around the <mark>ed matches of the highlighted text. */
function highlightsOf(marked: string): string[] {
  let plain = '';
  let last = 0;
  const ranges: [number, number][] = [];
  for (const m of marked.matchAll(/<mark>([\s\S]*?)<\/mark>/g)) {
    plain += marked.slice(last, m.index);
    ranges.push([plain.length, plain.length + m[1]!.length]);
    plain += m[1];
    last = m.index + m[0].length;
  }
  plain += marked.slice(last);
  const out: string[] = [];
  let covered = 0;
  for (const [from, to] of ranges) {
    if (out.length >= 3) break;
    if (from < covered) continue;
    const start = Math.max(covered, from - 60);
    const end = Math.min(plain.length, to + 60);
    let piece = '';
    let at = start;
    for (const [a, b] of ranges) {
      if (a < start || b > end) continue;
      piece += `${plain.slice(at, a)}<mark>${plain.slice(a, b)}</mark>`;
      at = b;
    }
    piece += plain.slice(at, end);
    out.push(`${start > 0 ? '…' : ''}${piece.trim()}${end < plain.length ? '…' : ''}`);
    covered = end;
  }
  return out;
}
