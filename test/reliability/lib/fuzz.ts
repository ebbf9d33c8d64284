// Fuzzing the MCP endpoint with fast-check: generated tool calls (real and made-up tools; wrong
// types, huge and deeply nested values, unicode edge cases, FTS syntax, path tricks) through a real
// SDK client — the document tools and agent memory's — and raw JSON-RPC messages (random methods and params, batch arrays, malformed JSON,
// wrong and missing protocol versions, sessions that do not exist) over HTTP and through `trove
// mcp` on stdio. The properties: every answer is a structured result or JSON-RPC error (never a
// 5xx, a crash or a hang), and the index is unchanged afterwards.
import http from 'node:http';
import fc from 'fast-check';
import { MEMORY_READ_TOOL_NAMES, MEMORY_WRITE_TOOL_NAMES } from '../../../src-main/mcp/tools/index.js';

const FTS = ['"', '""', 'NEAR(', 'NEAR(a b, 2)', 'AND', 'OR', 'NOT', '-', '*', '^', '(', ')', ':', 'title:', '{a b}', 'a*b', '\\'];
const PATHS = ['../', '..\\', '%2e%2e%2f', '%252e', '\u0000', 'trove://', 'file:///etc/passwd', '/etc/passwd', '#', '#zzzzzz', ':120', ':1:1', '?', '**', 'C:\\'];
const EDGES = ['\ud800', '\udfff', '\u202e', '\ufeff', '\u0000', '😀', '𝕏', '\u200b', 'ℌ', '\r\n', '\t', ' '.repeat(3)];

/** Strings an attacker or a broken client would send. */
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom(...FTS, ...PATHS, ...EDGES, 'retries', 'backoff', 'notes'), { maxLength: 8 }).map((a) => a.join(' ')),
  fc.constantFrom(...FTS, ...PATHS, ...EDGES),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

/** Deeply nested arrays and objects. */
const deep: fc.Arbitrary<unknown> = fc.integer({ min: 50, max: 3000 }).map((depth) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});

/** Any value a parameter might be given. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: weirdString },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e308, Number.MAX_SAFE_INTEGER + 2, -0)) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: deep },
);

export const DOCUMENT_TOOLS = ['search', 'vsearch', 'query', 'get', 'multi_get', 'status'];
/** Agent memory's tools (issue 15): the write tools are the ones whose accepted calls may change memory. */
export const MEMORY_WRITES: readonly string[] = MEMORY_WRITE_TOOL_NAMES;
export const TOOLS = [...DOCUMENT_TOOLS, ...MEMORY_READ_TOOL_NAMES, ...MEMORY_WRITE_TOOL_NAMES];
const ARGUMENT_NAMES = ['query', 'limit', 'minScore', 'collection', 'file', 'fromLine', 'maxLines', 'lineNumbers', 'pattern', 'maxBytes', '__proto__', 'constructor'];
const MEMORY_ARGUMENT_NAMES = [
  'thread_id', 'thread_ids', 'source', 'text', 'tags', 'metadata', 'metadata_filters', 'images', 'context_id', 'context_ids', 'entries', 'updates', 'atomic',
  'query', 'mode', 'limit', 'offset', 'highlight', 'include_images', 'start_date', 'end_date', 'older_than_days', 'content_type', 'conversationId', 'rerank',
];

/** A memory entry that is nearly valid (so calls reach the writer, not only the schema), with one part made strange. */
const memoryEntry = fc.record(
  {
    thread_id: fc.oneof(fc.constantFrom('fuzz', 'private'), weirdString),
    source: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('user', 'agent') }, { weight: 1, arbitrary: weirdValue }),
    text: weirdString,
    tags: fc.array(weirdString, { maxLength: 4 }),
    metadata: fc.oneof(fc.dictionary(weirdString, weirdValue, { maxKeys: 3 }), weirdValue),
    images: fc.array(fc.record({ data: fc.oneof(fc.base64String({ maxLength: 64 }), weirdString), mime_type: fc.oneof(fc.constantFrom('image/png', 'image/svg+xml'), weirdString) }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

export const toolCall: fc.Arbitrary<{ name: string; arguments: Record<string, unknown> }> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      name: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...TOOLS) }, { weight: 1, arbitrary: weirdString }),
      arguments: fc.oneof(
        fc.dictionary(fc.constantFrom(...ARGUMENT_NAMES, ...MEMORY_ARGUMENT_NAMES), weirdValue, { maxKeys: 5 }),
        fc.dictionary(weirdString, weirdValue, { maxKeys: 3 }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ name: fc.constant('store_context'), arguments: memoryEntry }),
      fc.record({ name: fc.constant('store_context_batch'), arguments: fc.record({ entries: fc.array(memoryEntry, { maxLength: 120 }), atomic: fc.oneof(fc.boolean(), weirdValue) }) }),
      fc.record({ name: fc.constantFrom('update_context', 'update_context_batch'), arguments: fc.record({ context_id: fc.oneof(fc.integer({ min: -1, max: 5 }), weirdValue), updates: fc.array(fc.record({ context_id: fc.integer({ min: 0, max: 5 }), text: weirdString, metadata_patch: weirdValue }), { maxLength: 3 }), text: weirdString }, { requiredKeys: [] }) }),
      fc.record({ name: fc.constantFrom(...MEMORY_READ_TOOL_NAMES), arguments: fc.dictionary(fc.constantFrom(...MEMORY_ARGUMENT_NAMES), weirdValue, { maxKeys: 5 }) }),
    ),
  },
);

const METHODS = ['tools/call', 'tools/list', 'resources/read', 'resources/list', 'resources/templates/list', 'prompts/get', 'prompts/list', 'completion/complete', 'ping', 'logging/setLevel', 'initialize', 'notifications/initialized', 'notifications/cancelled', 'server/discover'];
const VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2024-11-05', '1999-01-01', 'latest', ''];

const rpc = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 6, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: weirdValue }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), weirdValue),
    method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: weirdString }),
    params: fc.oneof(
      fc.record({ name: fc.constantFrom(...TOOLS), arguments: fc.dictionary(fc.constantFrom(...ARGUMENT_NAMES, ...MEMORY_ARGUMENT_NAMES), weirdValue, { maxKeys: 4 }) }),
      fc.record({ uri: fc.oneof(weirdString, weirdString.map((s) => `trove://notes/${s}`)) }),
      fc.record({ _meta: fc.record({ 'io.modelcontextprotocol/protocolVersion': fc.constantFrom(...VERSIONS) }), name: weirdString }),
      weirdValue,
    ),
  },
  { requiredKeys: [] },
);

/** A raw HTTP body for /mcp and the protocol-version header it claims. */
export const rawMessage: fc.Arbitrary<{ body: string; version: string | null; method: string | null }> = fc.record({
  body: fc.oneof(
    { weight: 5, arbitrary: rpc.map((m) => JSON.stringify(m)) },
    { weight: 2, arbitrary: fc.array(rpc, { maxLength: 5 }).map((a) => JSON.stringify(a)) },
    { weight: 1, arbitrary: weirdString },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: rpc.map((m) => JSON.stringify(m).slice(0, -3)) },
  ),
  version: fc.constantFrom(...VERSIONS, null),
  method: fc.option(fc.constantFrom(...METHODS), { nil: null }),
});

export interface HttpAnswer {
  status: number;
  body: string;
  contentType: string;
}

export function postRaw(port: number, token: string, m: { body: string; version: string | null; method: string | null; session?: string }): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      Host: `127.0.0.1:${port}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`,
    };
    if (m.version !== null) headers['MCP-Protocol-Version'] = m.version;
    if (m.method !== null) headers['Mcp-Method'] = m.method;
    if (m.session) headers['Mcp-Session-Id'] = m.session;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers['content-type'] ?? '') }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', reject);
    req.end(m.body);
  });
}

/** What makes an HTTP answer acceptable: not a server error, and a body that is JSON-RPC (or empty for 202). */
export function structured(a: HttpAnswer): string | null {
  if (a.status >= 500 || a.status === 0) return `HTTP ${a.status}: ${a.body.slice(0, 200)}`;
  if (a.status === 202 || a.body === '') return null;
  const payloads = a.contentType.includes('text/event-stream')
    ? a.body.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean)
    : [a.body];
  for (const p of payloads) {
    let v: unknown;
    try {
      v = JSON.parse(p);
    } catch {
      return `not JSON: ${p.slice(0, 200)}`;
    }
    for (const m of Array.isArray(v) ? v : [v]) {
      if (!m || typeof m !== 'object' || !('jsonrpc' in m) || (!('result' in m) && !('error' in m))) return `not a JSON-RPC answer: ${p.slice(0, 200)}`;
    }
  }
  return null;
}
