// The tool set, registered for one caller: a token limited to some tools sees only those, and the
// memory tools appear only for a caller whose memory grant covers them (read: searches, get,
// threads, statistics; write: the store, update and delete tools too).
import type { McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from '../context.js';
import { canUseMemoryTool, canUseTool } from '../security/access.js';
import { registerDocumentTools } from './document-tools.js';
import { MEMORY_READ_TOOLS, registerMemoryReadTools } from './memory-read-tools.js';
import { MEMORY_SEARCH_TOOLS, registerMemorySearchTools } from './memory-search-tools.js';
import { MEMORY_WRITE_TOOLS, registerMemoryWriteTools } from './memory-write-tools.js';
import { PERSISTENCE_TOOLS, registerPersistenceTools } from './persistence-tools.js';
import { registerSearchTools, SEARCH_TOOL_NAMES } from './search-tools.js';
import { registerStatusTool } from './status-tool.js';

/** Memory tools a read grant covers; a write grant covers MEMORY_WRITE_TOOL_NAMES too. */
export const MEMORY_READ_TOOL_NAMES: readonly string[] = [...MEMORY_READ_TOOLS, ...MEMORY_SEARCH_TOOLS, ...PERSISTENCE_TOOLS];
export const MEMORY_WRITE_TOOL_NAMES: readonly string[] = [...MEMORY_WRITE_TOOLS];

export const TOOL_NAMES: readonly string[] = [...SEARCH_TOOL_NAMES, 'get', 'multi_get', 'status', ...MEMORY_WRITE_TOOL_NAMES, ...MEMORY_READ_TOOL_NAMES];

/** Whether this caller is shown this tool (one of Trove's own). */
export function canCall(ctx: McpContext, tool: string): boolean {
  if (MEMORY_WRITE_TOOL_NAMES.includes(tool)) return canUseMemoryTool(ctx.access, tool, 'write');
  if (MEMORY_READ_TOOL_NAMES.includes(tool)) return canUseMemoryTool(ctx.access, tool, 'read');
  return TOOL_NAMES.includes(tool) && canUseTool(ctx.access, tool);
}

/** `only`: register just this tool (a stateless tools/call; see mcp/server.ts). */
export function registerTools(server: McpServer, ctx: McpContext, only?: string): void {
  const named = (tool: string) => only === undefined || tool === only;
  const allowed = (tool: string) => named(tool) && canUseTool(ctx.access, tool);
  const memory = (kind: 'read' | 'write') => (tool: string) => named(tool) && canUseMemoryTool(ctx.access, tool, kind);
  registerSearchTools(server, ctx, allowed);
  registerDocumentTools(server, ctx, allowed);
  registerStatusTool(server, ctx, allowed);
  registerMemoryWriteTools(server, ctx, memory('write'));
  registerMemoryReadTools(server, ctx, memory('read'));
  registerMemorySearchTools(server, ctx, memory('read'));
  registerPersistenceTools(server, ctx, memory('read'));
}
