// The deep-research profile with real SDK clients: a client introducing itself as ChatGPT's
// connector does (`openai-mcp`), on either protocol generation, or any client whose token has the
// deep-research profile, sees exactly search + fetch in ChatGPT's shapes, with trove:// urls the
// resource template reads; everyone else keeps the canonical tools, QMD's search among them. On
// both backends (the search, the fetched text and the token's scope come from the index).
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { describeBackends } from '../helpers/backends.js';
import { firstText, makeFixture, startTestHost, type Fixture } from './helpers.js';

describeBackends('the deep-research profile', (b) => {
  let f: Fixture;
  let host: Host;
  let deepToken: string;

  beforeAll(async () => {
    f = await makeFixture(b);
    host = await startTestHost(f);
    deepToken = (await f.engine.createToken({ name: 'chatgpt', profile: 'deep-research', collections: ['notes'] })).token;
  });
  afterAll(async () => {
    await host?.close();
    await f?.cleanup();
  });

  interface AnyClient {
    listTools(): Promise<{ tools: { name: string; outputSchema?: unknown; annotations?: { readOnlyHint?: boolean } }[] }>;
    callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown }>;
    readResource(req: { uri: string }): Promise<{ contents: { uri: string; text?: string }[] }>;
    close(): Promise<void>;
  }

  async function connect(sdk: 'v1' | 'v2 legacy' | 'v2 modern', name: string, token = host.token): Promise<AnyClient> {
    const url = new URL(host.mcpUrl);
    const requestInit = { headers: { Authorization: `Bearer ${token}` } };
    if (sdk === 'v1') {
      const c = new V1Client({ name, version: '1.0.0' });
      await c.connect(new V1Http(url, { requestInit }));
      return c as unknown as AnyClient;
    }
    const c = new V2Client({ name, version: '1.0.0' }, sdk === 'v2 modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await c.connect(new V2Http(url, { requestInit }));
    return c as unknown as AnyClient;
  }

  const cases = [
    ['v1', 'openai-mcp', 'its client name'],
    ['v2 legacy', 'openai-mcp', 'its client name'],
    ['v2 modern', 'openai-mcp', 'its client name'],
    ['v2 modern', 'some-agent', 'its token'],
    ['v1', 'some-agent', 'its token'],
  ] as const;

  describe.each(cases)('%s client "%s", deep-research by %s', (sdk, name, by) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connect(sdk, name, by === 'its token' ? deepToken : host.token);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists exactly search and fetch, read-only with output schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['fetch', 'search']);
      for (const t of tools) {
        expect(t.annotations?.readOnlyHint).toBe(true);
        expect(t.outputSchema).toBeTruthy();
      }
    });

    it('search gives one text item holding {"results":[{id,title,url}]}, fetch one holding {id,title,text,url,metadata}', async () => {
      const s = await client.callTool({ name: 'search', arguments: { query: 'exponential backoff' } });
      expect(s.isError).toBeFalsy();
      expect(s.content).toHaveLength(1);
      expect(s.content[0]!.type).toBe('text');
      const body = JSON.parse(s.content[0]!.text!) as { results: { id: string; title: string; url: string }[] };
      expect(Object.keys(body)).toEqual(['results']);
      expect(body.results.length).toBeGreaterThan(0);
      for (const r of body.results) {
        expect(Object.keys(r).sort()).toEqual(['id', 'title', 'url']);
        expect(r.url).toMatch(/^trove:\/\/\S+/);
      }
      expect(body.results[0]).toEqual({ id: 'trove://notes/retries.md', title: 'Retry policy', url: 'trove://notes/retries.md' });
      expect(s.structuredContent).toEqual(body);

      const fetched = await client.callTool({ name: 'fetch', arguments: { id: body.results[0]!.id } });
      expect(fetched.content).toHaveLength(1);
      const doc = JSON.parse(fetched.content[0]!.text!) as { id: string; title: string; text: string; url: string; metadata: Record<string, unknown> };
      expect(Object.keys(doc).sort()).toEqual(['id', 'metadata', 'text', 'title', 'url']);
      expect(doc).toMatchObject({ id: 'trove://notes/retries.md', title: 'Retry policy', url: 'trove://notes/retries.md' });
      expect(doc.text).toBe('# Retry policy\n\nWe retry HTTP calls with exponential backoff.\nJitter avoids thundering herds.\n');
      expect(doc.metadata).toMatchObject({ source: 'documents', collection: 'notes', path: 'retries.md', kind: 'markdown' });

      // the url is one the resource template reads
      const res = await client.readResource({ uri: body.results[0]!.url });
      expect(res.contents[0]!.text).toMatch(/exponential backoff/);
    });

    it('says what is wrong instead of returning nothing', async () => {
      const empty = await client.callTool({ name: 'search', arguments: { query: '' } });
      expect(empty.isError).toBe(true);
      const missing = await client.callTool({ name: 'fetch', arguments: { id: 'trove://notes/nothing.md' } });
      expect(missing.isError).toBe(true);
      expect(firstText(missing)).toMatch(/^Not found:/);
    });
  });

  describe('everyone else', () => {
    it('keeps the canonical tools, QMD’s search among them', async () => {
      for (const sdk of ['v1', 'v2 modern'] as const) {
        const client = await connect(sdk, 'claude-ai');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['search', 'get', 'knowledge.search', 'knowledge.get']));
        expect(tools.map((t) => t.name)).not.toContain('fetch');
        const s = await client.callTool({ name: 'search', arguments: { query: 'exponential backoff' } });
        expect(firstText(s)).toMatch(/^Found \d+ results? for "exponential backoff":/);
        expect((s.structuredContent as { results: { file: string }[] }).results[0]!.file).toBe('notes/retries.md');
        await client.close();
      }
    });

    it('a deep-research token keeps its collection scope', async () => {
      const client = await connect('v2 modern', 'some-agent', deepToken);
      const s = await client.callTool({ name: 'search', arguments: { query: 'welcome guide acquisition' } });
      const urls = (s.structuredContent as { results: { url: string }[] }).results.map((r) => r.url);
      expect(urls.length).toBeGreaterThan(0);
      expect(urls.every((u) => u.startsWith('trove://notes/'))).toBe(true);
      const hidden = await client.callTool({ name: 'fetch', arguments: { id: 'trove://secret/plans.md' } });
      expect(hidden.isError).toBe(true);
      expect(firstText(hidden)).toMatch(/^Not found:/);
      await client.close();
    });
  });
});
