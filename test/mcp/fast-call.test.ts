// The fast tools/call path (mcp/transports/fast-call.ts) answers exactly as the SDK's path does.
// Two hosts over two identically built fixtures — one with the fast path, one without — get the
// same requests in the same order; every answer (status, content type, Content-Length, body) must
// be equal once the clock (ISO times, durations), the fixture's temp folder (and document ids,
// which hash it) and knowledge session handles are masked. The fast host's counter proves which path answered: each case says whether
// the fast path must take it, so a fast path that quietly stopped answering (or answered what it
// must leave to the SDK) fails here instead of passing as "equal".
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { makeFixture, startTestHost, type Fixture } from './helpers.js';

const V = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientInfo': { name: 'diff-test', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

interface Side {
  f: Fixture;
  host: Host;
  tokens: Record<string, string>;
}
let fast: Side;
let sdk: Side;

async function side(fastCalls: boolean): Promise<Side> {
  const f = await makeFixture();
  const host = await startTestHost(f, { mcpFastCalls: fastCalls });
  const tokens = {
    host: host.token,
    searchOnly: (await f.engine.createToken({ name: 'search-only', tools: ['search'] })).token,
    notesOnly: (await f.engine.createToken({ name: 'notes-only', collections: ['notes'] })).token,
    memoryRead: (await f.engine.createToken({ name: 'memory-read', memory: 'read' })).token,
    deep: (await f.engine.createToken({ name: 'chatgpt', profile: 'deep-research', collections: ['notes'] })).token,
  };
  return { f, host, tokens };
}

beforeAll(async () => {
  [fast, sdk] = await Promise.all([side(true), side(false)]);
}, 60_000);
afterAll(async () => {
  for (const s of [fast, sdk]) {
    await s?.host.close();
    await s?.f.cleanup();
  }
});

interface Req {
  tool: string;
  args?: unknown;
  token?: string;
  headers?: Record<string, string | null>;
  body?: (base: Record<string, unknown>) => unknown;
}

let nextId = 1;
async function send(s: Side, r: Req, id: number) {
  const params: Record<string, unknown> = { name: r.tool, _meta: ENVELOPE };
  if (r.args !== undefined) params.arguments = r.args;
  const base = { jsonrpc: '2.0', id, method: 'tools/call', params };
  const headers: Record<string, string> = {
    Authorization: `Bearer ${s.tokens[r.token ?? 'host']}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': V,
    'Mcp-Method': 'tools/call',
    'Mcp-Name': r.tool,
  };
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const before = s.host.mcp.fastCallCount();
  const res = await fetch(s.host.mcpUrl, { method: 'POST', headers, body: JSON.stringify(r.body ? r.body(base) : base) });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    length: res.headers.get('content-length'),
    chunked: res.headers.get('transfer-encoding'),
    bytes: bytes.length,
    body: mask(bytes.toString('utf8'), s.f.dir),
    raw: bytes.toString('utf8'),
    fast: s.host.mcp.fastCallCount() - before,
  };
}

/** What legitimately differs between the two fixtures: the clock, the temp folder (and the document ids hashed from it), random session handles. */
function mask(text: string, dir: string): string {
  return text
    .split(dir)
    .join('<dir>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?/g, '<time>')
    .replace(/ks_[A-Za-z0-9_-]+/g, 'ks_<handle>')
    .replace(/#[0-9a-f]{6}\b/g, '#<docid>')
    .replace(/<dir>\/secret|\[redacted secret\]/g, '<secret path>') // the temp folder's random name can look like a secret to the redaction scan
    .replace(/(\\?"[A-Za-z_]*(?:[Dd]uration|_ms|Ms)\\?":)[0-9.e+-]+/g, '$1<n>');
}

/** Sends the request to both hosts; their answers must be equal, and the fast host must have taken it (or not). */
async function same(r: Req, viaFast: boolean) {
  const id = nextId++;
  const a = await send(fast, r, id);
  const b = await send(sdk, r, id);
  const comparable = (x: typeof a) => ({ status: x.status, type: x.type, chunked: x.chunked, body: x.body });
  expect(comparable(a), `${r.tool} ${JSON.stringify(r.args ?? null).slice(0, 80)}`).toEqual(comparable(b));
  expect(a.fast, `fast path ${viaFast ? 'should' : 'should not'} answer ${r.tool}`).toBe(viaFast ? 1 : 0);
  expect(b.fast).toBe(0);
  for (const x of [a, b]) if (x.type?.startsWith('application/json')) expect(Number(x.length)).toBe(x.bytes);
  if (!a.raw) return {};
  return JSON.parse(a.raw.startsWith('event:') ? /^data: (.+)$/m.exec(a.raw)![1]! : a.raw) as { result?: { isError?: boolean }; error?: unknown };
}

const entry = (text: string, extra: Record<string, unknown> = {}) => ({ thread_id: 'diff', source: 'agent', text, ...extra });

describe('the fast tools/call path answers as the SDK path does', () => {
  it('memory writes and reads, good and bad input', async () => {
    expect((await same({ tool: 'store_context', args: entry('the build cache lives in ~/.cache/trove', { tags: ['Build'], metadata: { team: { name: 'core' } } }) }, true)).result?.isError).toBeUndefined();
    await same({ tool: 'store_context', args: entry('retries use exponential backoff') }, true);
    expect((await same({ tool: 'store_context', args: { thread_id: 'diff', source: 'bogus', text: 'x' } }, true)).result?.isError).toBe(true);
    await same({ tool: 'store_context', args: { thread_id: 'diff', source: 'agent' } }, true);
    await same({ tool: 'store_context', args: entry('   ') }, true);
    await same({ tool: 'store_context_batch', args: { entries: [entry('one'), entry('two'), entry('three')] } }, true);
    await same({ tool: 'store_context_batch', args: { entries: [entry('ok'), { thread_id: 'diff', source: 'agent', text: '' }] } }, true);
    await same({ tool: 'store_context_batch', args: { entries: [entry('ok'), entry('  ')], atomic: false } }, true);
    await same({ tool: 'store_context_batch', args: { entries: Array.from({ length: 101 }, (_, i) => entry(`n${i}`)) } }, true);
    await same({ tool: 'get_context_by_ids', args: { context_ids: [1, 2] } }, true);
    await same({ tool: 'get_context_by_ids', args: { context_ids: [999] } }, true);
    await same({ tool: 'update_context', args: { context_id: 1, metadata_patch: { team: { lead: 'ana' } }, tags: ['x'] } }, true);
    await same({ tool: 'update_context', args: { context_id: 999, text: 'nope' } }, true);
    await same({ tool: 'update_context', args: { context_id: 1 } }, true);
    await same({ tool: 'update_context_batch', args: { updates: [{ context_id: 2, text: 'retries use jittered backoff' }, { context_id: 998, text: 'x' }], atomic: false } }, true);
    await same({ tool: 'list_threads', args: {} }, true);
    await same({ tool: 'list_threads' }, true);
    await same({ tool: 'search_context', args: { thread_id: 'diff', tags: ['build'] } }, true);
    await same({ tool: 'search_context', args: { metadata_filters: [{ key: 'team.name', operator: 'eq', value: 'core' }] } }, true);
    await same({ tool: 'search_context', args: { metadata_filters: [{ key: 'a', operator: 'bogus', value: 1 }] } }, true);
    await same({ tool: 'search_context', args: { start_date: 'not a date' } }, true);
    await same({ tool: 'fts_search_context', args: { query: 'how do retries back off?', highlight: true } }, true);
    await same({ tool: 'fts_search_context', args: { query: 'backoff', mode: 'nonsense' } }, true);
    await same({ tool: 'semantic_search_context', args: { query: 'backoff' } }, true);
    await same({ tool: 'hybrid_search_context', args: { query: 'backoff' } }, true);
    await same({ tool: 'semantic_search', args: { query: 'backoff' } }, true);
    await same({ tool: 'hybrid_search', args: { query: 'backoff', matchType: 'prefix' } }, true);
    await same({ tool: 'hybrid_search', args: { query: 'backoff', weights: { semantic: 0.9, fts: 0.9 } } }, true);
    await same({ tool: 'memory.search', args: { query: 'backoff' } }, true);
    await same({ tool: 'memory.get', args: { id: '1' } }, true);
    await same({ tool: 'delete_context', args: { context_ids: [3] } }, true);
    await same({ tool: 'delete_context_batch', args: { source: 'agent' } }, true);
    await same({ tool: 'delete_context_batch', args: { context_ids: [4], older_than_days: 0 } }, true);
    await same({ tool: 'get_statistics', args: {} }, true);
  });

  it('document, knowledge and status tools, good and bad input', async () => {
    await same({ tool: 'search', args: { query: 'backoff', limit: 3 } }, true);
    await same({ tool: 'search', args: {} }, true);
    await same({ tool: 'search', args: { query: 'backoff', limit: 1000 } }, true);
    await same({ tool: 'vsearch', args: { query: 'backoff' } }, true);
    await same({ tool: 'query', args: { query: 'backoff' } }, true);
    await same({ tool: 'get', args: { file: 'notes/retries.md' } }, true);
    await same({ tool: 'get', args: { file: 'notes/retries.md:2', maxLines: 2 } }, true);
    await same({ tool: 'get', args: { file: 'notes/retriez.md' } }, true);
    await same({ tool: 'multi_get', args: { pattern: 'notes/*.md', maxBytes: 200 } }, true);
    await same({ tool: 'multi_get', args: { pattern: 'nothing/*.md' } }, true);
    await same({ tool: 'status', args: {} }, true);
    await same({ tool: 'knowledge.search', args: { query: 'backoff', limit: 3 } }, true);
    await same({ tool: 'knowledge.search', args: { query: 'backoff', mode: 'bogus' } }, true);
    await same({ tool: 'knowledge.get', args: { uri: 'trove://notes/retries.md', retrieval: { mode: 'full', max_tokens: 50 } } }, true);
    await same({ tool: 'knowledge.session', args: {} }, true);
    await same({ tool: 'documents.search', args: { query: 'backoff', collections: ['notes'] } }, true);
    await same({ tool: 'documents.get', args: { uri: 'trove://notes/guide/intro.md' } }, true);
    await same({ tool: 'datasets.search', args: { query: 'backoff' } }, true);
    await same({ tool: 'datasets.get', args: { id: 'nope:1' } }, true);
  });

  it("redaction applies alike: the user's rules, and a broken settings file fails closed", async () => {
    for (const s of [fast, sdk]) s.f.engine.settings.update({ redaction: ['exponential', 'cache lives'] });
    try {
      await same({ tool: 'search', args: { query: 'exponential backoff' } }, true);
      await same({ tool: 'get', args: { file: 'notes/retries.md' } }, true);
      await same({ tool: 'store_context', args: entry('the cache lives in /var/cache') }, true);
      await same({ tool: 'fts_search_context', args: { query: 'cache' } }, true);
      await same({ tool: 'knowledge.search', args: { query: 'exponential' } }, true);
      for (const s of [fast, sdk]) fs.writeFileSync(path.join(s.f.profileDir, 'settings.json'), '{ broken');
      expect((await same({ tool: 'search', args: { query: 'backoff' } }, true)).result?.isError).toBe(true);
      await same({ tool: 'fts_search_context', args: { query: 'cache' } }, true);
    } finally {
      for (const s of [fast, sdk]) {
        fs.rmSync(path.join(s.f.profileDir, 'settings.json'), { force: true });
        s.f.engine.settings.update({ redaction: [] });
      }
    }
  });

  it('a request config (?config=) reaches the knowledge tools alike', async () => {
    const config = encodeURIComponent(Buffer.from(JSON.stringify({ snippet_length: 40 })).toString('base64'));
    const id = nextId++;
    const [a, b] = await Promise.all([fast, sdk].map(async (s) => {
      const before = s.host.mcp.fastCallCount();
      const res = await fetch(`${s.host.mcpUrl}?config=${config}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${s.host.token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'knowledge.search' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'knowledge.search', arguments: { query: 'backoff' }, _meta: ENVELOPE } }),
      });
      return { status: res.status, body: mask(await res.text(), s.f.dir), fast: s.host.mcp.fastCallCount() - before };
    }));
    expect(a!.body).toEqual(b!.body);
    expect(a!.body).not.toContain('other things. A long line about backoff and other things. A long line'); // the default snippet would
    expect([a!.fast, b!.fast]).toEqual([1, 0]);
  });

  it('scoped tokens: what a token may call, and what it may not, answer alike', async () => {
    await same({ tool: 'search', args: { query: 'backoff' }, token: 'searchOnly' }, true);
    // a log level in the envelope (the MCP Inspector sends one): answered alike, on the fast path
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, params: { ...(b.params as object), _meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'debug' } } }) }, true);
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, params: { ...(b.params as object), _meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' } } }) }, false);
    await same({ tool: 'get', args: { file: 'notes/retries.md' }, token: 'searchOnly' }, false); // not its tool: the SDK's "not found"
    await same({ tool: 'store_context', args: entry('x'), token: 'memoryRead' }, false);
    await same({ tool: 'fts_search_context', args: { query: 'backoff' }, token: 'memoryRead' }, true);
    await same({ tool: 'fts_search_context', args: { query: 'backoff' }, token: 'notesOnly' }, false);
    await same({ tool: 'search', args: { query: 'merger' }, token: 'notesOnly' }, true);
    await same({ tool: 'search', args: { query: 'backoff' }, token: 'deep' }, true);
    await same({ tool: 'fetch', args: { id: 'nope' }, token: 'deep' }, true);
    await same({ tool: 'status', args: {}, token: 'deep' }, false);
  });

  it('requests the fast path leaves to the SDK get the SDK answer', async () => {
    await same({ tool: 'nope', args: {} }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'Mcp-Name': null } }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'Mcp-Name': 'status' } }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'Mcp-Name': '=?base64?c2VhcmNo?=' } }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'MCP-Protocol-Version': null } }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'MCP-Protocol-Version': '2025-06-18' } }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'Mcp-Method': null } }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'Mcp-Method': 'tools/list' } }, false);
    await same({ tool: 'search', args: [1, 2] }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, params: { ...(b.params as object), _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } }) }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, headers: { 'MCP-Protocol-Version': '2099-01-01' }, body: (b) => ({ ...b, params: { ...(b.params as object), _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } }) }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, params: { ...(b.params as object), _meta: { ...ENVELOPE, progressToken: 5 } } }) }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, params: { ...(b.params as object), _meta: { 'io.modelcontextprotocol/protocolVersion': V } } }) }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, params: { ...(b.params as object), extra: 1 } }) }, false);
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ jsonrpc: '2.0', method: 'tools/call', params: b.params }) }, false); // a notification
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => [b] }, false); // a batch
    await same({ tool: 'search', args: { query: 'backoff' }, body: (b) => ({ ...b, id: null }) }, false);
  });
});
