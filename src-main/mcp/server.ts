// Builds the Trove MCP server for one caller (one HTTP request on 2026-07-28, one session on the
// 2025 revisions, one stdio connection). Cheap by design: registrations only, no I/O — the
// stateless revision builds one per request.
import { McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from './context.js';
import { registerPrompts } from './prompts.js';
import { redactRegistrations } from './redaction.js';
import { registerDocumentResource } from './resources.js';
import { canCall, registerTools } from './tools/index.js';

export const SERVER_INFO = { name: 'trove', title: 'Trove', version: '0.1.0' } as const;

const INSTRUCTIONS = [
  "Trove searches the user's local documents (notes, docs, papers, code), grouped in collections.",
  'Start with `search` (keyword) — `vsearch` (semantic) and `query` (hybrid + rerank) need embeddings; `status` lists the collections and says whether embeddings exist.',
  'Read what you find with `get` (file or #docid from a result; `file.md:120` starts at line 120) or `multi_get` (glob or list).',
  'Documents are also resources: trove://{collection}/{path}.',
  '`knowledge.search` searches every source (documents, datasets, memory) at once with scores comparable across them; read a result with `knowledge.get` in a retrieval mode (snippet, chunk, chunk_with_siblings, full) under a token budget (max_tokens).',
].join('\n');

const DEEP_RESEARCH_INSTRUCTIONS = "Trove searches the user's local knowledge. Call `search` with a query, then `fetch` with a result's id for its text.";

const MEMORY_INSTRUCTIONS = {
  read: 'Memory: notes assistants stored, in threads. Find them with `fts_search_context` (keyword), `semantic_search_context`, `hybrid_search_context` or `search_context` (filters); read whole entries with `get_context_by_ids`.',
  write:
    'Memory: store what you learn with `store_context` (thread_id, source, text, metadata, tags) and find it again later, in any conversation, with `fts_search_context`, ' +
    '`semantic_search_context`, `hybrid_search_context` or `search_context` (filters); `update_context` and `delete_context` change it.',
} as const;

/** Adds registrations after Trove's own (tests use it for the conformance suite's named fixtures). */
export type ServerExtension = (server: McpServer, ctx: McpContext) => void;

/**
 * `onlyTool`: a stateless 2026-07-28 tools/call names its tool in the Mcp-Name header; the server
 * built for it registers that tool alone (its schemas are cached) instead of all 21 and the
 * resource and prompts, which cost ~0.1 ms of every call (measured). A caller that may not use
 * the tool, or a header that does not match the body, gets "tool not found" as before.
 */
export function buildMcpServer(ctx: McpContext, extend?: ServerExtension, onlyTool?: string): McpServer {
  // a tool the caller may not use (or not one of Trove's): the whole server, so the answer is the usual "tool not found"
  const only = onlyTool !== undefined && canCall(ctx, onlyTool) ? onlyTool : undefined;
  const server = new McpServer(SERVER_INFO, {
    // logging must be declared or logging/setLevel is "method not found"; tools, resources,
    // prompts and completions are declared by their registrations
    capabilities: { logging: {} },
    instructions:
      ctx.knowledge.profile === 'deep-research'
        ? DEEP_RESEARCH_INSTRUCTIONS
        : ctx.access.memory === 'none'
          ? INSTRUCTIONS
          : `${INSTRUCTIONS}\n${MEMORY_INSTRUCTIONS[ctx.access.memory]}`,
  });
  redactRegistrations(server, (v) => ctx.engine.settings.redact(v)); // before any registration: every result is redacted
  registerTools(server, ctx, only);
  if (only === undefined) {
    registerDocumentResource(server, ctx);
    registerPrompts(server, ctx);
  }
  extend?.(server, ctx);
  return server;
}
