// The context server's shapes, shared by the memory tools: the filter parameters every search
// takes, the entry as results show it (snake_case, text truncated in searches, summary ''), and
// results as that server's clients read them — the JSON of the answer as the text content (what
// FastMCP sends) and the same object as structuredContent.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { MemoryEntry, MemoryFilters, MetadataOperator } from '../../engine/index.js';
import { jsonBacked, markRedacted } from '../redaction.js';

export const OPERATORS = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists',
  'contains', 'starts_with', 'ends_with', 'is_null', 'is_not_null', 'array_contains',
] as const satisfies readonly MetadataOperator[];

const metadataFilter = z.object({
  key: z.string().min(1).describe('Metadata key; nested keys with dots (team.name)'),
  operator: z.enum(OPERATORS).default('eq').describe('Comparison (default eq)'),
  value: z.unknown().optional().describe('What to compare with (not needed for exists, not_exists, is_null, is_not_null; a list for in and not_in)'),
  case_sensitive: z.boolean().default(false).describe('String comparisons ignore case unless true'),
});

export const filterFields = {
  thread_id: z.string().min(1).optional().describe('Only this thread'),
  source: z.enum(['user', 'agent']).optional().describe("Only entries from 'user' or 'agent'"),
  tags: z.array(z.string()).optional().describe('Entries with any of these tags (OR)'),
  content_type: z.enum(['text', 'multimodal']).optional().describe("'text' or 'multimodal' (has images)"),
  start_date: z.string().min(1).optional().describe('Created on or after (ISO 8601: 2025-11-29, 2025-11-29T10:00:00Z, +02:00; naive times are UTC)'),
  end_date: z.string().min(1).optional().describe('Created on or before (ISO 8601; a date alone means the end of that day)'),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional().describe('Exact matches, key = value (nested keys with dots)'),
  metadata_filters: z
    .array(metadataFilter)
    .optional()
    .describe(`Conditions on metadata: {key, operator, value, case_sensitive}; operators: ${OPERATORS.join(', ')}`),
};

export const pageFields = (defaultLimit: number) => ({
  limit: z.number().int().min(1).max(100).default(defaultLimit).describe(`Maximum results (1-100, default ${defaultLimit})`),
  offset: z.number().int().min(0).default(0).describe('Results to skip (pagination)'),
  include_images: z.boolean().default(false).describe('Include image data'),
  explain_query: z.boolean().default(false).describe('Include query statistics (timings, plan)'),
});

export type FilterArgs = { [K in keyof typeof filterFields]?: z.output<(typeof filterFields)[K]> };

/** What a stats block names as the store: the context server's words for its SQLite and PostgreSQL backends. */
export function storeNames(backend: 'sqlite' | 'postgres'): { backend: string; fts: string; vectors: string; engine: string } {
  return backend === 'postgres'
    ? { backend: 'postgresql', fts: 'postgresql', vectors: 'pgvector', engine: 'tsvector + postings (Porter terms, CJK bigrams, BM25 4/2/1)' }
    : { backend: 'sqlite', fts: 'sqlite', vectors: 'sqlite-vec', engine: 'fts5 (porter unicode61, CJK bigrams, BM25 4/2/1)' };
}

export function toFilters(a: FilterArgs): MemoryFilters {
  return {
    threadId: a.thread_id,
    source: a.source,
    tags: a.tags,
    contentType: a.content_type,
    startDate: a.start_date,
    endDate: a.end_date,
    metadata: a.metadata,
    metadataFilters: a.metadata_filters,
  };
}

/** How many filters a request carries (explain_query's filters_applied). */
export function filterCount(a: FilterArgs): number {
  const simple = [a.thread_id, a.source, a.tags?.length ? a.tags : undefined, a.content_type, a.start_date, a.end_date].filter((v) => v !== undefined).length;
  return simple + Object.keys(a.metadata ?? {}).length + (a.metadata_filters?.length ?? 0);
}

const image = z.object({ mime_type: z.string(), size_bytes: z.number().int(), data: z.string().optional() });

export const entryShape = {
  id: z.number().int(),
  thread_id: z.string(),
  source: z.enum(['user', 'agent']),
  content_type: z.enum(['text', 'multimodal']),
  text_content: z.string(),
  summary: z.string().describe("Always '' (Trove does not generate summaries)"),
  is_text_content_truncated: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  images: z.array(image).optional(),
};

export const entryOutput = z.object(entryShape);

/** Search results show this much text; get_context_by_ids the whole. */
export const TRUNCATE_CHARS = 300;

/** Cut at a word boundary when one is near the end (as the context server does), with '...'. */
export function truncate(text: string, max = TRUNCATE_CHARS): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  if (space > max * 0.7) cut = cut.slice(0, space);
  return { text: `${cut}...`, truncated: true };
}

export type ContextEntry = z.output<typeof entryOutput>;

export function contextEntry(e: MemoryEntry, opts: { truncate: boolean; images: boolean }): ContextEntry {
  const t = opts.truncate ? truncate(e.text) : { text: e.text, truncated: false };
  return {
    id: e.id,
    thread_id: e.threadId,
    source: e.source,
    content_type: e.contentType,
    text_content: t.text,
    summary: '',
    is_text_content_truncated: t.truncated,
    metadata: e.metadata,
    tags: e.tags,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    ...(opts.images ? { images: e.images.map((i) => ({ mime_type: i.mime_type, size_bytes: i.bytes, ...(i.data !== undefined ? { data: i.data } : {}) })) } : {}),
  };
}

/** The answer as JSON text (what the context server's clients parse) and as structuredContent. */
export function jsonResult(value: Record<string, unknown>, text: unknown = value, notes: string[] = []): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(text) }, ...notes.map((n) => ({ type: 'text' as const, text: n }))],
    structuredContent: value,
  };
  return jsonBacked(result, { structured: value, text, notes }); // redacted as objects, once (mcp/redaction.ts)
}

/**
 * A write's answer: ids, counts, fields changed, fixed messages and input errors — never stored
 * text, so none of the keys redaction reads (text, text_content, content, …: engine/redaction/policy.ts).
 * The wrapper passes it on as it is instead of walking it (a 100-entry batch answers 100 results).
 */
export function writeResult(value: WriteAnswer): CallToolResult {
  return markRedacted({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
}

/** What a write answers with (writeResult): no key holds stored text. */
export type WriteAnswer = Record<string, string | number | boolean | null | string[] | Record<string, string | number | boolean | null | string[]>[]> & {
  text?: never;
  text_content?: never;
  content?: never;
};

/** Images as the MCP input schemas take them. */
export const imageInput = z.object({
  data: z.string().min(1).describe('base64 (or a data: URL)'),
  mime_type: z.string().optional().describe('Default image/png'),
});
