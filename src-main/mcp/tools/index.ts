// The tool set, registered for one caller: a token limited to some tools sees only those.
import type { McpServer } from '@modelcontextprotocol/server';
import type { McpContext } from '../context.js';
import { canUseTool } from '../security/access.js';
import { registerDocumentTools } from './document-tools.js';
import { registerSearchTools, SEARCH_TOOL_NAMES } from './search-tools.js';
import { registerStatusTool } from './status-tool.js';

export const TOOL_NAMES: readonly string[] = [...SEARCH_TOOL_NAMES, 'get', 'multi_get', 'status'];

export function registerTools(server: McpServer, ctx: McpContext): void {
  const allowed = (tool: string) => canUseTool(ctx.access, tool);
  registerSearchTools(server, ctx, allowed);
  registerDocumentTools(server, ctx, allowed);
  registerStatusTool(server, ctx, allowed);
}
