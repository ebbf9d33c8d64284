// The search request every face sends to the engine, validated once here, and its filters resolved against the index.
import { z } from 'zod';
import { invalidInput } from '../errors.js';
import { KNOWN_KINDS } from '../ingest/parsers/index.js';
import type { ResolvedFilters } from '../store/filters.js';

export const searchRequestSchema = z.object({
  query: z.string().trim().min(1, 'query is empty').max(4000, 'query is longer than 4000 characters'),
  syntax: z.enum(['match', 'phrase', 'prefix', 'boolean']).default('match'),
  /** keyword: BM25 only; vector, hybrid and rerank need embeddings (see engine/embed). */
  mode: z.enum(['keyword', 'vector', 'hybrid', 'rerank']).default('keyword'),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).max(100_000).default(0),
  minScore: z.number().min(0).max(1).optional(),
  snippetChars: z.number().int().min(40).max(5000).default(300),
  explain: z.boolean().default(false),
  /** Per-result freshness (indexed_at, stale, pendingEmbedding): one stat per result; off for callers that do not show it. */
  freshness: z.boolean().default(true),
  collections: z.array(z.string().min(1)).optional(),
  path: z.string().min(1).optional(),
  kinds: z.array(z.string().min(1)).optional(),
  modifiedAfter: z.union([z.string(), z.number()]).optional(),
  modifiedBefore: z.union([z.string(), z.number()]).optional(),
  tags: z.array(z.string().min(1)).optional(),
});

export type SearchRequest = z.input<typeof searchRequestSchema>;
export type ValidSearchRequest = z.output<typeof searchRequestSchema>;

export function validateSearchRequest(input: unknown): ValidSearchRequest {
  const parsed = searchRequestSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    throw invalidInput(`invalid search request: ${where}${issue.message}`, { issues: parsed.error.issues });
  }
  return parsed.data;
}

/** A date filter: epoch milliseconds or anything Date.parse understands (2024-05-01, ISO 8601). */
export function parseDateFilter(value: string | number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidInput(`${name} is not a date: "${value}"`);
  return ms;
}

/** What resolving a request's filters asks the index: a collection's id by name (or its error), whether a kind is indexed. */
export interface FilterLookup {
  collectionId(name: string): Promise<number>;
  kindExists(kind: string): Promise<boolean>;
}

/** A valid request's filters as the storage takes them: collections by id, dates in epoch milliseconds. */
export async function resolveFilters(req: ValidSearchRequest, lookup: FilterLookup): Promise<ResolvedFilters> {
  // a kind nothing can have is a typo, not an empty result
  for (const k of req.kinds ?? []) {
    if (!KNOWN_KINDS.includes(k) && !(await lookup.kindExists(k))) throw invalidInput(`unknown kind "${k}" (kinds: ${KNOWN_KINDS.join(', ')})`);
  }
  return {
    collectionIds: req.collections ? await Promise.all(req.collections.map((n) => lookup.collectionId(n))) : undefined,
    pathGlob: req.path,
    kinds: req.kinds,
    modifiedAfterMs: parseDateFilter(req.modifiedAfter, 'modifiedAfter'),
    modifiedBeforeMs: parseDateFilter(req.modifiedBefore, 'modifiedBefore'),
    tags: req.tags,
  };
}
