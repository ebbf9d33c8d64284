// The knowledge tools' input and output schemas (zod, converted to JSON Schema once per process).
// Inputs name every knob the spec has; numbers out of range are clamped by the engine, not
// refused (the spec's "clamp bounds"), while a wrong type is an isError naming the field.
import { z } from 'zod';
import { convertedOnce } from './schema-cache.js';

/** [start, end) spans (an array of two numbers: tuples' JSON Schema trips older validators, as search-tools.ts found). */
const spans = (of: string) => z.array(z.array(z.number().int().min(0)).length(2)).describe(`[start, end) offsets of the words the query searched for in ${of}`);

const sourceKind = z.enum(['documents', 'datasets', 'memory']);
/** A result's source: Trove's kind, or the spec's name when the search asked by it. */
const itemSource = z.enum(['documents', 'datasets', 'memory', 'notes', 'media', 'chats']);
const specSource = z.enum(['documents', 'datasets', 'memory', 'notes', 'media', 'chats', 'characters', 'prompts']);
const knowledgeMode = z.enum(['keyword', 'semantic', 'hybrid']).describe('keyword (BM25), semantic (vectors) or hybrid; default: hybrid where a source has vectors, else keyword');
const orderBy = z.enum(['relevance', 'recent']).describe('relevance (default): by score, ties by last_modified; recent: newest first');

export const filtersInput = z
  .object({
    kinds: z.array(z.string().min(1)).optional().describe('Document kinds: markdown, text, html, code, …'),
    date_from: z.string().min(1).optional().describe('Modified on or after (ISO 8601; memory entries: stored on or after)'),
    date_to: z.string().min(1).optional().describe('Modified on or before (ISO 8601; memory entries: stored on or before)'),
    tags: z.array(z.string().min(1)).optional().describe('Every tag must be present (memory tags ignore case)'),
    path: z.string().min(1).optional().describe('Glob over the item path (a bare name matches at any depth)'),
    // the knowledge-search spec's per-source filters (its other keys are let through and reported as ignored)
    media: z
      .object({
        media_types: z.array(z.string().min(1)).optional().describe('pdf, epub, docx, pptx, html, article, markdown, txt (video, audio, podcast, image: none here), or a Trove kind'),
        date_from: z.string().min(1).optional(),
        date_to: z.string().min(1).optional(),
        order_by: orderBy.optional(),
      })
      .loose()
      .optional()
      .describe('For the media source (documents of other kinds than notes)'),
    notes: z.object({ keywords: z.array(z.string().min(1)).optional().describe('Every keyword must be among the note\'s tags') }).loose().optional().describe('For the notes source (Markdown, text and code)'),
    chats: z
      .object({
        by: z.enum(['both', 'title', 'message']).optional(),
        character_id: z.number().int().optional(),
        sender: z.string().min(1).optional().describe('user or agent (assistant): who stored the message'),
      })
      .loose()
      .optional()
      .describe('For the chats source (the memory: conversations are threads)'),
    prompts: z.object({ fields: z.array(z.string()).optional() }).loose().optional().describe('Trove has no prompts: ignored'),
    characters: z.object({}).loose().optional().describe('Trove has no characters: ignored'),
  })
  .strict();

const sessionInput = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('The session handle a previous call returned (stateless clients): results already returned in it are not repeated');

/** Inputs shared by knowledge.search and the per-source searches. */
export const searchFields = {
  query: z.string().trim().min(1, 'query is empty').max(4000).describe('What to look for (natural language or keywords)'),
  limit: z.number().optional().describe('Results per page, 1..100 (default 10)'),
  offset: z.number().int().min(0).max(100_000).optional().describe('Start at this result (next_offset of the previous page)'),
  snippet_length: z.number().optional().describe('Snippet characters, 50..2000 (default 300)'),
  order_by: orderBy.optional(),
  filters: filtersInput.optional(),
  mode: knowledgeMode.optional(),
  session: sessionInput,
  dedupe: z.boolean().optional().describe('Leave out results this session already returned, and remember these (default true; false: neither)'),
};

export const knowledgeSearchInput = convertedOnce(
  z.object({
    ...searchFields,
    sources: z
      .array(z.string().trim().min(1))
      .optional()
      .describe(
        "documents, documents:<collection>, datasets, datasets:<id>, memory; or the spec's notes, media, chats (characters and prompts are skipped with a notice). Default: every source you may see",
      ),
    dataset: z.string().trim().min(1).optional().describe('Search one dataset ({dataset, query, topK}); same as sources ["datasets:<id>"]'),
    topK: z.number().int().min(1).max(100).optional().describe("With dataset: how many results (default: the dataset's defaultTopK)"),
  }),
);

export const documentsSearchInput = convertedOnce(
  z.object({ ...searchFields, collections: z.array(z.string().trim().min(1)).optional().describe('Only these collections (default: all you may see)') }),
);

export const memorySearchInput = convertedOnce(z.object(searchFields));

export const datasetsSearchInput = convertedOnce(
  z.object({
    ...searchFields,
    datasets: z.array(z.string().trim().min(1)).optional().describe('Only these datasets (default: every ready dataset)'),
    dataset: z.string().trim().min(1).optional().describe('One dataset'),
    topK: z.number().int().min(1).max(100).optional().describe("How many results (default: the dataset's defaultTopK)"),
  }),
);

export const retrievalInput = z
  .object({
    mode: z.enum(['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto']).optional().describe('Default snippet; auto: chunk_with_siblings when max_tokens is set, else snippet'),
    snippet_length: z.number().optional().describe('50..2000 (default 300)'),
    max_tokens: z.number().optional().describe('Token budget of the content, 16..100000 (default 5000); never exceeded'),
    chars_per_token: z.number().optional().describe('Characters per token for the estimate ceil(chars / chars_per_token), 1..16 (default 4)'),
    chunk_size_tokens: z.number().optional().describe('On-the-fly chunk size when the item has no chunks of its own (default 256)'),
    chunk_overlap_tokens: z.number().optional().describe('On-the-fly chunk overlap (default 32)'),
    sibling_window: z.number().optional().describe('Chunks on each side chunk_with_siblings may add, 0..20 (default 1)'),
    prefer_prechunked: z.boolean().optional().describe("Use the index's own chunks when the item has them (default true)"),
  })
  .strict();

const locInput = z
  .object({
    chunk_index: z.number().int().min(0).optional(),
    page: z.number().int().min(1).optional(),
    line: z.number().int().min(1).optional(),
    approx_offset: z.number().int().min(0).optional(),
  })
  .loose()
  .describe(
    "The anchor: a search result's loc as it came (its other fields are ignored), or a chunk_index, page, line or approx_offset (first given wins, in that order). " +
      "Without it, a light search for `query` (or the session's last query) picks one",
  );

export const getFields = {
  id: z
    .union([z.string().trim().min(1).max(4096), z.number().int().min(0)])
    .optional()
    .describe("The result's id (#docid, <dataset>:<ref>, memory entry id — a string or a number), or its uri"),
  uri: z.string().trim().min(1).max(4096).optional().describe('The trove:// URI of a result'),
  loc: locInput.optional(),
  query: z.string().max(4000).optional().describe('Words to anchor on when no loc is given'),
  retrieval: retrievalInput.optional(),
  cursor: z.string().max(1000).optional().describe('full mode: the next_cursor of the previous page'),
  session: sessionInput,
};

export const datasetGetInput = convertedOnce(
  z.object({ dataset: z.string().trim().min(1).optional().describe('The dataset, when id is a bare ref'), ...getFields }),
);

export const knowledgeGetInput = convertedOnce(
  z.object({ source: specSource.optional().describe("documents, datasets or memory, or the spec's notes, media, chats (optional with a trove:// uri)"), ...getFields }),
);
export const sourceGetInput = convertedOnce(z.object(getFields));

export const knowledgeSessionInput = convertedOnce(
  z.object({
    session: sessionInput,
    defaults: z
      .object({
        snippet_length: z.number().optional(),
        max_tokens: z.number().optional(),
        sibling_window: z.number().optional(),
        order_by: orderBy.optional(),
        chars_per_token: z.number().optional(),
      })
      .strict()
      .optional()
      .describe("Soft defaults for this session's knowledge calls (tool arguments still win)"),
    forget_seen: z.boolean().optional().describe('Forget which results were returned (searches may repeat them again)'),
    end: z.boolean().optional().describe('End the session now'),
  }),
);

// ---- outputs ---------------------------------------------------------------------------

const loc = z.object({
  chunk_index: z.number().int(),
  line_start: z.number().int().nullable(),
  line_end: z.number().int().nullable(),
  page: z.number().int().optional(),
  ocr_confidence: z.number().optional().describe("Present when the page's text was recognised by OCR from a scan or an image: its confidence, 0-100"),
  heading_path: z.array(z.string()).optional(),
});

export const knowledgeItem = z.object({
  id: z.string(),
  source: itemSource,
  collection: z.string().optional(),
  dataset: z.string().optional(),
  thread_id: z.string().optional(),
  title: z.string(),
  snippet: z.string().nullable(),
  highlights: spans('snippet'),
  uri: z.string(),
  path: z.string(),
  score: z.number().nullable().describe('0..1, comparable across sources and modes'),
  score_type: z.enum(['fts', 'semantic', 'hybrid']).nullable(),
  created_at: z.string().nullable(),
  last_modified: z.string().nullable(),
  version: z.number().nullable(),
  tags: z.array(z.string()).nullable(),
  kind: z.string().nullable(),
  loc: loc.nullable(),
  media_type: z.string().nullable().optional().describe('media: the type (pdf, html, txt, …)'),
  url: z.string().nullable().optional(),
  conversation_id: z.string().nullable().optional().describe('chats: the thread'),
  message_id: z.string().nullable().optional().describe('chats: the entry'),
  sender: z.string().nullable().optional().describe('chats: user or agent'),
});

export const searchOutput = convertedOnce(
  z.object({
    query: z.string(),
    results: z.array(knowledgeItem),
    has_more: z.boolean(),
    next_offset: z.number().int().nullable(),
    total_estimated: z.number().int().nullable(),
    offset: z.number().int(),
    limit: z.number().int(),
    order_by: orderBy,
    mode: z.enum(['keyword', 'semantic', 'hybrid', 'mixed']).nullable().describe('What ran: one mode, or mixed (see sources)'),
    sources: z.array(
      z.object({
        source: z.string(),
        kind: sourceKind,
        mode: knowledgeMode.nullable(),
        results: z.number().int(),
        took_ms: z.number(),
        notices: z.array(z.string()),
      }),
    ),
    skipped: z.number().int().describe('Results this session had already returned, passed over'),
    notices: z.array(z.string()),
    session: z.string().nullable().describe('Send back as `session` to continue this session (stateless clients)'),
    took_ms: z.number(),
  }),
);

export const getOutput = convertedOnce(
  z.object({
    meta: knowledgeItem,
    content: z.string(),
    highlights: spans('content'),
    attachments: z.array(z.record(z.string(), z.unknown())).nullable(),
    retrieval: z.object({
      mode: z.enum(['snippet', 'chunk', 'chunk_with_siblings', 'full']),
      tokens: z.number().int().describe('ceil(content characters / chars_per_token), never above max_tokens'),
      max_tokens: z.number().int(),
      chars_per_token: z.number(),
      chunks: z.array(z.number().int()),
      anchor: z.number().int().nullable(),
      anchored_by: z.enum(['loc', 'query', 'first']),
      chunking: z.enum(['prechunked', 'on_the_fly']),
      char_start: z.number().int(),
      char_end: z.number().int(),
      line_start: z.number().int().nullable(),
      line_end: z.number().int().nullable(),
      truncated: z.boolean(),
      next_cursor: z.string().nullable(),
      total_chars: z.number().int(),
    }),
    session: z.string().nullable(),
  }),
);

export const sessionOutput = convertedOnce(
  z.object({
    session: z.string().nullable().describe('The handle (stateless clients); null for a 2025 protocol session'),
    ended: z.boolean(),
    protocol: z.enum(['2025', '2026-07-28']),
    client: z.object({ name: z.string(), version: z.string().nullable() }).nullable(),
    defaults: z.object({
      snippet_length: z.number(),
      max_tokens: z.number(),
      sibling_window: z.number(),
      order_by: orderBy,
      chars_per_token: z.number(),
    }),
    seen: z.number().int().describe('Results returned in this session so far (remembered)'),
    recent_queries: z.array(z.string()),
    expires_in_seconds: z.number().int(),
  }),
);
