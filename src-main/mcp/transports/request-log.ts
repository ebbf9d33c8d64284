// The live log of MCP client requests shown on the Connect screen: a bounded in-memory ring of
// what was asked (method, tool, a short preview of the arguments), by whom, how it ended and how
// long it took. It never keeps tokens, nor arguments beyond the preview; nothing is written to disk.
import type { ServerResponse } from 'node:http';
import { CLIENT_INFO_META_KEY } from '@modelcontextprotocol/server';

export interface McpRequestRecord {
  /** Increasing per process, so a listener can tell entries apart. */
  id: number;
  time: string;
  /** The client's own name (initialize clientInfo or the request's _meta), else the token's name. */
  client: string;
  /** The client's version as it gave it (clientInfo), when it did. */
  clientVersion: string | null;
  /** The token's name (never the secret). */
  token: string;
  /** 2025: a 2025-06-18 / 2025-11-25 session; 2026-07-28: the stateless revision. */
  protocol: '2025' | '2026-07-28';
  method: string;
  /** For tools/call: the tool's name. */
  tool: string | null;
  /** The arguments as JSON, cut to a few dozen characters. */
  preview: string | null;
  status: 'ok' | 'error';
  httpStatus: number;
  durationMs: number;
}

export const DEFAULT_REQUEST_LOG_SIZE = 200;
const PREVIEW_CHARS = 60;

export class McpRequestLog {
  private readonly entries: McpRequestRecord[] = [];
  private readonly listeners = new Set<(r: McpRequestRecord) => void>();
  private nextId = 1;

  constructor(private readonly size = DEFAULT_REQUEST_LOG_SIZE) {}

  /** Newest first. */
  list(): McpRequestRecord[] {
    return [...this.entries].reverse();
  }

  onRecord(listener: (r: McpRequestRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  add(r: Omit<McpRequestRecord, 'id'>): void {
    const record = { id: this.nextId++, ...r };
    this.entries.push(record);
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
    for (const l of this.listeners) l(record);
  }

  /**
   * Records each JSON-RPC request in `body` when `res` finishes. A 200 can still carry a JSON-RPC
   * error or a tool result with isError, so the response is scanned for those markers as it is
   * written (they only appear unescaped as structure, never inside a quoted text).
   */
  watch(res: ServerResponse, body: unknown, who: { client: { name: string; version: string | null } | null; token: string; protocol: '2025' | '2026-07-28' }): void {
    const requests = (Array.isArray(body) ? body : [body]).filter(isRequest);
    if (!requests.length) return;
    const started = performance.now();
    const time = new Date().toISOString();
    let failed = false;
    let tail = '';
    const scan = (chunk: unknown) => {
      if (failed || chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const text = tail + (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      if (/"isError":\s*true|"error":\s*\{\s*"code"/.test(text)) failed = true;
      tail = text.slice(-32);
    };
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    res.write = ((...a: unknown[]) => {
      scan(a[0]);
      return write(...a);
    }) as typeof res.write;
    res.end = ((...a: unknown[]) => {
      scan(a[0]);
      return end(...a);
    }) as typeof res.end;
    res.once('close', () => {
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const error = failed || res.statusCode >= 400 || !res.writableFinished;
      for (const m of requests) {
        const params = (m.params ?? {}) as Record<string, unknown>;
        const tool = m.method === 'tools/call' && typeof params.name === 'string' ? params.name : null;
        const info = clientInfoOf(m) as { name?: unknown; version?: unknown } | null;
        const name = typeof info?.name === 'string' && info.name.trim() ? info.name.trim().slice(0, 80) : (who.client?.name ?? null);
        const version = typeof info?.version === 'string' ? info.version.slice(0, 40) : name === who.client?.name ? (who.client?.version ?? null) : null;
        this.add({
          time,
          client: name ?? who.token,
          clientVersion: name ? version : null,
          token: who.token,
          protocol: who.protocol,
          method: m.method,
          tool,
          preview: previewOf(tool ? params.arguments : m.method === 'initialize' ? undefined : withoutMeta(params)),
          status: error ? 'error' : 'ok',
          httpStatus: res.statusCode,
          durationMs,
        });
      }
    });
  }
}

interface JsonRpcRequest {
  method: string;
  id: unknown;
  params?: unknown;
}

function isRequest(m: unknown): m is JsonRpcRequest {
  return typeof m === 'object' && m !== null && typeof (m as JsonRpcRequest).method === 'string' && 'id' in m;
}

/** The clientInfo a request carries: initialize's (2025 sessions) or the per-request _meta envelope's (2026-07-28). */
export function clientInfoOf(m: unknown): unknown {
  if (!isRequest(m)) return null;
  const params = (m.params ?? {}) as { clientInfo?: unknown; _meta?: Record<string, unknown> };
  return params.clientInfo ?? params._meta?.[CLIENT_INFO_META_KEY] ?? null;
}

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> | undefined {
  const { _meta: _gone, ...rest } = params;
  return Object.keys(rest).length ? rest : undefined;
}

function previewOf(v: unknown): string | null {
  if (v === undefined) return null;
  const text = jsonPrefix(v, PREVIEW_CHARS);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/**
 * JSON.stringify(v) when that is at most `max` characters, else a longer string starting with the
 * same `max` characters — without serialising the rest: a 100-entry store_context_batch is ~30 KB of
 * arguments, and stringifying it whole for a 60-character preview cost ~2 µs per entry. Arguments
 * are parsed JSON (plain values); anything else (toJSON) goes through JSON.stringify as is.
 */
export function jsonPrefix(v: unknown, max: number): string {
  let out = '';
  const full = () => out.length > max;
  const write = (x: unknown, inArray: boolean): void => {
    if (full()) return;
    if (x === null || typeof x === 'boolean' || typeof x === 'number') {
      out += JSON.stringify(x);
    } else if (typeof x === 'string') {
      // a cut string's JSON is still longer than `max`, so its wrong closing quote is cut off too
      out += JSON.stringify(x.length > max ? x.slice(0, max + 1) : x);
    } else if (typeof x !== 'object' || typeof (x as { toJSON?: unknown }).toJSON === 'function') {
      const json = JSON.stringify(x);
      out += json === undefined ? (inArray ? 'null' : '') : json;
    } else if (Array.isArray(x)) {
      out += '[';
      x.forEach((item, i) => {
        if (full()) return;
        if (i) out += ',';
        write(item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : item, true);
      });
      out += ']';
    } else {
      out += '{';
      let first = true;
      for (const [key, value] of Object.entries(x)) {
        if (full()) break;
        if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
        out += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        write(value, false);
      }
      out += '}';
    }
  };
  write(v, false);
  return out;
}
