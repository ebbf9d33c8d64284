// The deep-research profile: exactly the two tools ChatGPT's connectors (and deep research)
// call, in the shapes they parse. search(query) → one text item holding
// {"results":[{"id","title","url"}]}; fetch(id) → one text item holding
// {"id","title","text","url","metadata"}. Ids and urls are the items' trove:// URIs, which fetch
// and the resource template both accept. Served to clients that introduce themselves as one
// (clientInfo.name `openai-mcp`) or whose token has the deep-research profile; everyone else
// keeps the canonical tools, QMD's `search` among them.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { sourceOfUri } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { scopeOf } from '../knowledge/caller.js';
import { markRedacted } from '../redaction.js';
import { guarded } from './results.js';
import { convertedOnce } from './schema-cache.js';

export const DEEP_RESEARCH_TOOL_NAMES: readonly string[] = ['search', 'fetch'];

/** Results search gives (the connector shows about this many). */
const SEARCH_RESULTS = 10;
/** The most text fetch returns (tokens at 4 characters each); a longer item says so in metadata. */
const FETCH_MAX_TOKENS = 50_000;

const searchInput = convertedOnce(z.object({ query: z.string().trim().min(1, 'query is empty').max(4000).describe('What to look for') }));
const searchOutput = convertedOnce(
  z.object({ results: z.array(z.object({ id: z.string().describe('Pass to fetch'), title: z.string(), url: z.string().describe('trove:// URI of the item') })) }),
);
const fetchInput = convertedOnce(z.object({ id: z.string().trim().min(1, 'id is empty').max(4096).describe('An id from search') }));
const fetchOutput = convertedOnce(
  z.object({ id: z.string(), title: z.string(), text: z.string(), url: z.string(), metadata: z.record(z.string(), z.unknown()) }),
);

export function registerDeepResearchTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  if (allowed('search')) {
    server.registerTool(
      'search',
      {
        title: 'Search',
        description: "Search the user's knowledge (documents, datasets, memory). Returns ids to pass to fetch.",
        inputSchema: searchInput,
        outputSchema: searchOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        guarded('search', async () => {
          const r = await ctx.engine.knowledge.search({ query: args.query, limit: SEARCH_RESULTS }, scopeOf(ctx.access));
          const structured = await ctx.engine.settings.redact({ results: r.results.map((x) => ({ id: x.uri, title: x.title, url: x.uri })) });
          return markRedacted({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured });
        }),
    );
  }
  if (allowed('fetch')) {
    server.registerTool(
      'fetch',
      {
        title: 'Fetch',
        description: 'The full text of one search result, by its id.',
        inputSchema: fetchInput,
        outputSchema: fetchOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        guarded('fetch', async () => {
          const id = args.id;
          const uri = /^trove:\/\//i.test(id);
          const r = await ctx.engine.knowledge.get(
            { ...(uri ? { uri: id } : { source: 'documents', id }), retrieval: { mode: 'full', max_tokens: FETCH_MAX_TOKENS } },
            scopeOf(ctx.access),
          );
          const m = r.meta;
          const structured = await ctx.engine.settings.redact({
            id,
            title: m.title,
            text: r.content,
            url: m.uri,
            metadata: {
              source: uri ? sourceOfUri(id) : m.source,
              ...(m.collection ? { collection: m.collection } : {}),
              ...(m.dataset ? { dataset: m.dataset } : {}),
              ...(m.thread_id ? { thread_id: m.thread_id } : {}),
              path: m.path,
              kind: m.kind,
              tags: m.tags,
              last_modified: m.last_modified,
              ...(r.retrieval.next_cursor ? { truncated: true, total_chars: r.retrieval.total_chars } : {}),
            },
          }); // redacted before the text is made from it: the text block is the JSON of structuredContent
          return markRedacted({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured });
        }),
    );
  }
}
