// The local attack surface as a table: each row is one attempt against a running host, and says
// how to tell it was refused (an HTTP 4xx, an isError result, a closed connection) and that it
// leaked nothing (no text of the collection the token may not see, no file from outside a root,
// no secret). Adding a tool or a toolset is a row or two in SCOPE_ESCAPES (or MEMORY_ESCAPES)
// and TRAVERSALS. Shared by the test (small) and `npm run reliability:attack`.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Engine } from '../../../src-main/engine/index.js';
import { startHost, type Host } from '../../../src-main/host/host.js';

/** Text only the full-access token may see, and text from outside every root. */
export const FORBIDDEN = [/acquisition closes in spring/i, /root:.*:0:0:/, /outside-the-root-marker/, /handbook-only-marker/, /memory-only-marker/];

export interface AttackTarget {
  host: Host;
  engine: Engine;
  dir: string;
  tokens: { full: string; scoped: string; searchOnly: string; memoryReader: string; revoked: string; expired: string };
  /** The agent-memory entry no scoped token may read (its text has memory-only-marker). */
  memoryId: number;
  close(): Promise<void>;
}

/** A host over two collections: notes (a scoped token sees it) and secret (it does not), plus links out of the root. */
export async function startTarget(dir: string, timeouts: { headersTimeoutMs?: number; requestTimeoutMs?: number } = {}): Promise<AttackTarget> {
  const notes = path.join(dir, 'notes');
  const secret = path.join(dir, 'secret');
  fs.mkdirSync(path.join(notes, 'guide'), { recursive: true });
  fs.mkdirSync(secret, { recursive: true });
  fs.writeFileSync(path.join(notes, 'retries.md'), '# Retry policy\n\nWe retry HTTP calls with exponential backoff.\n');
  fs.writeFileSync(path.join(notes, 'guide', 'intro.md'), '# Intro\n\nWelcome to the guide.\n');
  fs.writeFileSync(path.join(secret, 'plans.md'), '# Merger plans\n\nThe acquisition closes in spring. Backoff negotiations.\n');
  fs.writeFileSync(path.join(dir, 'outside.md'), '# Outside\n\noutside-the-root-marker\n');
  fs.symlinkSync('/etc/passwd', path.join(notes, 'passwd.md'));
  fs.symlinkSync(path.join(dir, 'outside.md'), path.join(notes, 'outside.md'));
  fs.symlinkSync('/etc', path.join(notes, 'etc'));
  // a registered folder dataset (its documents live in the engine's own ~dataset:handbook collection)
  const handbook = path.join(dir, 'handbook');
  fs.mkdirSync(handbook);
  fs.writeFileSync(path.join(handbook, 'page.md'), '# Handbook\n\nhandbook-only-marker: the on-call rota.\n');
  const manifestDir = path.join(dir, 'profile', 'datasets', 'handbook');
  fs.mkdirSync(manifestDir, { recursive: true });
  fs.writeFileSync(path.join(manifestDir, 'manifest.json'), JSON.stringify({ id: 'handbook', name: 'Handbook', description: 'The team handbook', index: handbook, kind: 'folder' }));
  const engine = await Engine.open({ profileDir: path.join(dir, 'profile') });
  await engine.addCollection({ root: notes, name: 'notes' });
  await engine.addCollection({ root: secret, name: 'secret' });
  await engine.datasets.settled();
  await engine.index();
  const tokens = {
    full: 'attack-suite-full-access-token-0123456789',
    scoped: (await engine.createToken({ name: 'scoped', collections: ['notes'] })).token,
    searchOnly: (await engine.createToken({ name: 'search-only', collections: ['notes'], tools: ['search'] })).token,
    memoryReader: (await engine.createToken({ name: 'memory-reader', collections: ['notes'], memory: 'read' })).token,
    revoked: (await engine.createToken({ name: 'revoked' })).token,
    expired: '',
  };
  await engine.revokeToken('revoked');
  // agent memory: a scoped token's memory grant is none unless given; the reader may read but not write
  const memoryId = (await engine.memory.store({ threadId: 'private', source: 'user', text: 'memory-only-marker: the door code is the year we met.' })).id;
  const expiring = await engine.createToken({ name: 'expiring', expiresInDays: 1 / 86_400 }); // one second
  tokens.expired = expiring.token;
  const expiresAt = Date.parse(expiring.info.expiresAt!);
  while (Date.now() <= expiresAt) await new Promise((r) => setTimeout(r, 50));
  const host = await startHost({ engine, port: 0, writeRuntimeFile: false, token: tokens.full, rateLimit: { perSecond: 1000, burst: 1000 }, ...timeouts });
  return {
    host,
    engine,
    dir,
    tokens,
    memoryId,
    async close() {
      await host.close();
      await engine.close();
    },
  };
}

export interface RawResponse {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One raw HTTP request to the host (fetch cannot set Host). */
export function raw(t: AttackTarget, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: t.host.port, method: opts.method ?? 'POST', path: opts.path ?? '/mcp', headers: opts.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => resolve({ status: 0, body: String(err), headers: {} })); // a reset connection is a refusal too
    req.end(opts.body);
  });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } } });
const mcpHeaders = (t: AttackTarget, extra: Record<string, string> = {}) => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  Host: `127.0.0.1:${t.host.port}`,
  ...extra,
});

export async function clientFor(t: AttackTarget, token: string): Promise<Client> {
  const client = new Client({ name: 'attacker', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(t.host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

export interface Clients {
  scoped: Client;
  searchOnly: Client;
  memoryReader: Client;
  full: Client;
}

export interface Attack {
  group: string;
  name: string;
  /** Resolves with what came back (text of the response, or the error) and whether it was refused. */
  run(t: AttackTarget, clients: Clients): Promise<{ refused: boolean; answer: string }>;
}

const httpAttack = (group: string, name: string, req: (t: AttackTarget) => Parameters<typeof raw>[1], refusedWhen = (r: RawResponse) => r.status >= 400 || r.status === 0): Attack => ({
  group,
  name,
  async run(t) {
    const r = await raw(t, req(t));
    return { refused: refusedWhen(r), answer: `${r.status} ${r.body}` };
  },
});

const authed = (t: AttackTarget, extra: Record<string, string> = {}) => mcpHeaders(t, { Authorization: `Bearer ${t.tokens.full}`, ...extra });

export const DNS_REBINDING: Attack[] = [
  httpAttack('DNS rebinding', 'Host: a rebound public name', (t) => ({ headers: authed(t, { Host: `evil.example:${t.host.port}` }), body: INIT })),
  httpAttack('DNS rebinding', 'Host: loopback on another port', (t) => ({ headers: authed(t, { Host: `127.0.0.1:${t.host.port + 1}` }), body: INIT })),
  httpAttack('DNS rebinding', 'Host: 0.0.0.0', (t) => ({ headers: authed(t, { Host: `0.0.0.0:${t.host.port}` }), body: INIT })),
  httpAttack('DNS rebinding', 'Host: decimal 2130706433', (t) => ({ headers: authed(t, { Host: `2130706433:${t.host.port}` }), body: INIT })),
  httpAttack('DNS rebinding', 'Origin: a web page', (t) => ({ headers: authed(t, { Origin: 'https://evil.example' }), body: INIT })),
  httpAttack('DNS rebinding', 'Origin: null (sandboxed frame, file://)', (t) => ({ headers: authed(t, { Origin: 'null' }), body: INIT })),
  httpAttack('DNS rebinding', 'Origin: localhost on another port', (t) => ({ headers: authed(t, { Origin: `http://localhost:${t.host.port + 1}` }), body: INIT })),
  httpAttack('DNS rebinding', 'GET /health from a web page', (t) => ({ method: 'GET', path: '/health', headers: { Host: `evil.example:${t.host.port}` } })),
];

export const TOKENS: Attack[] = [
  httpAttack('tokens', 'no token', (t) => ({ headers: mcpHeaders(t), body: INIT })),
  httpAttack('tokens', 'a wrong token', (t) => ({ headers: mcpHeaders(t, { Authorization: 'Bearer trove_wrongwrongwrongwrongwrongwrongwrongwrongwro' }), body: INIT })),
  httpAttack('tokens', 'the right token but one character', (t) => ({ headers: mcpHeaders(t, { Authorization: `Bearer ${t.tokens.full.slice(0, -1)}X` }), body: INIT })),
  httpAttack('tokens', 'a revoked token', (t) => ({ headers: mcpHeaders(t, { Authorization: `Bearer ${t.tokens.revoked}` }), body: INIT })),
  httpAttack('tokens', 'an expired token', (t) => ({ headers: mcpHeaders(t, { Authorization: `Bearer ${t.tokens.expired}` }), body: INIT })),
  httpAttack('tokens', 'the token in the query string', (t) => ({ path: `/mcp?token=${t.tokens.full}`, headers: mcpHeaders(t), body: INIT })),
  httpAttack('tokens', 'Basic auth with the token', (t) => ({ headers: mcpHeaders(t, { Authorization: `Basic ${Buffer.from(`x:${t.tokens.full}`).toString('base64')}` }), body: INIT })),
  httpAttack('tokens', 'a 100 KB token', (t) => ({ headers: mcpHeaders(t, { Authorization: `Bearer trove_${'a'.repeat(15_000)}` }), body: INIT })),
  {
    group: 'tokens',
    name: "another token's session",
    async run(t) {
      const init = await raw(t, { headers: mcpHeaders(t, { Authorization: `Bearer ${t.tokens.searchOnly}` }), body: INIT });
      const session = String(init.headers['mcp-session-id'] ?? '');
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      const r = await raw(t, { headers: mcpHeaders(t, { Authorization: `Bearer ${t.tokens.scoped}`, 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' }), body: list });
      return { refused: session !== '' && r.status === 404, answer: `${r.status} ${r.body}` };
    },
  },
];

/** Calls through a scoped client (notes only) that must not reach the secret collection. */
const scopeCall = (name: string, call: (c: Client) => Promise<unknown>, mayAnswer = false): Attack => ({
  group: 'scope escapes',
  name,
  async run(_t, clients) {
    try {
      const r = (await call(clients.scoped)) as { isError?: boolean };
      return { refused: mayAnswer || r.isError === true, answer: JSON.stringify(r) };
    } catch (err) {
      return { refused: true, answer: String(err) };
    }
  },
});

export const SCOPE_ESCAPES: Attack[] = [
  scopeCall('search in a collection out of scope', (c) => c.callTool({ name: 'search', arguments: { query: 'acquisition', collection: 'secret' } })),
  scopeCall('search everywhere (answers, from notes only)', (c) => c.callTool({ name: 'search', arguments: { query: 'acquisition backoff' } }), true),
  scopeCall('vsearch in a collection out of scope', (c) => c.callTool({ name: 'vsearch', arguments: { query: 'acquisition', collection: 'secret' } })),
  scopeCall('query in a collection out of scope', (c) => c.callTool({ name: 'query', arguments: { query: 'acquisition', collection: 'secret' } })),
  scopeCall('get by collection/path', (c) => c.callTool({ name: 'get', arguments: { file: 'secret/plans.md' } })),
  scopeCall('get by bare path', (c) => c.callTool({ name: 'get', arguments: { file: 'plans.md' } })),
  scopeCall('get by trove:// URI', (c) => c.callTool({ name: 'get', arguments: { file: 'trove://secret/plans.md' } })),
  scopeCall('get by docid', async (c) => c.callTool({ name: 'get', arguments: { file: `#${secretDocid}` } })),
  scopeCall('multi_get by glob', (c) => c.callTool({ name: 'multi_get', arguments: { pattern: 'secret/*.md' } })),
  scopeCall('multi_get by list', (c) => c.callTool({ name: 'multi_get', arguments: { pattern: 'plans.md,secret/plans.md' } })),
  scopeCall('multi_get with a ** glob (answers, from notes only)', (c) => c.callTool({ name: 'multi_get', arguments: { pattern: '**/*.md' } }), true),
  scopeCall('status (answers, lists notes only)', (c) => c.callTool({ name: 'status', arguments: {} }), true),
  scopeCall('read the resource', (c) => c.readResource({ uri: 'trove://secret/plans.md' })),
  // datasets (issue 14): a token scoped to collections sees no dataset, by name or through its collection
  scopeCall('status lists no dataset (answers)', (c) =>
    c.callTool({ name: 'status', arguments: {} }).then((r) => ({ ...r, isError: !JSON.stringify(r).includes('handbook') })), // refused: no trace of it
  ),
  scopeCall("get a dataset's document", (c) => c.callTool({ name: 'get', arguments: { file: '~dataset:handbook/page.md' } })),
  scopeCall("get a dataset's document by URI", (c) => c.callTool({ name: 'get', arguments: { file: 'trove://~dataset:handbook/page.md' } })),
  scopeCall("search a dataset's collection", (c) => c.callTool({ name: 'search', arguments: { query: 'handbook rota', collection: '~dataset:handbook' } })),
  scopeCall("multi_get a dataset's documents", (c) => c.callTool({ name: 'multi_get', arguments: { pattern: '~dataset:handbook/*.md' } })),
  scopeCall("read a dataset's document as a resource", (c) => c.readResource({ uri: 'trove://~dataset%3Ahandbook/page.md' })),
  scopeCall('read the resource by suffix', (c) => c.readResource({ uri: 'trove://secret/plans.md?x#y' })),
  scopeCall('complete collection names (answers, notes only)', (c) => c.complete({ ref: { type: 'ref/resource', uri: 'trove://{collection}/{+path}' }, argument: { name: 'collection', value: '' } }), true),
  scopeCall('complete paths of a collection out of scope', (c) =>
    c.complete({ ref: { type: 'ref/resource', uri: 'trove://{collection}/{+path}' }, argument: { name: 'path', value: '' }, context: { arguments: { collection: 'secret' } } }).then((r) => ({ ...r, isError: r.completion.values.length === 0 })),
  ),
  {
    group: 'scope escapes',
    name: 'a tool the token may not use',
    async run(_t, clients) {
      try {
        const r = await clients.searchOnly.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } });
        return { refused: r.isError === true, answer: JSON.stringify(r) };
      } catch (err) {
        return { refused: true, answer: String(err) };
      }
    },
  },
];

/** What agent memory holds, to tell that a refused write changed nothing. */
const memoryState = async (t: AttackTarget) => JSON.stringify((await t.engine.memory.list({ limit: 100 })).entries.map((e) => [e.id, e.threadId, e.text, e.tags, e.metadata]));

/**
 * A memory tool through a token whose grant does not cover it (the scoped token: none; the reader:
 * read, so no writes): refused, and memory is unchanged.
 */
const memoryCall = (who: 'scoped' | 'memoryReader', tool: string, args: Record<string, unknown>): Attack => ({
  group: 'scope escapes',
  name: `memory: ${tool} with ${who === 'scoped' ? 'no memory grant' : 'a read grant'}`,
  async run(t, clients) {
    const before = await memoryState(t);
    let refused: boolean;
    let answer: string;
    try {
      const r = await clients[who].callTool({ name: tool, arguments: args });
      refused = r.isError === true;
      answer = JSON.stringify(r);
    } catch (err) {
      refused = true;
      answer = String(err);
    }
    return { refused: refused && await memoryState(t) === before, answer };
  },
});

const MEMORY_ENTRY = { thread_id: 'private', source: 'agent', text: 'planted by an attacker' };

/** Agent memory (issue 15) through its own tools and through the document tools and the resource template. */
export const MEMORY_ESCAPES: Attack[] = [
  ...(
    [
      ['search_context', { thread_id: 'private' }],
      ['fts_search_context', { query: 'door code' }],
      ['semantic_search_context', { query: 'door code' }],
      ['hybrid_search_context', { query: 'door code' }],
      ['semantic_search', { query: 'door code' }],
      ['hybrid_search', { query: 'door code' }],
      ['get_context_by_ids', { context_ids: [1, 2, 3] }],
      ['list_threads', {}],
      ['get_statistics', {}],
      ['store_context', MEMORY_ENTRY],
      ['delete_context', { thread_id: 'private' }],
    ] as const
  ).map(([tool, args]) => memoryCall('scoped', tool, args)),
  ...(
    [
      ['store_context', MEMORY_ENTRY],
      ['store_context_batch', { entries: [MEMORY_ENTRY] }],
      ['update_context', { context_id: 1, text: 'overwritten by an attacker' }],
      ['update_context_batch', { updates: [{ context_id: 1, text: 'overwritten by an attacker' }] }],
      ['delete_context', { thread_id: 'private' }],
      ['delete_context_batch', { thread_ids: ['private'] }],
    ] as const
  ).map(([tool, args]) => memoryCall('memoryReader', tool, args)),
  scopeCall('memory: search its collection with the document tools', (c) => c.callTool({ name: 'search', arguments: { query: 'door code', collection: '~memory' } })),
  scopeCall("memory: get an entry's document by path", (c) => c.callTool({ name: 'get', arguments: { file: '~memory/1' } })),
  scopeCall("memory: get an entry's document by URI", (c) => c.callTool({ name: 'get', arguments: { file: 'trove://~memory/1' } })),
  scopeCall('memory: multi_get its documents', (c) => c.callTool({ name: 'multi_get', arguments: { pattern: '~memory/*' } })),
  scopeCall('memory: read an entry as a resource', (c) => c.readResource({ uri: 'trove://~memory/1' })),
  scopeCall('memory: status shows no memory (answers)', (c) =>
    c.callTool({ name: 'status', arguments: {} }).then((r) => ({ ...r, isError: !JSON.stringify(r.structuredContent ?? {}).includes('"memory"') })),
  ),
];

/** The secret document's docid (set by prepareAttacks). */
let secretDocid = '';

const TRAVERSAL_LOCATORS = [
  '../secret/plans.md',
  'notes/../secret/plans.md',
  'notes/../../secret/plans.md',
  '../../../../../../etc/passwd',
  '/etc/passwd',
  'notes/%2e%2e/secret/plans.md',
  'notes/%2E%2E%2Fsecret%2Fplans.md',
  'notes/%252e%252e%252fsecret%252fplans.md',
  'notes\\..\\secret\\plans.md',
  '..\\..\\etc\\passwd',
  'notes/retries.md\u0000../../etc/passwd',
  'trove://notes/../secret/plans.md',
  'trove://notes/%2e%2e/secret/plans.md',
  'trove://notes/%2e%2e%2fsecret%2fplans.md',
  'file:///etc/passwd',
  'notes/passwd.md',
  'notes/outside.md',
  'notes/etc/passwd',
  '~/.ssh/id_rsa',
  'C:\\Windows\\win.ini',
];

export const TRAVERSALS: Attack[] = TRAVERSAL_LOCATORS.flatMap((loc): Attack[] => [
  {
    group: 'path traversal',
    name: `get ${JSON.stringify(loc)}`,
    async run(_t, clients) {
      const r = await clients.scoped.callTool({ name: 'get', arguments: { file: loc } });
      return { refused: r.isError === true, answer: JSON.stringify(r) };
    },
  },
  {
    group: 'path traversal',
    name: `multi_get ${JSON.stringify(loc)}`,
    async run(_t, clients) {
      const r = await clients.scoped.callTool({ name: 'multi_get', arguments: { pattern: loc } });
      return { refused: r.isError === true, answer: JSON.stringify(r) };
    },
  },
  {
    group: 'path traversal',
    name: `resource ${JSON.stringify(loc)} (full-access token)`,
    async run(_t, clients) {
      try {
        const r = await clients.full.readResource({ uri: loc.startsWith('trove://') ? loc : `trove://notes/${loc}` });
        return { refused: !FORBIDDEN.some((f) => f.test(JSON.stringify(r))) && !JSON.stringify(r).includes('Merger'), answer: JSON.stringify(r) };
      } catch (err) {
        return { refused: true, answer: String(err) };
      }
    },
  },
]);

export const OVERSIZED: Attack[] = [
  httpAttack('oversized and malformed', 'a 5 MB body (the cap is 4 MB)', (t) => ({ headers: authed(t), body: `{"x":"${'a'.repeat(5 << 20)}"}` })),
  httpAttack('oversized and malformed', 'a 64 KB header', (t) => ({ headers: authed(t, { 'X-Filler': 'a'.repeat(64 << 10) }), body: INIT })),
  httpAttack('oversized and malformed', '3,000 headers (40 KB)', (t) => ({ headers: { ...authed(t), ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`x-h${i}`, 'vvvv'])) }, body: INIT })),
  httpAttack('oversized and malformed', 'a body that is not JSON', (t) => ({ headers: authed(t), body: '{"jsonrpc": "2.0", "method": ' })),
  httpAttack('oversized and malformed', 'a form post', (t) => ({ headers: authed(t, { 'Content-Type': 'application/x-www-form-urlencoded' }), body: 'a=b' })),
  httpAttack('oversized and malformed', 'PUT', (t) => ({ method: 'PUT', headers: authed(t), body: INIT })),
  httpAttack('oversized and malformed', 'a request for another path', (t) => ({ method: 'GET', path: '/../../etc/passwd', headers: authed(t) })),
];

/** Bytes dripped slowly: the server cuts the connection once its header/request timeout passes. */
export function slowDrip(kind: 'headers' | 'body'): Attack {
  return {
    group: 'slow drip',
    name: kind === 'headers' ? 'headers one byte at a time' : 'a body one byte at a time',
    run: (t) =>
      new Promise((resolve) => {
        const socket = net.connect(t.host.port, '127.0.0.1');
        const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${t.host.port}\r\nAuthorization: Bearer ${t.tokens.full}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n`;
        const payload = kind === 'headers' ? head : `${head}\r\n${'{'.repeat(100000)}`;
        let i = kind === 'headers' ? 0 : head.length + 2;
        if (kind === 'body') socket.write(payload.slice(0, i));
        let answer = '';
        socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
        const drip = setInterval(() => {
          if (i < payload.length && socket.writable) socket.write(payload[i++]!);
        }, 100);
        socket.on('close', () => {
          clearInterval(drip);
          resolve({ refused: true, answer: answer.split('\r\n')[0] ?? 'closed' });
        });
        socket.on('error', () => undefined);
      }),
  };
}

/** Many connections at once: each is answered (or refused) and the host stays up. */
export function manyConnections(n: number): Attack {
  return {
    group: 'many connections',
    name: `${n} parallel connections`,
    async run(t) {
      const all = await Promise.all(Array.from({ length: n }, () => raw(t, { method: 'GET', path: '/health', headers: { Host: `127.0.0.1:${t.host.port}` } })));
      const after = await raw(t, { method: 'GET', path: '/health', headers: { Host: `127.0.0.1:${t.host.port}` } });
      return { refused: after.status === 200, answer: `${all.filter((r) => r.status === 200).length}/${n} answered; /health after: ${after.status}` };
    },
  };
}

export async function prepareAttacks(t: AttackTarget): Promise<void> {
  secretDocid = (await t.engine.get('secret/plans.md')).docid;
}

export interface AttackOutcome {
  group: string;
  name: string;
  refused: boolean;
  leaked: boolean;
  answer: string;
}

export async function runAttacks(t: AttackTarget, attacks: Attack[]): Promise<AttackOutcome[]> {
  await prepareAttacks(t);
  const clients: Clients = {
    scoped: await clientFor(t, t.tokens.scoped),
    searchOnly: await clientFor(t, t.tokens.searchOnly),
    memoryReader: await clientFor(t, t.tokens.memoryReader),
    full: await clientFor(t, t.tokens.full),
  };
  const out: AttackOutcome[] = [];
  try {
    for (const a of attacks) {
      const r = await a.run(t, clients).catch((err: unknown) => ({ refused: true, answer: `threw: ${String(err)}` }));
      const leaked = FORBIDDEN.some((f) => f.test(r.answer)) || (a.group !== 'tokens' && r.answer.includes(t.tokens.full));
      out.push({ group: a.group, name: a.name, refused: r.refused, leaked, answer: r.answer.slice(0, 300) });
    }
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close()));
  }
  return out;
}
