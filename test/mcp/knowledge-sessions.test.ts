// Knowledge sessions and per-request config over real HTTP: a 2025 session (Mcp-Session-Id) and
// a stateless 2026-07-28 client (the handle it sends back) each dedupe repeated and paginated
// searches until the results run out; DELETE ends either; the base64 `config` query parameter
// and initialize's config are clamped, and precedence is tool input > session defaults >
// request config > global defaults. On both backends (the pages a session dedupes are the index's).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { describeBackends } from '../helpers/backends.js';
import { firstText, makeFixture, startTestHost, type Fixture } from './helpers.js';

describeBackends('knowledge sessions', (backend) => {
  let f: Fixture;
  let host: Host;

  beforeAll(async () => {
    f = await makeFixture(backend);
    host = await startTestHost(f);
  });
  afterAll(async () => {
    await host?.close();
    await f?.cleanup();
  });

  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');

  async function connect(era: 'legacy' | 'modern', opts: { config?: unknown; token?: string } = {}): Promise<Client> {
    const url = new URL(host.mcpUrl);
    if (opts.config !== undefined) url.searchParams.set('config', b64(opts.config));
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${opts.token ?? host.token}` } } });
    const client = new Client({ name: `sessions-${era}`, version: '2' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(transport);
    return client;
  }

  interface SearchOut {
    results: { uri: string }[];
    skipped: number;
    notices: string[];
    session: string | null;
    next_offset: number | null;
    has_more: boolean;
  }

  async function search(client: Client, args: Record<string, unknown>): Promise<SearchOut> {
    const r = await client.callTool({ name: 'knowledge.search', arguments: { query: 'backoff', limit: 2, ...args } });
    expect(r.isError, firstText(r)).toBeFalsy();
    return r.structuredContent as unknown as SearchOut;
  }

  const uris = (r: SearchOut) => r.results.map((x) => x.uri);
  // four documents mention backoff: retries.md, guide/intro.md, big.md, secret/plans.md
  const ALL = ['trove://notes/big.md', 'trove://notes/guide/intro.md', 'trove://notes/retries.md', 'trove://secret/plans.md'];

  describe.each(['legacy', 'modern'] as const)('dedupe in a %s session', (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(era);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('a repeated search brings new results until they run out, then starts over and says so', async () => {
      const first = await search(client, {});
      const handle = first.session ?? undefined;
      if (era === 'modern') expect(handle).toMatch(/^ks_/);
      else expect(first.session).toBeNull(); // the Mcp-Session-Id carries it
      const second = await search(client, { session: handle });
      expect(second.skipped).toBe(2);
      expect(uris(second)).toHaveLength(2);
      expect([...uris(first), ...uris(second)].sort()).toEqual(ALL);
      const third = await search(client, { session: handle });
      expect(uris(third)).toEqual(uris(first));
      expect(third.notices.join(' ')).toMatch(/already returned in this session; returning them again/);
      // dedupe off: the same page every time
      expect(uris(await search(client, { session: handle, dedupe: false }))).toEqual(uris(first));
    });

    it('paging on with next_offset returns each result once, and the pages together are the whole list', async () => {
      const own = await connect(era); // a session of its own: nothing returned yet
      const whole = await search(own, { limit: 10, dedupe: false });
      const p1 = await search(own, { session: whole.session ?? undefined });
      const handle = p1.session ?? undefined;
      expect(p1.skipped).toBe(0);
      expect(p1.has_more).toBe(true);
      const p2 = await search(own, { session: handle, offset: p1.next_offset });
      expect(p2.skipped).toBe(0);
      expect([...uris(p1), ...uris(p2)]).toEqual(uris(whole));
      // page 1 again: every result has been returned by now, so they come round again
      const again = await search(own, { session: handle });
      expect(uris(again)).toEqual(uris(p1));
      expect(again.notices.join(' ')).toMatch(/returning them again/);
      await own.close();
    });
  });

  describe('stateless handles', () => {
    it('without a handle every call stands alone; an unknown or another token’s handle starts a new session', async () => {
      const client = await connect('modern');
      const a = await search(client, {});
      const b = await search(client, {});
      expect(uris(b)).toEqual(uris(a));
      expect(b.session).not.toBe(a.session);

      const { token } = await f.engine.createToken({ name: 'other-client' });
      const other = await connect('modern', { token });
      const stolen = await search(other, { session: a.session });
      expect(stolen.session).not.toBe(a.session);
      expect(stolen.skipped).toBe(0);
      expect(stolen.notices.join(' ')).toMatch(/unknown or has expired: a new one was started/);
      await other.close();
      await client.close();
    });

    it('DELETE with the handle ends it (404 the second time); a 2025 session’s DELETE ends its knowledge session', async () => {
      const client = await connect('modern');
      const { session } = await search(client, {});
      const del = () => fetch(host.mcpUrl, { method: 'DELETE', headers: { Authorization: `Bearer ${host.token}`, 'Mcp-Session-Id': session! } });
      expect((await del()).status).toBe(200);
      expect((await del()).status).toBe(404);
      const after = await search(client, { session });
      expect(after.notices.join(' ')).toMatch(/unknown or has expired/);
      await client.close();

      const legacy = await connect('legacy');
      await search(legacy, {});
      const before = host.mcp.knowledgeSessions.size;
      await (legacy.transport as StreamableHTTPClientTransport).terminateSession();
      expect(host.mcp.knowledgeSessions.size).toBe(before - 1);
      await legacy.close();
    });
  });

  describe('recent queries', () => {
    it('knowledge.get without a loc anchors on the session’s last query', async () => {
      const client = await connect('legacy');
      await search(client, { query: 'thundering herds' });
      const r = await client.callTool({ name: 'knowledge.get', arguments: { uri: 'trove://notes/retries.md', retrieval: { mode: 'snippet', snippet_length: 50 } } });
      const g = r.structuredContent as { content: string; retrieval: { anchored_by: string } };
      expect(g.retrieval.anchored_by).toBe('query');
      expect(g.content).toMatch(/thundering/i);
      await client.close();
    });
  });

  // ---- config ------------------------------------------------------------------------------

  interface GetOut {
    content: string;
    retrieval: { max_tokens: number; mode: string; chars_per_token: number };
  }

  async function get(client: Client, retrieval: Record<string, unknown> = {}, session?: string | null): Promise<GetOut> {
    const r = await client.callTool({ name: 'knowledge.get', arguments: { uri: 'trove://notes/big.md', retrieval, ...(session ? { session } : {}) } });
    expect(r.isError, firstText(r)).toBeFalsy();
    return r.structuredContent as unknown as GetOut;
  }

  /** A 2025 session opened by hand, to send initialize's params.config (the SDK clients cannot). */
  async function rawSession(urlConfig: unknown, initConfig: unknown) {
    const url = `${host.mcpUrl}?config=${encodeURIComponent(b64(urlConfig))}`;
    const headers = { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const post = async (body: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      const text = await res.text();
      const json = /^data: (.+)$/m.exec(text)?.[1] ?? text;
      return { res, msg: json ? (JSON.parse(json) as { result?: { structuredContent?: unknown } }) : null };
    };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-config', version: '1' }, config: initConfig },
    });
    const sid = init.res.headers.get('mcp-session-id')!;
    const h = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, h);
    let id = 2;
    return {
      get: async (retrieval: Record<string, unknown> = {}) =>
        (await post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'knowledge.get', arguments: { uri: 'trove://notes/big.md', retrieval } } }, h)).msg!.result!
          .structuredContent as GetOut,
    };
  }

  describe('per-request config', () => {
    it('is clamped: snippet_length 10 is 50, 99999 is 2000; unknown keys and credentials are ignored', async () => {
      const low = await connect('modern', { config: { snippet_length: 10, api_key: 'secret-value', colour: 'blue' } });
      const s = await low.callTool({ name: 'knowledge.session', arguments: {} });
      expect((s.structuredContent as { defaults: { snippet_length: number } }).defaults.snippet_length).toBe(50);
      for (const x of (await search(low, { dedupe: false })).results as unknown as { snippet: string }[]) expect(x.snippet.length).toBeLessThanOrEqual(50);
      await low.close();
      const high = await connect('legacy', { config: { snippet_length: 99999, max_tokens: -5 } });
      const d = (await high.callTool({ name: 'knowledge.session', arguments: {} })).structuredContent as { defaults: { snippet_length: number; max_tokens: number } };
      expect(d.defaults).toMatchObject({ snippet_length: 2000, max_tokens: 16 });
      await high.close();
    });

    it('an unreadable config is ignored, never an error', async () => {
      const res = await fetch(`${host.mcpUrl}?config=%%%not-base64`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/knowledge\.search/);
    });

    it('precedence on a stateless client: tool input > session defaults > request config > global', async () => {
      const plain = await connect('modern');
      expect((await get(plain)).retrieval.max_tokens).toBe(5000); // global default
      expect((await get(plain, { mode: 'auto' })).retrieval.mode).toBe('snippet'); // nobody set max_tokens
      await plain.close();

      const client = await connect('modern', { config: { max_tokens: 100, chars_per_token: 2 } });
      expect((await get(client)).retrieval).toMatchObject({ max_tokens: 100, chars_per_token: 2 }); // request config
      expect((await get(client, { mode: 'auto' })).retrieval.mode).toBe('chunk_with_siblings'); // max_tokens set by the config
      const s = (await client.callTool({ name: 'knowledge.session', arguments: { defaults: { max_tokens: 200 } } })).structuredContent as { session: string };
      expect((await get(client, {}, s.session)).retrieval).toMatchObject({ max_tokens: 200, chars_per_token: 2 }); // session > request
      expect((await get(client, { max_tokens: 300 }, s.session)).retrieval.max_tokens).toBe(300); // tool > session
      expect((await get(client, { max_tokens: 10 ** 9 }, s.session)).retrieval.max_tokens).toBe(100_000); // clamped
      await client.close();
    });

    it('precedence on a 2025 session: initialize config is the session default, above the URL config', async () => {
      const raw = await rawSession({ max_tokens: 100, sibling_window: 3 }, { max_tokens: 200, unknown_knob: 1 });
      const plain = await raw.get();
      expect(plain.retrieval.max_tokens).toBe(200);
      expect((await raw.get({ max_tokens: 300 })).retrieval.max_tokens).toBe(300);
      expect(Math.ceil(plain.content.length / 4)).toBeLessThanOrEqual(200);
    });
  });
});
