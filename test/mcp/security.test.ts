// Refusals on the HTTP endpoint, over raw node:http (fetch cannot set Host): no token, wrong
// token, bad Host, bad Origin, oversized and malformed bodies, rate limits; the 2025 session
// lifecycle; and scoped tokens, which must not see other collections anywhere. On both backends:
// the tokens (named, scoped, revoked) live in the index.
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { describeBackends } from '../helpers/backends.js';
import { firstText, makeFixture, startTestHost, type Fixture } from './helpers.js';

describeBackends('the MCP endpoint', (b) => {
  let f: Fixture;
  let host: Host;

  beforeAll(async () => {
    f = await makeFixture(b);
    host = await startTestHost(f, { rateLimit: { perSecond: 1, burst: 30 }, maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await host?.close();
    await f?.cleanup();
  });

  type Res = { status: number; headers: Record<string, string | string[] | undefined>; body: string };
  function send(method: string, headers: Record<string, string>, body?: string | object, path = '/mcp'): Promise<Res> {
    return new Promise((resolve, reject) => {
      const h: Record<string, string> = { Host: `127.0.0.1:${host.port}`, Accept: 'application/json, text/event-stream', ...headers };
      if (!('Authorization' in h)) h.Authorization = `Bearer ${host.token}`;
      if (h.Authorization === '') delete h.Authorization;
      if (body !== undefined && !('Content-Type' in h)) h['Content-Type'] = 'application/json';
      const req = request({ host: '127.0.0.1', port: host.port, path, method, headers: h }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
      });
      req.on('error', reject);
      if (body !== undefined) req.write(typeof body === 'string' ? body : JSON.stringify(body));
      req.end();
    });
  }
  const init = (v = '2025-11-25') => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const payload = (r: Res) => JSON.parse(String(r.headers['content-type']).includes('event-stream') ? /^data: (.+)$/m.exec(r.body)![1]! : r.body);

  describe('refusals', () => {
    it('no token and a wrong token get 401 with a Bearer challenge', async () => {
      for (const auth of ['', 'Bearer wrong-token', 'Basic dXNlcjpwYXNz', `Bearer ${host.token}x`]) {
        const r = await send('POST', { Authorization: auth }, init());
        expect(r.status, auth).toBe(401);
        expect(String(r.headers['www-authenticate'])).toMatch(/^Bearer/);
        expect(r.body).not.toContain(host.token);
      }
    });

    it('a Host that is not this loopback server gets 403 (DNS rebinding)', async () => {
      for (const h of ['evil.example.com', `evil.example.com:${host.port}`, `127.0.0.1:${host.port + 1}`, '10.0.0.1']) {
        expect((await send('POST', { Host: h }, init())).status, h).toBe(403);
      }
      for (const h of [`localhost:${host.port}`, `127.0.0.1:${host.port}`]) expect((await send('POST', { Host: h }, init())).status, h).toBe(200);
    });

    it('a foreign Origin gets 403; no CORS headers are sent', async () => {
      for (const o of ['http://evil.example.com', 'null', `http://localhost:${host.port + 1}`, 'file://']) {
        const r = await send('POST', { Origin: o }, init());
        expect(r.status, o).toBe(403);
        expect(r.headers['access-control-allow-origin']).toBeUndefined();
      }
      expect((await send('POST', { Origin: `http://127.0.0.1:${host.port}` }, init())).status).toBe(200);
    });

    it('/health answers without a token and reveals nothing', async () => {
      const r = await send('GET', { Authorization: '' }, undefined, '/health');
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ status: 'ok' });
    });

    it('oversized and malformed bodies, wrong methods and media types are refused', async () => {
      const big = await send('POST', {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70 * 1024) } }));
      expect(big.status).toBe(413);
      const bad = await send('POST', {}, '{"jsonrpc": "2.0", "id": 1, "method": ');
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body).error.code).toBe(-32700);
      expect((await send('PUT', {}, init())).status).toBe(405);
      expect((await send('POST', { 'Content-Type': 'text/plain' }, init())).status).toBe(415);
      expect((await send('POST', {}, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(400); // 2025 request without a session
      expect((await send('GET', {}, undefined, '/elsewhere')).status).toBe(404);
    });

    it('a 2025 session: initialize, session id, SSE stream, DELETE, then 404', async () => {
      const r = await send('POST', {}, init());
      const sid = String(r.headers['mcp-session-id']);
      expect(sid).toMatch(/^[0-9a-f-]{36}$/);
      expect(payload(r).result.protocolVersion).toBe('2025-11-25');
      const h = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
      expect((await send('POST', h, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      expect(payload(await send('POST', h, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).result.tools.length).toBe(36); // 6 document + 7 knowledge + the spec's notes.* / media.* / chats.* + memory.search / memory.get + 15 memory tools
      expect((await send('DELETE', h)).status).toBe(200);
      expect((await send('POST', h, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(404);
      expect(payload(await send('POST', {}, init('2025-06-18'))).result.protocolVersion).toBe('2025-06-18');
    });
  });

  describe('scoped tokens', () => {
    let scoped: string;
    let searchOnly: string;
    let client: Client;
    beforeAll(async () => {
      scoped = (await f.engine.createToken({ name: 'notes-only', collections: ['notes'] })).token;
      searchOnly = (await f.engine.createToken({ name: 'search-only', tools: ['search', 'knowledge.get'] })).token;
      client = new Client({ name: 'scoped', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${scoped}` } } }));
    });
    afterAll(async () => {
      await client?.close();
    });

    it('never shows another collection: search, get, multi_get, status, resources, completions', async () => {
      const all = await client.callTool({ name: 'search', arguments: { query: 'backoff' } });
      const files = (all.structuredContent as { results: { file: string }[] }).results.map((r) => r.file);
      expect(files.length).toBeGreaterThan(0);
      expect(files.every((x) => x.startsWith('notes/'))).toBe(true);
      const other = await client.callTool({ name: 'search', arguments: { query: 'backoff', collection: 'secret' } });
      expect(other.isError).toBe(true);
      expect(firstText(other)).toBe('Not found: no collection named "secret"');
      for (const file of ['secret/plans.md', 'plans.md', 'trove://secret/plans.md']) {
        const g = await client.callTool({ name: 'get', arguments: { file } });
        expect(g.isError, file).toBe(true);
        // the caller's own words may be echoed; no title, text or suggestion from the other collection
        expect(firstText(g), file).not.toMatch(/Merger|acquisition|did you mean[^\n]*plans|- .*plans/i);
      }
      const docid = (await f.engine.get('secret/plans.md')).docid;
      expect((await client.callTool({ name: 'get', arguments: { file: `#${docid}` } })).isError).toBe(true);
      expect((await client.callTool({ name: 'multi_get', arguments: { pattern: '**/*.md' } })).content.some((c) => JSON.stringify(c).includes('plans'))).toBe(false);
      const status = await client.callTool({ name: 'status', arguments: {} });
      expect((status.structuredContent as { collections: { name: string }[] }).collections.map((c) => c.name)).toEqual(['notes']);
      expect(firstText(status)).not.toMatch(/secret/);
      await expect(client.readResource({ uri: 'trove://secret/plans.md' })).rejects.toThrow(/not found/i);
      const ref = { type: 'ref/resource' as const, uri: 'trove://{collection}/{+path}' };
      expect((await client.complete({ ref, argument: { name: 'collection', value: '' } })).completion.values).toEqual(['notes']);
      const paths = await client.complete({ ref, argument: { name: 'path', value: 'p' }, context: { arguments: { collection: 'secret' } } });
      expect(paths.completion.values).toEqual([]);
    });

    it('the knowledge tools never reach another collection either: search, sources, get, documents.*, dataset and memory URIs', async () => {
      const k = await client.callTool({ name: 'knowledge.search', arguments: { query: 'backoff acquisition merger', dedupe: false } });
      const found = (k.structuredContent as { results: { uri: string }[] }).results.map((r) => r.uri);
      expect(found.every((u) => u.startsWith('trove://notes/'))).toBe(true);
      expect(JSON.stringify(k)).not.toMatch(/secret|Merger|acquisition closes/);
      for (const [tool, args] of [
        ['knowledge.search', { query: 'backoff', sources: ['documents:secret'] }],
        ['documents.search', { query: 'backoff', collections: ['secret'] }],
      ] as const) {
        const r = await client.callTool({ name: tool, arguments: args });
        expect(r.isError, tool).toBe(true);
        expect(firstText(r), tool).toBe('Not found: no source named "documents:secret" (sources: documents:notes)');
      }
      const docid = (await f.engine.get('secret/plans.md')).docid;
      for (const args of [{ uri: 'trove://secret/plans.md' }, { source: 'documents', id: `#${docid}` }, { source: 'documents', id: 'plans.md' }]) {
        const r = await client.callTool({ name: 'knowledge.get', arguments: { ...args, retrieval: { mode: 'full' } } });
        expect(r.isError, JSON.stringify(args)).toBe(true);
        expect(firstText(r), JSON.stringify(args)).not.toMatch(/Merger|acquisition|did you mean[^\n]*plans/i);
      }
      expect((await client.callTool({ name: 'documents.get', arguments: { uri: 'trove://secret/plans.md' } })).isError).toBe(true);
      // the engine's own sources are out of a collection-scoped token's reach, by URI as well
      for (const uri of ['trove://~datasets/any/0', 'trove://~memory/1']) {
        const r = await client.callTool({ name: 'knowledge.get', arguments: { uri } });
        expect(r.isError, uri).toBe(true);
        await expect(client.readResource({ uri }), uri).rejects.toThrow();
      }
    });

    it('a token limited to tools lists and runs only those', async () => {
      const c = new Client({ name: 'search-only', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${searchOnly}` } } }));
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['search', 'knowledge.get']);
      await expect(c.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } })).rejects.toThrow(/not found/i);
      await expect(c.callTool({ name: 'knowledge.search', arguments: { query: 'backoff' } })).rejects.toThrow(/not found/i);
      await c.close();
    });

    it('a session belongs to the token that opened it', async () => {
      const r = await send('POST', {}, init());
      const sid = String(r.headers['mcp-session-id']);
      const stolen = await send('POST', { Authorization: `Bearer ${scoped}`, 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect(stolen.status).toBe(404);
    });

    it('a revoked token is refused at once', async () => {
      const { token } = await f.engine.createToken({ name: 'short-lived' });
      expect((await send('POST', { Authorization: `Bearer ${token}` }, init())).status).toBe(200);
      await f.engine.revokeToken('short-lived');
      expect((await send('POST', { Authorization: `Bearer ${token}` }, init())).status).toBe(401);
    });

    it('named tokens are rate limited (429 with Retry-After); the host token is not', async () => {
      const { token } = await f.engine.createToken({ name: 'flood' });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await send('POST', { Authorization: `Bearer ${token}` }, init())).status);
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(30)).toContain(429);
      const limited = await send('POST', { Authorization: `Bearer ${token}` }, init());
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      for (let i = 0; i < 40; i++) expect((await send('POST', {}, init())).status).toBe(200);
    });
  });
});
