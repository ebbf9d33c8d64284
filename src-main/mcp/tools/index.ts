// The tool set, registered for one caller: a token limited to some tools sees only those. A
// deep-research caller (its client or its token's profile) gets exactly search + fetch; every
// other caller gets QMD's tools and the knowledge toolset beside them.
import type { McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from '../context.js';
import { canUseTool } from '../security/access.js';
import { DEEP_RESEARCH_TOOL_NAMES, registerDeepResearchTools } from './deep-research-tools.js';
import { registerDocumentTools } from './document-tools.js';
import { KNOWLEDGE_TOOL_NAMES, registerKnowledgeTools } from './knowledge-tools.js';
import { registerSearchTools, SEARCH_TOOL_NAMES } from './search-tools.js';
import { registerStatusTool } from './status-tool.js';

/** Every tool name a token can be limited to (the deep-research profile's `search` is QMD's name too). */
export const TOOL_NAMES: readonly string[] = [
  ...new Set([...SEARCH_TOOL_NAMES, 'get', 'multi_get', 'status', ...KNOWLEDGE_TOOL_NAMES, ...DEEP_RESEARCH_TOOL_NAMES]),
];

export function registerTools(server: McpServer, ctx: McpContext): void {
  const allowed = (tool: string) => canUseTool(ctx.access, tool);
  if (ctx.knowledge.profile === 'deep-research') {
    registerDeepResearchTools(server, ctx, allowed);
    return;
  }
  registerSearchTools(server, ctx, allowed);
  registerDocumentTools(server, ctx, allowed);
  registerStatusTool(server, ctx, allowed);
  registerKnowledgeTools(server, ctx, allowed);
}
