// The knowledge toolset beside QMD's: knowledge.search / knowledge.get across every source the
// token may see, the per-source documents.search / documents.get, and knowledge.session (a
// stateless client's handle, soft defaults, forgetting). Results are the spec's shapes, in
// structuredContent and as JSON text. Session state (dedupe, recent queries, defaults) and the
// request's config are resolved here, by precedence: tool input > session > request config >
// global defaults; the engine clamps what it gets.
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { KnowledgeGetRequest, KnowledgeMode, KnowledgeSearchRequest, KnowledgeSearchResponse } from '../../engine/index.js';
import { clampKnob, KNOWLEDGE_DEFAULTS } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { callState, scopeOf, type CallState } from '../knowledge/caller.js';
import { CONFIG_KEYS, pick, type KnowledgeDefaults } from '../knowledge/request-config.js';
import { markRedacted } from '../redaction.js';
import { guarded } from './results.js';
import {
  datasetGetInput,
  datasetsSearchInput,
  documentsSearchInput,
  getOutput,
  knowledgeGetInput,
  knowledgeSearchInput,
  knowledgeSessionInput,
  memorySearchInput,
  searchOutput,
  sessionOutput,
  sourceGetInput,
} from './knowledge-schemas.js';

export const KNOWLEDGE_TOOL_NAMES: readonly string[] = [
  'knowledge.search',
  'knowledge.get',
  'knowledge.session',
  'documents.search',
  'documents.get',
  'datasets.search',
  'datasets.get',
];

/** The memory source's own tools: shown only to a caller whose memory grant lets it read (tools/index.ts). */
export const MEMORY_KNOWLEDGE_TOOL_NAMES: readonly string[] = ['memory.search', 'memory.get'];

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** knowledge.search's default page: the spec's aggregator returns 20 (its per-source searches, like documents.search here, 10). */
export const KNOWLEDGE_SEARCH_LIMIT = 20;

export interface SearchArgs {
  query: string;
  limit?: number;
  offset?: number;
  snippet_length?: number;
  order_by?: 'relevance' | 'recent';
  filters?: KnowledgeSearchRequest['filters'];
  mode?: KnowledgeMode;
  session?: string;
  dedupe?: boolean;
}

export function registerKnowledgeTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  if (allowed('knowledge.search')) {
    server.registerTool(
      'knowledge.search',
      {
        title: 'Search all knowledge',
        description:
          'Search every source you may see — collections of documents, registered datasets, memory — and get one ranked list ' +
          '(scores 0..1, comparable across sources). Each result has id, source, uri and loc: read it with knowledge.get. ' +
          'Pages with offset / next_offset; a session does not repeat results it already returned. ' +
          "Also takes the dataset form {dataset, query, topK}, and the knowledge spec's sources (notes, media, chats) with its per-source filters.",
        inputSchema: knowledgeSearchInput,
        outputSchema: searchOutput,
        annotations: READ_ONLY,
      },
      (args, extra) =>
        guarded('knowledge.search', async () => {
          const sources = args.dataset ? [`datasets:${args.dataset}`, ...(args.sources ?? [])] : args.sources;
          const limit = args.topK ?? args.limit ?? (args.dataset ? await defaultTopK(ctx, args.dataset) : KNOWLEDGE_SEARCH_LIMIT);
          return runSearch(ctx, extra, { ...args, limit }, sources);
        }),
    );
  }
  if (allowed('knowledge.get')) {
    server.registerTool(
      'knowledge.get',
      {
        title: 'Read a knowledge item',
        description:
          'Read one result (source + id, or its trove:// uri) in a retrieval mode under a token budget: snippet (default), chunk, ' +
          'chunk_with_siblings (the anchor chunk and its neighbours while they fit max_tokens), full (paged by cursor), or auto. ' +
          "Pass the result's loc to anchor on its best passage; tokens are estimated as ceil(chars / chars_per_token) and never exceed max_tokens.",
        inputSchema: knowledgeGetInput,
        outputSchema: getOutput,
        annotations: READ_ONLY,
      },
      (args, extra) => guarded('knowledge.get', () => runGet(ctx, extra, args)),
    );
  }
  if (allowed('knowledge.session')) {
    server.registerTool(
      'knowledge.session',
      {
        title: 'Knowledge session',
        description:
          "This client's knowledge session: its handle (stateless clients send it back as `session`), soft defaults for later calls, " +
          'how many results it has returned. Set defaults, forget what was returned, or end it.',
        inputSchema: knowledgeSessionInput,
        outputSchema: sessionOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      (args, extra) => guarded('knowledge.session', () => runSession(ctx, extra, args)),
    );
  }
  if (allowed('documents.search')) {
    server.registerTool(
      'documents.search',
      {
        title: 'Search documents',
        description: "Search the collections' documents (all you may see, or some by name) with the knowledge result shape; read results with documents.get.",
        inputSchema: documentsSearchInput,
        outputSchema: searchOutput,
        annotations: READ_ONLY,
      },
      (args, extra) =>
        guarded('documents.search', () => runSearch(ctx, extra, args, args.collections?.length ? args.collections.map((c) => `documents:${c}`) : ['documents'])),
    );
  }
  if (allowed('datasets.search')) {
    server.registerTool(
      'datasets.search',
      {
        title: 'Search datasets',
        description:
          'Search registered datasets (FAISS indexes and folders of documents): every ready one, some by id, or one with {dataset, query, topK}. ' +
          'Same result shape as knowledge.search; read results with datasets.get.',
        inputSchema: datasetsSearchInput,
        outputSchema: searchOutput,
        annotations: READ_ONLY,
      },
      (args, extra) =>
        guarded('datasets.search', async () => {
          const ids = [...(args.dataset ? [args.dataset] : []), ...(args.datasets ?? [])];
          const limit = args.topK ?? args.limit ?? (ids.length === 1 ? await defaultTopK(ctx, ids[0]!) : undefined);
          return runSearch(ctx, extra, { ...args, limit }, ids.length ? ids.map((d) => `datasets:${d}`) : ['datasets']);
        }),
    );
  }
  if (allowed('datasets.get')) {
    server.registerTool(
      'datasets.get',
      {
        title: 'Read a dataset item',
        description:
          "Read one dataset item (its id `<dataset>:<ref>`, or dataset + the hit's ref, or its trove://~datasets/ uri) in a retrieval mode under a token budget, as knowledge.get does.",
        inputSchema: datasetGetInput,
        outputSchema: getOutput,
        annotations: READ_ONLY,
      },
      (args, extra) =>
        guarded('datasets.get', () => {
          const { dataset, ...rest } = args;
          const given = rest.id === undefined ? undefined : String(rest.id);
          const id = dataset && given !== undefined && !given.startsWith(`${dataset}:`) ? `${dataset}:${given}` : given;
          return runGet(ctx, extra, { ...rest, id, source: 'datasets' });
        }),
    );
  }
  if (allowed('documents.get')) {
    server.registerTool(
      'documents.get',
      {
        title: 'Read a document',
        description: 'Read one document (#docid, collection/path or trove:// uri) in a retrieval mode under a token budget, as knowledge.get does.',
        inputSchema: sourceGetInput,
        outputSchema: getOutput,
        annotations: READ_ONLY,
      },
      (args, extra) => guarded('documents.get', () => runGet(ctx, extra, { ...args, source: 'documents' })),
    );
  }
}

/** memory.search / memory.get: the knowledge shapes over the agent memory store alone. */
export function registerMemoryKnowledgeTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  if (allowed('memory.search')) {
    server.registerTool(
      'memory.search',
      {
        title: 'Search memory',
        description:
          'Search the agent memory (notes assistants stored, in threads) with the knowledge result shape: id (the entry id), source "memory", ' +
          'thread_id, uri trove://~memory/<id>, scores 0..1 comparable with knowledge.search. Read a result with memory.get (its thread around it).',
        inputSchema: memorySearchInput,
        outputSchema: searchOutput,
        annotations: READ_ONLY,
      },
      (args, extra) => guarded('memory.search', () => runSearch(ctx, extra, args, ['memory'])),
    );
  }
  if (allowed('memory.get')) {
    server.registerTool(
      'memory.get',
      {
        title: 'Read a memory entry',
        description:
          'Read one memory entry (its id or trove://~memory/ uri) in a retrieval mode under a token budget, as knowledge.get does: ' +
          'each message of its thread is a chunk, so chunk is the entry, chunk_with_siblings adds the messages beside it, full pages through the thread around it.',
        inputSchema: sourceGetInput,
        outputSchema: getOutput,
        annotations: READ_ONLY,
      },
      (args, extra) => guarded('memory.get', () => runGet(ctx, extra, { ...args, source: 'memory' })),
    );
  }
}

/** A search with the session's memory: already-returned results are passed over until none are left. */
export async function runSearch(ctx: McpContext, extra: ServerContext, args: SearchArgs, sources: string[] | undefined): Promise<CallToolResult> {
  const state = callState(ctx.knowledge, ctx.access, extra, args.session);
  const { session } = state;
  const snippet = pick('snippet_length', args.snippet_length, session.defaults, state.requestConfig);
  const order = pick('order_by', args.order_by, session.defaults, state.requestConfig);
  const request = {
    query: args.query,
    limit: args.limit,
    offset: args.offset,
    snippet_length: snippet.value,
    sources,
    order_by: order.value,
    mode: args.mode,
    filters: args.filters,
  };
  const scope = scopeOf(ctx.access);
  const dedupe = args.dedupe !== false;
  const notices = [...state.notices];
  let r: KnowledgeSearchResponse = await ctx.engine.knowledge.search({ ...request, exclude: dedupe ? [...session.seen] : undefined }, scope);
  if (dedupe && !r.results.length && r.skipped > 0) {
    // the results ran out: every one left was returned before in this session; start over
    r = await ctx.engine.knowledge.search(request, scope);
    notices.push('every result of this search was already returned in this session; returning them again');
  }
  ctx.knowledge.sessions.remember(session, dedupe ? r.results.map((x) => x.uri) : [], args.query); // dedupe off: this call neither skips nor counts
  if (!r.results.length) notices.push(`no results for "${args.query}"`);
  const structured = { ...r, notices: [...notices, ...r.notices], session: session.handle };
  return json(ctx, structured);
}

export async function runGet(ctx: McpContext, extra: ServerContext, args: KnowledgeGetRequest & { session?: string }): Promise<CallToolResult> {
  const state = callState(ctx.knowledge, ctx.access, extra, args.session);
  const { session } = state;
  const r = args.retrieval ?? {};
  const knob = <K extends 'snippet_length' | 'max_tokens' | 'sibling_window' | 'chars_per_token'>(k: K) => pick(k, r[k], session.defaults, state.requestConfig);
  const maxTokens = knob('max_tokens');
  const hasLoc = !!args.loc && Object.values(args.loc).some((v) => v !== undefined);
  const query = args.query ?? (hasLoc ? undefined : session.recentQueries.at(-1));
  const res = await ctx.engine.knowledge.get(
    {
      source: args.source,
      id: args.id,
      uri: args.uri,
      loc: args.loc,
      query,
      cursor: args.cursor,
      retrieval: {
        ...r,
        snippet_length: knob('snippet_length').value,
        max_tokens: maxTokens.value,
        sibling_window: knob('sibling_window').value,
        chars_per_token: knob('chars_per_token').value,
      },
      max_tokens_explicit: maxTokens.explicit,
    },
    scopeOf(ctx.access),
  );
  return json(ctx, { ...res, session: session.handle });
}

/**
 * The dataset's defaultTopK, the spec's default for {dataset, query, topK}; undefined when the
 * caller may not see it or it does not exist (the search then says so, as for any source).
 */
async function defaultTopK(ctx: McpContext, dataset: string): Promise<number | undefined> {
  const scope = scopeOf(ctx.access);
  if (scope.datasets && !scope.datasets.includes(dataset)) return undefined;
  try {
    return (await ctx.engine.datasets.info(dataset)).defaultTopK;
  } catch {
    return undefined;
  }
}

interface SessionArgs {
  session?: string;
  defaults?: KnowledgeDefaults;
  forget_seen?: boolean;
  end?: boolean;
}

function runSession(ctx: McpContext, extra: ServerContext, args: SessionArgs): Promise<CallToolResult> {
  const state: CallState = callState(ctx.knowledge, ctx.access, extra, args.session);
  const { session } = state;
  const sessions = ctx.knowledge.sessions;
  if (args.defaults) {
    for (const key of CONFIG_KEYS) {
      const v = args.defaults[key];
      if (v === undefined) continue;
      if (key === 'order_by') session.defaults.order_by = v as KnowledgeDefaults['order_by'];
      else session.defaults[key] = clampKnob(key, v as number);
    }
  }
  if (args.forget_seen) session.seen.clear();
  const ended = !!args.end && sessions.end(session.key, ctx.access.key);
  const effective = Object.fromEntries(
    CONFIG_KEYS.map((k) => [k, pick(k, undefined, session.defaults, state.requestConfig).value ?? KNOWLEDGE_DEFAULTS[k]]),
  ) as Required<KnowledgeDefaults>;
  return json(ctx, {
    session: session.handle,
    ended,
    protocol: session.protocol,
    client: session.client,
    defaults: effective,
    seen: ended ? 0 : session.seen.size,
    recent_queries: [...session.recentQueries],
    expires_in_seconds: ended ? 0 : Math.round(sessions.ttlMs() / 1000),
  });
}

/**
 * The result as structuredContent and as the same JSON in a text block (for clients that read
 * text). Redacted here, before the text is made, so the text is the JSON of what structuredContent
 * says — redacting the JSON text as a string would leave its highlight spans where they were (the
 * server's wrapper then passes it on: see markRedacted).
 */
async function json(ctx: McpContext, structured: Record<string, unknown>): Promise<CallToolResult> {
  const redacted = await ctx.engine.settings.redact(structured);
  return markRedacted({ content: [{ type: 'text', text: JSON.stringify(redacted) }], structuredContent: redacted });
}
