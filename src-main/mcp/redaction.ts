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

/** What a result's JSON text blocks were made from (jsonBacked): the wrapper redacts these and serialises again. */
interface JsonSource {
  structured: Record<string, unknown>;
  /** The value the first text block is the JSON of (often `structured` itself). */
  text: unknown;
  /** Further text blocks, as they are (notes with ids and counts, never stored text). */
  notes: string[];
}

const jsonSources = new WeakMap<object, JsonSource>();

/**
 * Marks a result whose first text block is the JSON of `source.text` and whose structuredContent
 * is `source.structured` (the memory and persistence tools): the wrapper redacts those objects
 * and serialises the text again, instead of scanning the JSON text as one more string — half the
 * scanning, and the text says exactly what structuredContent says. When redaction changes
 * nothing, the result goes out as built.
 */
export function jsonBacked<T extends object>(result: T, source: JsonSource): T {
  jsonSources.set(result, source);
  return result;
}

async function redactJsonBacked(result: object, src: JsonSource, redact: <T>(value: T) => Promise<T>): Promise<unknown> {
  const structured = await redact(src.structured);
  const text = src.text === src.structured ? structured : await redact(src.text);
  if (structured === src.structured && text === src.text) return result;
  return { ...result, content: [{ type: 'text', text: JSON.stringify(text) }, ...src.notes.map((n) => ({ type: 'text', text: n }))], structuredContent: structured };
}

export function redactRegistrations(server: McpServer, redact: <T>(value: T) => Promise<T>): void {
  const wrapLast = (args: unknown[]): unknown[] => {
    const cb = args[args.length - 1];
    if (typeof cb !== 'function') return args;
    const wrapped: Callback = async (...a) => {
      const result = await (cb as Callback)(...a);
      if (!result || typeof result !== 'object') return redact(result);
      if (redactedByTool.has(result)) return result;
      const json = jsonSources.get(result);
      return json ? redactJsonBacked(result, json, redact) : redact(result);
    };
    return [...args.slice(0, -1), wrapped];
  };
  const s = server as unknown as { registerTool: Callback; registerResource: Callback };
  const registerTool = s.registerTool.bind(server);
  const registerResource = s.registerResource.bind(server);
  s.registerTool = (...args) => registerTool(...wrapLast(args));
  s.registerResource = (...args) => registerResource(...wrapLast(args));
}
