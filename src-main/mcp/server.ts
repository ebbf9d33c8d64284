// Builds the Trove MCP server for one caller (one HTTP request on 2026-07-28, one session on the
// 2025 revisions, one stdio connection). Cheap by design: registrations only, no I/O — the
// stateless revision builds one per request.
import { McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from './context.js';
import { registerPrompts } from './prompts.js';
import { redactRegistrations } from './redaction.js';
import { registerDocumentResource } from './resources.js';
import { registerTools } from './tools/index.js';

export const SERVER_INFO = { name: 'trove', title: 'Trove', version: '0.1.0' } as const;

const INSTRUCTIONS = [
  "Trove searches the user's local documents (notes, docs, papers, code), grouped in collections.",
  'Start with `search` (keyword) — `vsearch` (semantic) and `query` (hybrid + rerank) need embeddings; `status` lists the collections and says whether embeddings exist.',
  'Read what you find with `get` (file or #docid from a result; `file.md:120` starts at line 120) or `multi_get` (glob or list).',
  'Documents are also resources: trove://{collection}/{path}.',
  '`knowledge.search` searches every source (documents, datasets, memory) at once with scores comparable across them; read a result with `knowledge.get` in a retrieval mode (snippet, chunk, chunk_with_siblings, full) under a token budget (max_tokens).',
].join('\n');

const DEEP_RESEARCH_INSTRUCTIONS = "Trove searches the user's local knowledge. Call `search` with a query, then `fetch` with a result's id for its text.";

/** Adds registrations after Trove's own (tests use it for the conformance suite's named fixtures). */
export type ServerExtension = (server: McpServer, ctx: McpContext) => void;

export function buildMcpServer(ctx: McpContext, extend?: ServerExtension): McpServer {
  const server = new McpServer(SERVER_INFO, {
    // logging must be declared or logging/setLevel is "method not found"; tools, resources,
    // prompts and completions are declared by their registrations
    capabilities: { logging: {} },
    instructions: ctx.knowledge.profile === 'deep-research' ? DEEP_RESEARCH_INSTRUCTIONS : INSTRUCTIONS,
  });
  redactRegistrations(server, (v) => ctx.engine.settings.redact(v)); // before any registration: every result is redacted
  registerTools(server, ctx);
  registerDocumentResource(server, ctx);
  registerPrompts(server, ctx);
  extend?.(server, ctx);
  return server;
}
