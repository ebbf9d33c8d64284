// knowledge.search and knowledge.get requests, checked once at the room's door: shapes with
// zod (a wrong type is INVALID_INPUT naming the field), numbers clamped into their bounds.
import { z } from 'zod';
import { invalidInput } from '../errors.js';
import type { KnowledgeFilters, KnowledgeGetRequest, KnowledgeMode, KnowledgeSearchRequest, KnowledgeSpecFilters } from '../types/knowledge.js';
import { knob } from './options.js';

const strings = z.array(z.string().min(1)).max(50);
const order = z.enum(['relevance', 'recent']);

/**
 * The spec's per-source filters (spec-sources.ts applies them): its own keys are type-checked,
 * any other key is let through and reported as ignored rather than refused.
 */
const specFiltersShape = {
  media: z.object({ media_types: strings.optional(), date_from: z.string().min(1).optional(), date_to: z.string().min(1).optional(), order_by: order.optional() }).loose().optional(),
  notes: z.object({ keywords: strings.optional() }).loose().optional(),
  chats: z.object({ by: z.enum(['both', 'title', 'message']).optional(), character_id: z.number().int().optional(), sender: z.string().min(1).max(200).optional() }).loose().optional(),
  prompts: z.object({ fields: z.array(z.string()).max(50).optional() }).loose().optional(),
  characters: z.object({}).loose().optional(),
};

const filtersSchema = z
  .object({
    kinds: strings.optional(),
    date_from: z.string().min(1).optional(),
    date_to: z.string().min(1).optional(),
    tags: strings.optional(),
    path: z.string().min(1).max(1000).optional(),
    ...specFiltersShape,
  })
  .strict();

/** knowledge.get's id: a string, or a number (the spec's ids are "string | number"). */
const idSchema = z.union([
  z.string().trim().min(1, 'id is empty').max(4096),
  z.number().int('id must be a whole number').min(0, 'id must not be negative').max(Number.MAX_SAFE_INTEGER).transform(String),
]);

const searchSchema = z.object({
  query: z.string().trim().min(1, 'query is empty').max(4000, 'query is longer than 4000 characters'),
  limit: z.number().optional(),
  offset: z.number().int().min(0).max(100_000).optional(),
  snippet_length: z.number().optional(),
  sources: z.array(z.string().trim().min(1)).max(200).optional(),
  order_by: order.optional(),
  mode: z.enum(['keyword', 'semantic', 'hybrid']).optional(),
  filters: filtersSchema.optional(),
  exclude: z.array(z.string()).max(10_000).optional(),
});

const retrievalSchema = z
  .object({
    mode: z.enum(['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto']).optional(),
    snippet_length: z.number().optional(),
    max_tokens: z.number().optional(),
    chars_per_token: z.number().optional(),
    chunk_size_tokens: z.number().optional(),
    chunk_overlap_tokens: z.number().optional(),
    sibling_window: z.number().optional(),
    prefer_prechunked: z.boolean().optional(),
  })
  .strict();

const getSchema = z.object({
  source: z.enum(['documents', 'datasets', 'memory', 'notes', 'media', 'chats', 'characters', 'prompts']).optional(),
  id: idSchema.optional(),
  uri: z.string().trim().min(1, 'uri is empty').max(4096).optional(),
  // a result's loc passes back as it came: its other fields (line_start, heading_path, …) are not anchors
  loc: z
    .object({
      chunk_index: z.number().int().min(0).optional(),
      line: z.number().int().min(1).optional(),
      approx_offset: z.number().int().min(0).optional(),
      page: z.number().int().min(1).optional(),
    })
    .nullable()
    .optional()
    .transform((l) => l ?? undefined),
  query: z.string().max(4000).optional(),
  retrieval: retrievalSchema.optional(),
  cursor: z.string().max(1000).optional(),
  max_tokens_explicit: z.boolean().optional(),
});

export interface ValidSearch {
  query: string;
  limit: number;
  offset: number;
  snippetLength: number;
  sources: string[] | null;
  orderBy: 'relevance' | 'recent';
  mode: KnowledgeMode | null;
  /** Trove's filters, for every source searched. */
  filters: KnowledgeFilters;
  /** The spec's per-source filters (spec-sources.ts). */
  specFilters: KnowledgeSpecFilters;
  exclude: ReadonlySet<string>;
}

export function validateKnowledgeSearch(input: KnowledgeSearchRequest): ValidSearch {
  const r = parse(searchSchema, input, 'knowledge.search');
  const { media, notes, chats, prompts, characters, ...flat } = r.filters ?? {};
  const nested: KnowledgeSpecFilters = Object.fromEntries(Object.entries({ media, notes, chats, prompts, characters }).filter(([, v]) => v !== undefined));
  return {
    query: r.query,
    limit: knob('limit', r.limit),
    offset: r.offset ?? 0,
    snippetLength: knob('snippet_length', r.snippet_length),
    sources: r.sources?.length ? r.sources : null,
    orderBy: r.order_by ?? 'relevance',
    mode: r.mode ?? null,
    filters: flat,
    specFilters: nested,
    exclude: new Set(r.exclude ?? []),
  };
}

export type ValidGet = z.output<typeof getSchema>;

export function validateKnowledgeGet(input: KnowledgeGetRequest): ValidGet {
  const r = parse(getSchema, input, 'knowledge.get');
  if (r.id === undefined && r.uri === undefined) throw invalidInput('knowledge.get needs an id (with its source) or a trove:// uri');
  if (r.id !== undefined && r.uri !== undefined) throw invalidInput('give id or uri, not both');
  if (r.id !== undefined && r.source === undefined && !/^trove:\/\//i.test(r.id)) throw invalidInput('source is required with an id (documents, datasets or memory; or notes, media, chats)');
  return r;
}

function parse<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    throw invalidInput(`invalid ${what} request: ${where}${issue.message}`, { issues: parsed.error.issues });
  }
  return parsed.data;
}
