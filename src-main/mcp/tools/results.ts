// Turning engine answers and failures into MCP tool results. A TroveError becomes an isError
// result whose text says what went wrong and what to do; anything else is logged (no document
// text, no secrets) and reported as an internal error. A tool never throws at the client.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isTroveError } from '../../engine/index.js';

export function textResult(text: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structuredContent ? { structuredContent } : {}) };
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

const LABELS: Record<string, string> = {
  INVALID_INPUT: 'Invalid input',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict',
  IO: 'File system error',
  UNAVAILABLE: 'Unavailable',
  INTERNAL: 'Internal error',
};

export function failureResult(tool: string, err: unknown): CallToolResult {
  if (isTroveError(err)) {
    const suggestions = (err.details?.suggestions as string[] | undefined) ?? [];
    const hint = suggestions.length ? `\n\nDid you mean one of these?\n${suggestions.map((s) => `  - ${s}`).join('\n')}` : '';
    return errorResult(`${LABELS[err.code] ?? err.code}: ${err.message}${hint}`);
  }
  process.stderr.write(`[trove mcp] ${tool} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return errorResult(`Internal error: ${tool} failed unexpectedly; the Trove host log has the details`);
}

/** Runs a tool body, mapping any failure to an isError result. */
export async function guarded(tool: string, body: () => CallToolResult | Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return failureResult(tool, err);
  }
}

/** `file` as assistants see it: collection/path, which get and multi_get accept back. */
export function displayPath(collection: string, path: string): string {
  return `${collection}/${path}`;
}

/** Markdown stays Markdown; everything else is served as the plain text it was parsed into. */
export function mimeTypeFor(path: string): string {
  return /\.(md|markdown|mdx)$/i.test(path) ? 'text/markdown' : 'text/plain';
}

/** The collection's context note as a comment at the top of a document (as QMD does). */
export function withContext(text: string, context: string): string {
  return context ? `<!-- Context: ${context.replace(/-->/g, '-- >')} -->\n\n${text}` : text;
}
