// search (keyword), vsearch (vector) and query (hybrid + rerank): one input and output shape,
// QMD-compatible. vsearch and query need embeddings; until the index has them the engine says so
// (TroveError UNAVAILABLE) and the caller gets that message as an isError result.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { pageUnit, type SearchResponse } from '../../engine/index.js';
import type { CollectionNotes, McpContext } from '../context.js';
import { collectionFilter } from '../security/access.js';
import { displayPath, guarded, textResult } from './results.js';
import { convertedOnce } from './schema-cache.js';

/** QMD's inputs; minScore's default is the tool's own (vsearch 0.3, as QMD's: cosine below that is noise). */
function inputWith(minScore: number) {
  return convertedOnce(
    z.object({
      query: z.string().trim().min(1, 'query is empty').max(4000).describe('What to look for'),
      limit: z.number().int().min(1).max(100).default(10).describe('Maximum number of results (default 10)'),
      minScore: z.number().min(0).max(1).default(minScore).describe(`Leave out results scoring below this (0..1, default ${minScore})`),
      collection: z.string().min(1).optional().describe('Search only this collection (see the status tool)'),
    }),
  );
}
export const searchInput = inputWith(0);
const vsearchInput = inputWith(0.3);

const hit = z.object({
  docid: z.string().describe('Short document id, e.g. #abc123; get accepts it'),
  file: z.string().describe('collection/path of the document'),
  title: z.string(),
  score: z.number().describe('Relevance 0..1, two decimals'),
  context: z.string().nullable().describe("The collection's context note (null when it has none)"),
  snippet: z.string().describe('Line-numbered excerpt around the best match'),
  highlights: z
    .array(z.array(z.number().int().min(0)).length(2))
    .describe("Where the snippet shows the query's words: [start, end) offsets into snippet; only the words the search used, whole words, stemmed forms included"),
  line: z.number().int().describe('Line of the best match; get with fromLine reads around it'),
  page: z.number().int().nullable().describe('Page of the best match: PDF page, slide, sheet, EPUB chapter or mbox message (1-based); null for formats without pages'),
  ocrConfidence: z
    .number()
    .optional()
    .describe('Present when the match is text recognised by OCR from a scan or an image: the page\'s recognition confidence, 0-100 (the text may hold recognition errors)'),
});
export const searchOutput = convertedOnce(
  z.object({
    results: z.array(hit),
    notices: z
      .array(z.string())
      .optional()
      .describe('What the search could not see or skipped, and why: how much of the index is embedded yet, a leg or the reranker left out'),
  }),
);

type Mode = 'keyword' | 'vector' | 'rerank';

const TOOLS: { name: string; mode: Mode; title: string; description: string; input: typeof searchInput }[] = [
  {
    name: 'search',
    mode: 'keyword',
    title: 'Keyword search',
    description:
      'Fast keyword search (BM25) over the indexed documents. Best for exact words, names, identifiers and error messages. ' +
      'Documents missing some of the words still rank, below those that have them all. Returns docid, file, title, score and a line-numbered snippet; ' +
      'read a document with get.',
    input: searchInput,
  },
  {
    name: 'vsearch',
    mode: 'vector',
    title: 'Semantic search',
    description:
      'Semantic (vector) search: finds documents by meaning, even without shared words. Write a natural-language question. ' +
      'Needs embeddings; if the index has none the result says so — use search instead.',
    input: vsearchInput,
  },
  {
    name: 'query',
    mode: 'rerank',
    title: 'Best-quality search',
    description:
      'Hybrid search: keyword and semantic results fused, then reranked by a cross-encoder. The best results, and the slowest. ' +
      'Needs embeddings; if the index has none the result says so — use search instead.',
    input: searchInput,
  },
];

export const SEARCH_TOOL_NAMES = TOOLS.map((t) => t.name);

export function registerSearchTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  for (const tool of TOOLS) {
    if (!allowed(tool.name)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: searchOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        guarded(tool.name, async () => {
          const collections = collectionFilter(ctx.access, args.collection);
          if (collections && !collections.length) return summarise(args.query, [], [], await ctx.directory.notes());
          const search = ctx.engine.search({
            query: args.query,
            mode: tool.mode,
            limit: args.limit,
            minScore: args.minScore, // 0 is 0: vsearch's 0.3 is its schema's default, not the engine's
            collections,
            freshness: false, // not part of the tool's output
          });
          const [response, notes] = await Promise.all([search, ctx.directory.notes()]);
          return summarise(args.query, response.results, response.notices ?? [], notes);
        }),
    );
  }
}

function summarise(query: string, results: SearchResponse['results'], notices: readonly string[], directory: CollectionNotes) {
  const structured = {
    results: results.map((r) => ({
      docid: `#${r.docid}`,
      file: displayPath(r.collection, r.path),
      title: r.title,
      score: Math.round(r.score * 100) / 100,
      context: directory.context(r.collection) || null,
      snippet: r.snippet,
      highlights: r.highlights,
      line: r.line,
      page: r.page,
      ...(r.ocr ? { ocrConfidence: r.ocr.confidence } : {}),
    })),
    ...(notices.length ? { notices: [...notices] } : {}),
  };
  const notes = notices.map((n) => `Note: ${n}`);
  if (!structured.results.length) return textResult([`No results found for "${query}"`, ...notes].join('\n'), structured);
  const lines = structured.results.map((r, i) => {
    const where = r.page !== null ? ` (${pageUnit(results[i]!.kind)} ${r.page}${r.ocrConfidence !== undefined ? `, OCR ${r.ocrConfidence}% confidence` : ''})` : '';
    return `${r.docid} ${Math.round(r.score * 100)}% ${r.file}${where} - ${r.title}`;
  });
  const head = `Found ${lines.length} result${lines.length === 1 ? '' : 's'} for "${query}":\n`;
  return textResult([head, ...lines, ...(notes.length ? ['', ...notes] : [])].join('\n'), structured);
}
