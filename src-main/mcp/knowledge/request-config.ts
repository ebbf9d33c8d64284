// Safe per-request config for the knowledge tools: an optional base64 JSON `config` query
// parameter on the MCP URL (and the same keys as `config` in a 2025 initialize's params, which
// become that session's defaults). Only non-secret knobs are read — snippet_length, max_tokens,
// sibling_window, order_by, chars_per_token — each clamped to its bounds; any other key is
// ignored with a log line naming it (never its value), and nothing here can carry a credential
// or reach a source the token may not see. Precedence, per knob:
//   tool input > session defaults > request config > global defaults.
import { clampKnob, KNOWLEDGE_DEFAULTS, type KnowledgeOrder } from '../../engine/index.js';

export interface KnowledgeDefaults {
  snippet_length?: number;
  max_tokens?: number;
  sibling_window?: number;
  order_by?: KnowledgeOrder;
  chars_per_token?: number;
}

export const CONFIG_KEYS = ['snippet_length', 'max_tokens', 'sibling_window', 'order_by', 'chars_per_token'] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

const MAX_CONFIG_CHARS = 4096;
/** Messages already written, per log: a client sends its URL's config with every request, the log needs it once. */
const logged = new WeakMap<(line: string) => void, Set<string>>();

function logOnce(message: string, log: (line: string) => void): void {
  let seen = logged.get(log);
  if (!seen) logged.set(log, (seen = new Set()));
  if (seen.has(message)) return;
  if (seen.size > 256) seen.clear();
  seen.add(message);
  log(`[trove mcp] config: ${message}`);
}

const stderr = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The knobs a config holds, clamped. `raw` is the query parameter's base64 (standard or URL-safe)
 * JSON, or an object (initialize's params.config). Anything unreadable is ignored, with a log line.
 */
export function parseKnowledgeConfig(raw: unknown, log: (line: string) => void = stderr): KnowledgeDefaults {
  if (raw === undefined || raw === null || raw === '') return {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.length > MAX_CONFIG_CHARS) {
      logOnce(`ignored: longer than ${MAX_CONFIG_CHARS} characters`, log);
      return {};
    }
    try {
      value = JSON.parse(Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
    } catch {
      logOnce('ignored: not base64-encoded JSON', log);
      return {};
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    logOnce('ignored: not a JSON object', log);
    return {};
  }
  const out: KnowledgeDefaults = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      logOnce(`key "${key.slice(0, 40)}" ignored (accepted: ${CONFIG_KEYS.join(', ')})`, log);
      continue;
    }
    const k = key as ConfigKey;
    if (k === 'order_by') {
      if (v === 'relevance' || v === 'recent') out.order_by = v;
      else logOnce('order_by ignored: use "relevance" or "recent"', log);
      continue;
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      logOnce(`${k} ignored: not a number`, log);
      continue;
    }
    out[k] = clampKnob(k, v);
  }
  return out;
}

/** A knob's value by precedence, and whether anyone set it (auto retrieval needs to know). */
export function pick<K extends ConfigKey>(
  key: K,
  tool: KnowledgeDefaults[K] | undefined,
  session: KnowledgeDefaults,
  request: KnowledgeDefaults,
): { value: NonNullable<KnowledgeDefaults[K]>; explicit: boolean } {
  const chosen = tool ?? session[key] ?? request[key];
  if (chosen !== undefined) return { value: chosen as NonNullable<KnowledgeDefaults[K]>, explicit: true };
  return { value: KNOWLEDGE_DEFAULTS[key] as NonNullable<KnowledgeDefaults[K]>, explicit: false };
}
