// Every tool and resource result this MCP server returns goes through the engine's redaction
// policy (Engine.settings.redact: secret-looking text, on by default, and the user's saved rules
// over document text). Applied in one
// place: the server's registerTool/registerResource are wrapped here, before any registration,
// so no result builder has to remember.
import type { McpServer } from '@modelcontextprotocol/server';

type Callback = (...args: unknown[]) => unknown;

/**
 * Results a tool redacted itself, through the same policy, before making a text block from its
 * structured content (knowledge tools): the wrapper passes them on instead of redacting twice.
 */
const redactedByTool = new WeakSet<object>();

export function markRedacted<T extends object>(result: T): T {
  redactedByTool.add(result);
  return result;
}

export function redactRegistrations(server: McpServer, redact: <T>(value: T) => Promise<T>): void {
  const wrapLast = (args: unknown[]): unknown[] => {
    const cb = args[args.length - 1];
    if (typeof cb !== 'function') return args;
    const wrapped: Callback = async (...a) => {
      const result = await (cb as Callback)(...a);
      return result && typeof result === 'object' && redactedByTool.has(result) ? result : redact(result);
    };
    return [...args.slice(0, -1), wrapped];
  };
  const s = server as unknown as { registerTool: Callback; registerResource: Callback };
  const registerTool = s.registerTool.bind(server);
  const registerResource = s.registerResource.bind(server);
  s.registerTool = (...args) => registerTool(...wrapLast(args));
  s.registerResource = (...args) => registerResource(...wrapLast(args));
}
