// A memory search request as every face sends it, checked once (the filters by memory-filters.ts).
import { z } from 'zod';
import { invalidInput } from '../errors.js';
import { RRF_K } from '../search/fusion.js';
import type { MemorySearchRequest } from '../types/memory.js';
import type { ValidMemorySearch } from './memory-search.js';

const schema = z.object({
  query: z.string().trim().min(1, 'query is empty').max(4000, 'query is longer than 4000 characters'),
  mode: z.enum(['keyword', 'vector', 'hybrid', 'rerank']).default('keyword'),
  syntax: z.enum(['match', 'phrase', 'prefix', 'boolean']).default('match'),
  limit: z.number().int().min(1).max(100).default(10),
  offset: z.number().int().min(0).max(100_000).default(0),
  minSimilarity: z.number().min(0).max(1).optional(),
  fusion: z
    .union([
      z.object({ method: z.literal('rrf'), k: z.number().int().min(1).max(1000).default(RRF_K) }),
      z
        .object({ method: z.literal('weighted'), keyword: z.number().min(0).max(1), semantic: z.number().min(0).max(1) })
        .refine((w) => Math.abs(w.keyword + w.semantic - 1) < 0.01, { message: 'weights must add up to 1' }),
    ])
    .default({ method: 'rrf', k: RRF_K }),
  includeImages: z.boolean().default(false),
  highlight: z.boolean().default(false),
  snippetChars: z.number().int().min(40).max(2000).default(200),
  snippets: z.boolean().default(true),
});

export type CheckedSearch = ValidMemorySearch & { includeImages: boolean; highlight: boolean; snippetChars: number; snippets: boolean };

export function checkSearch(input: MemorySearchRequest): CheckedSearch {
  const { query, mode, syntax, limit, offset, minSimilarity, fusion, includeImages, highlight, snippetChars, snippets } = input;
  const parsed = schema.safeParse({ query, mode, syntax, limit, offset, minSimilarity, fusion, includeImages, highlight, snippetChars, snippets });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidInput(`invalid memory search: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  return { ...parsed.data, minSimilarity: parsed.data.minSimilarity };
}
