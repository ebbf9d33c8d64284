// Redaction: the user's saved rules (settings.json `redaction`, regex sources) replace their
// matches with [redacted] in everything this MCP server returns — tool results (search snippets,
// get, multi_get, their structured content) and resource reads. Applied in one place: every tool
// and resource callback is wrapped here, so no result builder has to remember. The index is unchanged.
import type { McpServer } from '@modelcontextprotocol/server';
import { TroveError } from '../engine/errors.js';
import { readSettings } from '../engine/settings/settings-store.js';

export const REDACTED = '[redacted]';

/** Keys whose string values are document text; locators (uri, file, docid, path) stay usable. */
const TEXT_KEYS = new Set(['text', 'snippet', 'title', 'context']);

const compiled = new Map<string, RegExp>();

function compile(sources: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const source of sources) {
    let re = compiled.get(source);
    if (!re) {
      try {
        re = new RegExp(source, 'gu');
      } catch {
        continue; // the store validates rules; a hand-edited bad one is skipped, not fatal
      }
      if (re.test('')) continue; // an empty match would redact between every character
      compiled.set(source, re);
    }
    out.push(re);
  }
  return out;
}

/** The text with every rule's matches replaced. */
export function redactText(text: string, rules: readonly RegExp[]): string {
  let out = text;
  for (const re of rules) {
    re.lastIndex = 0;
    out = out.replace(re, REDACTED);
  }
  return out;
}

/**
 * The rules in force for this profile now (read from settings.json, cached on its mtime). Fails
 * closed: when the file is broken (hand-edited), nothing is returned unredacted — the call fails
 * with the reason until the file is fixed.
 */
export function redactionRules(profileDir: string): RegExp[] {
  let redaction: readonly string[];
  try {
    redaction = readSettings(profileDir).redaction;
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `redaction rules cannot be read, so no document text is returned: ${(err as Error).message}`);
  }
  return compile(redaction);
}

/** A copy of a tool/resource result with document text redacted. */
export function redactResult<T>(value: T, rules: readonly RegExp[]): T {
  if (!rules.length) return value;
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return key !== null && TEXT_KEYS.has(key) ? redactText(v, rules) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value, null) as T;
}

type Callback = (...args: unknown[]) => unknown;

/** Wraps the server's registerTool/registerResource so every callback's result is redacted. */
export function redactRegistrations(server: McpServer, profileDir: string): void {
  const wrapLast = (args: unknown[]): unknown[] => {
    const cb = args[args.length - 1];
    if (typeof cb !== 'function') return args;
    const wrapped: Callback = async (...a) => redactResult(await (cb as Callback)(...a), redactionRules(profileDir));
    return [...args.slice(0, -1), wrapped];
  };
  const s = server as unknown as { registerTool: Callback; registerResource: Callback };
  const registerTool = s.registerTool.bind(server);
  const registerResource = s.registerResource.bind(server);
  s.registerTool = (...args) => registerTool(...wrapLast(args));
  s.registerResource = (...args) => registerResource(...wrapLast(args));
}
