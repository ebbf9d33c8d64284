// The context server's read tools on Trove's memory store: get_context_by_ids, list_threads,
// get_statistics and search_context (filters only, newest first).
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { notFound } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { contextEntry, entryOutput, filterCount, filterFields, jsonResult, pageFields, storeNames, toFilters } from './memory-shapes.js';
import { guarded } from './results.js';
import { convertedOnce } from './schema-cache.js';

export const MEMORY_READ_TOOLS = ['get_context_by_ids', 'list_threads', 'get_statistics', 'search_context'] as const;

const getInput = convertedOnce(
  z.object({
    context_ids: z.array(z.number().int().min(1)).min(1).max(1000).describe('Entry ids'),
    include_images: z.boolean().default(true).describe('Include image data (default true)'),
  }),
);
const getOutput = convertedOnce(z.object({ result: z.array(entryOutput), not_found: z.array(z.number().int()) }));

const threadsOutput = convertedOnce(
  z.object({
    threads: z.array(
      z.object({
        thread_id: z.string(),
        entry_count: z.number().int(),
        source_types: z.number().int(),
        multimodal_count: z.number().int(),
        first_entry: z.string(),
        last_entry: z.string(),
        last_id: z.number().int(),
      }),
    ),
    total_threads: z.number().int(),
  }),
);

const status = z.object({ enabled: z.boolean(), available: z.boolean() }).catchall(z.unknown());
const statisticsOutput = convertedOnce(
  z.object({
    total_entries: z.number().int(),
    total_threads: z.number().int(),
    by_source: z.record(z.string(), z.number()),
    by_content_type: z.record(z.string(), z.number()),
    total_images: z.number().int(),
    unique_tags: z.number().int(),
    database_size_mb: z.number(),
    semantic_search: status,
    fts: status,
    chunking: status,
    reranking: status,
    summary: status,
    search_metrics: z.array(z.object({ query_type: z.string(), count: z.number().int(), avg_execution_time_ms: z.number(), last_search: z.string().nullable() })),
  }),
);

const searchInput = convertedOnce(z.object({ ...filterFields, ...pageFields(30) }));
const searchOutput = convertedOnce(
  z.object({
    results: z.array(entryOutput),
    count: z.number().int(),
    total: z.number().int().describe('Entries matching the filters in all'),
    has_more: z.boolean(),
    stats: z.record(z.string(), z.unknown()).optional(),
  }),
);

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
// once per process like every other schema here: made inside a registration, its JSON Schema was converted again on every call (~50 µs)
const noInput = convertedOnce(z.object({}));

export function registerMemoryReadTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  const m = ctx.engine.memory;
  if (allowed('get_context_by_ids')) {
    server.registerTool(
      'get_context_by_ids',
      {
        title: 'Get context entries',
        description: 'Fetch entries by id with their full text (search results show the first 300 characters), metadata, tags and images.',
        inputSchema: getInput,
        outputSchema: getOutput,
        annotations: readOnly,
      },
      (a) =>
        guarded('get_context_by_ids', async () => {
          const entries = await m.get(a.context_ids, { includeImages: a.include_images });
          const found = new Set(entries.map((e) => e.id));
          const missing = [...new Set(a.context_ids)].filter((id) => !found.has(id));
          if (!entries.length) throw notFound(`no context entries with id${missing.length === 1 ? '' : 's'} ${missing.join(', ')}`);
          const result = entries.map((e) => contextEntry(e, { truncate: false, images: a.include_images }));
          return jsonResult({ result, not_found: missing }, result, missing.length ? [`Not found: ${missing.join(', ')}`] : []);
        }),
    );
  }

  if (allowed('list_threads')) {
    server.registerTool(
      'list_threads',
      {
        title: 'List threads',
        description: 'Every thread with its entry count, sources (1: user or agent only, 2: both), entries with images, first and last entry time and last id; most recent first.',
        inputSchema: noInput,
        outputSchema: threadsOutput,
        annotations: readOnly,
      },
      () =>
        guarded('list_threads', async () => {
          const threads = (await m.threads()).map((t) => ({
            thread_id: t.threadId,
            entry_count: t.entries,
            source_types: t.sourceTypes,
            multimodal_count: t.multimodal,
            first_entry: t.firstEntry,
            last_entry: t.lastEntry,
            last_id: t.lastId,
          }));
          return jsonResult({ threads, total_threads: threads.length });
        }),
    );
  }

  if (allowed('get_statistics')) {
    server.registerTool(
      'get_statistics',
      {
        title: 'Memory statistics',
        description:
          'Entries by source and content type, images, tags, database size; semantic search (model, vectors, entries still waiting for embedding), ' +
          'full-text search, reranking; and search metrics (count and mean time per kind of search).',
        inputSchema: noInput,
        outputSchema: statisticsOutput,
        annotations: readOnly,
      },
      () =>
        guarded('get_statistics', async () => {
          const s = await m.statistics();
          const coverage = s.semantic.chunks ? Math.round((s.semantic.vectors / s.semantic.chunks) * 10_000) / 100 : 0;
          return jsonResult({
            total_entries: s.entries,
            total_threads: s.threads,
            by_source: s.bySource,
            by_content_type: s.byContentType,
            total_images: s.images,
            unique_tags: s.uniqueTags,
            database_size_mb: Math.round((s.databaseBytes / (1024 * 1024)) * 100) / 100,
            semantic_search: {
              enabled: true,
              available: s.semantic.vectors > 0,
              backend: 'sqlite-vec',
              model: s.semantic.model,
              dimensions: s.semantic.dimensions,
              embedding_count: s.semantic.vectors,
              chunk_count: s.semantic.chunks,
              pending_embeddings: s.semantic.pendingChunks,
              coverage_percentage: coverage,
              ...(s.semantic.problem ? { message: s.semantic.problem } : {}),
            },
            fts: {
              enabled: true,
              available: true,
              language: 'multilingual',
              backend: storeNames(ctx.engine.backend).fts,
              engine: storeNames(ctx.engine.backend).engine,
              indexed_entries: s.keyword.indexedEntries,
              coverage_percentage: s.entries ? 100 : 0,
              segments: s.keyword.segments,
            },
            chunking: { enabled: true, available: true, chunk_size: 1500, chunk_overlap: 200, aggregation: 'best chunk per entry' },
            reranking: { enabled: s.reranker !== null, available: s.reranker !== null, provider: 'onnx', model: s.reranker },
            summary: { enabled: false, available: false },
            search_metrics: s.searches.map((x) => ({ query_type: x.type, count: x.count, avg_execution_time_ms: x.avgMs, last_search: x.lastAt })),
          });
        }),
    );
  }

  if (allowed('search_context')) {
    server.registerTool(
      'search_context',
      {
        title: 'Search context (filters)',
        description:
          'List entries by filters alone, newest first: thread, source, tags (any), content type, created dates, metadata equality and metadata_filters ' +
          '(eq, ne, gt, gte, lt, lte, in, not_in, exists, not_exists, contains, starts_with, ends_with, is_null, is_not_null, array_contains; nested keys with dots). ' +
          'Text is truncated to 300 characters; get_context_by_ids returns it whole.',
        inputSchema: searchInput,
        outputSchema: searchOutput,
        annotations: readOnly,
      },
      (a) =>
        guarded('search_context', async () => {
          const page = await m.list({ ...toFilters(a), limit: a.limit, offset: a.offset, includeImages: a.include_images });
          const results = page.entries.map((e) => contextEntry(e, { truncate: true, images: a.include_images }));
          return jsonResult({
            results,
            count: results.length,
            total: page.total,
            has_more: page.hasMore,
            ...(a.explain_query ? { stats: { execution_time_ms: page.tookMs, filters_applied: filterCount(a), rows_returned: results.length, backend: storeNames(ctx.engine.backend).backend } } : {}),
          });
        }),
    );
  }
}
