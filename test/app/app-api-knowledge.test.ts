// The app API's knowledge calls (the Search screen's "All sources" and its retrieval preview), the
// token profile the Connect screen sets, and the sessions it lists — on a real host with a real
// MCP client holding a session. On both backends (sources, items and tokens are the index's).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientSession, KnowledgeGetResponse, KnowledgeSearchResponse, KnowledgeSourceInfo, TokenInfo } from '../../src-main/api/results.js';
import { mountAppApi, type MountedAppApi } from '../../src-main/host/app-api-mount.js';
import type { Host } from '../../src-main/host/host.js';
import { ok } from '../helpers/app-api.js';
import { describeBackends } from '../helpers/backends.js';
import { makeFixture, startTestHost, type Fixture } from '../mcp/helpers.js';

describeBackends("the app API's knowledge and connect calls", (b) => {
  let f: Fixture;
  let host: Host;
  let mounted: MountedAppApi;

  beforeAll(async () => {
    f = await makeFixture(b);
    host = await startTestHost(f);
    mounted = mountAppApi(host, { ui: false });
  });

  afterAll(async () => {
    await mounted?.close();
    await host?.close();
    await f?.cleanup();
  });

  describe('knowledge calls', () => {
    it('lists the sources, searches them merged, and previews an item in each retrieval mode with its token count', async () => {
      const sources = ok<KnowledgeSourceInfo[]>(await mounted.api.call('knowledge.sources', {}));
      expect(sources.map((s) => [s.source, s.items, s.defaultMode])).toEqual([
        ['documents:notes', 3, 'keyword'],
        ['documents:secret', 1, 'keyword'],
        ['memory', 0, 'keyword'], // listed, unavailable while empty
      ]);
      const r = ok<KnowledgeSearchResponse>(await mounted.api.call('knowledge.search', { query: 'exponential backoff', limit: 5 }));
      expect(r.results[0]!.uri).toBe('trove://notes/retries.md');
      for (const mode of ['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto'] as const) {
        const g = ok<KnowledgeGetResponse>(await mounted.api.call('knowledge.get', { uri: 'trove://notes/big.md', retrieval: { mode, max_tokens: 120 } }));
        expect(g.retrieval.tokens).toBe(Math.ceil(g.content.length / 4));
        expect(g.retrieval.tokens).toBeLessThanOrEqual(120);
      }
      const bad = await mounted.api.call('knowledge.get', { uri: 'trove://notes/missing.md' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    });

    it('applies the redaction rules to what it shows, as the MCP tools do', async () => {
      ok(await mounted.api.call('settings.update', { redaction: ['thundering\\s+herds'] }));
      try {
        const g = ok<KnowledgeGetResponse>(await mounted.api.call('knowledge.get', { uri: 'trove://notes/retries.md', retrieval: { mode: 'full' } }));
        expect(g.content).toMatch(/\[redacted\]/);
        expect(g.content).not.toMatch(/thundering/);
      } finally {
        ok(await mounted.api.call('settings.update', { redaction: [] }));
      }
    });
  });

  describe('connect', () => {
    it('creates a token with the deep-research profile, and refuses an unknown profile', async () => {
      const created = ok<{ token: string; info: TokenInfo }>(await mounted.api.call('tokens.create', { name: 'chatgpt', profile: 'deep-research' }));
      expect(created.info.profile).toBe('deep-research');
      expect(ok<{ tokens: TokenInfo[]; toolNames: string[] }>(await mounted.api.call('tokens.list', {})).toolNames).toEqual(
        expect.arrayContaining(['knowledge.search', 'knowledge.get', 'documents.search', 'fetch']),
      );
      expect(await mounted.api.call('tokens.create', { name: 'x', profile: 'everything' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      // what its clients get
      const client = new Client({ name: 'any-name', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${created.token}` } } }));
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['fetch', 'search']);
      await client.close();
    });

    it('lists the tokens kept in the index, scoped ones with their collections; a revoked one is gone and refused', async () => {
      const made = ok<{ token: string; info: TokenInfo }>(await mounted.api.call('tokens.create', { name: 'reader', collections: ['notes'] }));
      expect(made.token).toMatch(/^trove_/);
      const listed = ok<{ tokens: TokenInfo[] }>(await mounted.api.call('tokens.list', {})).tokens;
      expect(listed.map((t) => [t.name, t.collections])).toEqual([['chatgpt', null], ['reader', ['notes']]]);
      expect(await mounted.api.call('tokens.create', { name: 'x', tools: ['nope'] })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      ok(await mounted.api.call('tokens.revoke', { name: 'reader' }));
      expect(ok<{ tokens: TokenInfo[] }>(await mounted.api.call('tokens.list', {})).tokens.map((t) => t.name)).toEqual(['chatgpt']);
      const refused = await fetch(host.mcpUrl, { method: 'POST', headers: { Authorization: `Bearer ${made.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(refused.status).toBe(401);
    });

    it('lists the knowledge sessions clients hold, by client name', async () => {
      const client = new Client({ name: 'session-holder', version: '7' });
      await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
      await client.callTool({ name: 'knowledge.search', arguments: { query: 'backoff' } });
      const sessions = ok<ClientSession[]>(await mounted.api.call('connect.sessions', {}));
      expect(sessions.find((s) => s.client?.name === 'session-holder')).toMatchObject({ kind: 'mcp-session', protocol: '2025', token: 'runtime', client: { version: '7' }, queries: 1 });
      await client.close();
    });
  });
});
