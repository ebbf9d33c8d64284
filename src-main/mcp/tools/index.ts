// The tool set, registered for one caller: a token limited to some tools sees only those, and the
// memory tools appear only for a caller whose memory grant covers them (read: searches, get,
// threads, statistics; write: the store, update and delete tools too). A deep-research caller (its
// client or its token's profile) gets exactly search + fetch; every other caller gets QMD's tools,
// the knowledge toolset and the memory tools beside them.
import type { McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from '../context.js';
import { canUseMemoryTool, canUseTool } from '../security/access.js';
import { DEEP_RESEARCH_TOOL_NAMES, registerDeepResearchTools } from './deep-research-tools.js';
import { registerDocumentTools } from './document-tools.js';
import { KNOWLEDGE_TOOL_NAMES, MEMORY_KNOWLEDGE_TOOL_NAMES, registerKnowledgeTools, registerMemoryKnowledgeTools } from './knowledge-tools.js';
import { MEMORY_READ_TOOLS, registerMemoryReadTools } from './memory-read-tools.js';
import { MEMORY_SEARCH_TOOLS, registerMemorySearchTools } from './memory-search-tools.js';
import { MEMORY_WRITE_TOOLS, registerMemoryWriteTools } from './memory-write-tools.js';
import { PERSISTENCE_TOOLS, registerPersistenceTools } from './persistence-tools.js';
import { registerSearchTools, SEARCH_TOOL_NAMES } from './search-tools.js';
import { registerSpecSourceTools, SPEC_DOCUMENT_TOOL_NAMES, SPEC_MEMORY_TOOL_NAMES } from './spec-source-tools.js';
import { registerStatusTool } from './status-tool.js';

/** Memory tools a read grant covers (memory.search / memory.get among them); a write grant covers MEMORY_WRITE_TOOL_NAMES too. */
export const MEMORY_READ_TOOL_NAMES: readonly string[] = [...MEMORY_READ_TOOLS, ...MEMORY_SEARCH_TOOLS, ...PERSISTENCE_TOOLS, ...MEMORY_KNOWLEDGE_TOOL_NAMES, ...SPEC_MEMORY_TOOL_NAMES];
export const MEMORY_WRITE_TOOL_NAMES: readonly string[] = [...MEMORY_WRITE_TOOLS];

/** Every tool name a token can be limited to (the deep-research profile's `search` is QMD's name too). */
export const TOOL_NAMES: readonly string[] = [
  ...new Set([...SEARCH_TOOL_NAMES, 'get', 'multi_get', 'status', ...KNOWLEDGE_TOOL_NAMES, ...SPEC_DOCUMENT_TOOL_NAMES, ...MEMORY_WRITE_TOOL_NAMES, ...MEMORY_READ_TOOL_NAMES, ...DEEP_RESEARCH_TOOL_NAMES]),
];

/** Whether this caller is shown this tool (one of Trove's own). */
export function canCall(ctx: McpContext, tool: string): boolean {
  if (ctx.knowledge.profile === 'deep-research') return DEEP_RESEARCH_TOOL_NAMES.includes(tool) && canUseTool(ctx.access, tool);
  if (MEMORY_WRITE_TOOL_NAMES.includes(tool)) return canUseMemoryTool(ctx.access, tool, 'write');
  if (MEMORY_READ_TOOL_NAMES.includes(tool)) return canUseMemoryTool(ctx.access, tool, 'read');
  return TOOL_NAMES.includes(tool) && !(DEEP_RESEARCH_TOOL_NAMES.includes(tool) && !SEARCH_TOOL_NAMES.includes(tool)) && canUseTool(ctx.access, tool);
}

/** `only`: register just this tool (a stateless tools/call; see mcp/server.ts). */
export function registerTools(server: McpServer, ctx: McpContext, only?: string): void {
  const named = (tool: string) => only === undefined || tool === only;
  const allowed = (tool: string) => named(tool) && canUseTool(ctx.access, tool);
  if (ctx.knowledge.profile === 'deep-research') {
    registerDeepResearchTools(server, ctx, allowed);
    return;
  }
  const memory = (kind: 'read' | 'write') => (tool: string) => named(tool) && canUseMemoryTool(ctx.access, tool, kind);
  registerSearchTools(server, ctx, allowed);
  registerDocumentTools(server, ctx, allowed);
  registerStatusTool(server, ctx, allowed);
  registerKnowledgeTools(server, ctx, allowed);
  registerMemoryKnowledgeTools(server, ctx, memory('read'));
  registerSpecSourceTools(server, ctx, allowed, memory('read'));
  registerMemoryWriteTools(server, ctx, memory('write'));
  registerMemoryReadTools(server, ctx, memory('read'));
  registerMemorySearchTools(server, ctx, memory('read'));
  registerPersistenceTools(server, ctx, memory('read'));
}
