// The dataset side of the knowledge toolset through real SDK clients (v1 over a 2025 session, v2
// over both protocol generations) against a real host whose engine has the committed FAISS
// fixtures and the folder dataset: datasets.search / datasets.get, the spec's
// {dataset, query, topK} alias with the dataset's defaultTopK, dataset URIs read by the resource
// template and by the deep-research fetch, and a collection-scoped token that reaches no dataset.
// On SQLite with every client generation; on PostgreSQL (the folder dataset's index, the token's
// scope and its verification are the storage's) with the newest one.
import fs from 'node:fs';
import path from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { modelsDir } from '../embed/models-dir.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { firstText } from '../mcp/helpers.js';
import { FIXTURES } from './fixtures.js';

const QUESTION = 'how do I fix a flat tire on my bike';
const GENERATIONS = ['v1 (2025 session)', 'v2 (2025 session)', 'v2 (2026-07-28)'];

describeBackends('the dataset knowledge tools over MCP', (b) => {
  let host: Host;
  let engine: Engine;

  beforeAll(async () => {
    engine = await b.open({ embeddings: { modelsDir, workers: 1 } });
    const notes = tempDir('trove-mcp-notes-');
    writeTree(notes, { 'retries.md': '# Retry policy\n\nWe retry HTTP calls with exponential backoff.\n', 'bikes.md': '# My bikes\n\nThe tire on the old bike goes flat every week; I fix it on Sundays.\n' });
    const secret = tempDir('trove-mcp-secret-');
    writeTree(secret, { 'plans.md': '# Merger plans\n\nThe acquisition closes in spring.\n' });
    await engine.addCollection({ root: notes, name: 'notes', context: 'Engineering notes' });
    await engine.addCollection({ root: secret, name: 'secret' });
    const holder = tempDir('trove-mcp-datasets-');
    for (const id of ['ip', 'handbook', 'truncated']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
    await engine.datasets.addFolder(holder);
    await engine.index(); // the folder dataset is indexed with the collections
    await engine.datasets.settled();
    host = await startHost({ engine, port: 0, writeRuntimeFile: false, token: 'test-runtime-token-0123456789' });
  }, 120_000);

  afterAll(async () => {
    await host?.close();
  });

  interface AnyClient {
    listTools(): Promise<{ tools: { name: string }[] }>;
    callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown }>;
    readResource(req: { uri: string }): Promise<{ contents: { uri: string; text?: string }[] }>;
    close(): Promise<void>;
  }

  async function connect(kind: string, name = 'datasets-client', token = host.token): Promise<AnyClient> {
    const url = new URL(host.mcpUrl);
    const requestInit = { headers: { Authorization: `Bearer ${token}` } };
    if (kind.startsWith('v1')) {
      const c = new V1Client({ name, version: '1' });
      await c.connect(new V1Http(url, { requestInit }));
      return c as unknown as AnyClient;
    }
    const c = new V2Client({ name, version: '1' }, kind.includes('2026') ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await c.connect(new V2Http(url, { requestInit }));
    return c as unknown as AnyClient;
  }

  interface Item {
    id: string;
    uri: string;
    path: string;
    title: string;
    snippet: string | null;
    score: number;
    dataset?: string;
    loc: { chunk_index: number } | null;
  }
  const results = (r: { structuredContent?: unknown }) => (r.structuredContent as { results: Item[] }).results;

  describe.each(b.name === 'sqlite' ? GENERATIONS : GENERATIONS.slice(-1))('datasets over %s', (kind) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connect(kind);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists datasets.search and datasets.get beside the other knowledge tools', async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['datasets.search', 'datasets.get', 'knowledge.search', 'knowledge.get']));
    });

    it('the spec alias {dataset, query, topK}: topK, else the dataset’s defaultTopK; each result has score, title, path and snippet', async () => {
      const two = await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'ip', query: QUESTION, topK: 2, dedupe: false } });
      expect(results(two)).toHaveLength(2);
      const r = results(await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'ip', query: QUESTION, dedupe: false } }));
      expect(r).toHaveLength(3); // ip's manifest: defaultTopK 3
      expect(r[0]).toMatchObject({ title: 'Fixing a flat bicycle tire', path: 'repairs/bike-tire.md', dataset: 'ip' });
      for (const x of r) {
        expect(x.score).toBeGreaterThan(0);
        expect(x.score).toBeLessThanOrEqual(1);
        expect(x.snippet).toBeTruthy();
      }
      const missing = await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'nope', query: QUESTION } });
      expect(missing.isError).toBe(true);
      expect(firstText(missing)).toMatch(/no source named "datasets:nope" \(sources: datasets:handbook, datasets:ip, datasets:truncated\)/);
      const broken = await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'truncated', query: QUESTION } });
      expect(broken.isError).toBe(true);
      expect(firstText(broken)).toMatch(/^Unavailable: datasets:truncated skipped: dataset "truncated" is error: index\.faiss cannot be read/);
    });

    it('datasets.search over every ready dataset, or some; datasets.get by id, by dataset + ref, or by uri', async () => {
      const all = await client.callTool({ name: 'datasets.search', arguments: { query: 'lost badge', dedupe: false } });
      const sources = (all.structuredContent as { sources: { source: string }[] }).sources.map((s) => s.source);
      expect(sources.sort()).toEqual(['datasets:handbook', 'datasets:ip']);
      const hb = results(await client.callTool({ name: 'datasets.search', arguments: { query: 'lost badge', datasets: ['handbook'], dedupe: false } }));
      expect(hb[0]).toMatchObject({ id: 'handbook:security.md', uri: 'trove://~datasets/handbook/security.md', dataset: 'handbook' });
      for (const args of [{ id: hb[0]!.id }, { dataset: 'handbook', id: 'security.md' }, { uri: hb[0]!.uri }]) {
        const g = await client.callTool({ name: 'datasets.get', arguments: { ...args, loc: hb[0]!.loc, retrieval: { mode: 'chunk_with_siblings', max_tokens: 40 } } });
        expect(g.isError, JSON.stringify(args)).toBeFalsy();
        const s = g.structuredContent as { content: string; meta: { dataset: string }; retrieval: { tokens: number } };
        expect(s.meta.dataset).toBe('handbook');
        expect(s.retrieval.tokens).toBeLessThanOrEqual(40);
        expect(s.content).toMatch(/badge/);
      }
      const bad = await client.callTool({ name: 'datasets.get', arguments: { dataset: 'handbook', id: 'nope.md' } });
      expect(bad.isError).toBe(true);
      expect(firstText(bad)).toMatch(/^Not found: dataset "handbook" has no document "nope\.md"/);
    });

    it('knowledge.get and the resource template read a FAISS entry by its trove://~datasets/ URI', async () => {
      const hit = results(await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'ip', query: QUESTION, topK: 1, dedupe: false } }))[0]!;
      const g = await client.callTool({ name: 'knowledge.get', arguments: { uri: hit.uri, retrieval: { mode: 'full' } } });
      expect((g.structuredContent as { content: string }).content).toMatch(/^Take the wheel off/);
      const res = await client.readResource({ uri: hit.uri });
      expect(res.contents[0]!.text).toMatch(/^Take the wheel off/);
    });
  });

  describe('scope and profiles', () => {
    it('a deep-research client finds dataset items and fetches them by their URI', async () => {
      const client = await connect('v2 (2026-07-28)', 'openai-mcp');
      const s = await client.callTool({ name: 'search', arguments: { query: QUESTION } });
      const body = JSON.parse(s.content[0]!.text!) as { results: { id: string; url: string }[] };
      const entry = body.results.find((r) => r.url.startsWith('trove://~datasets/ip/'))!;
      const doc = JSON.parse((await client.callTool({ name: 'fetch', arguments: { id: entry.id } })).content[0]!.text!) as { text: string; metadata: Record<string, unknown> };
      expect(doc.text).toMatch(/^Take the wheel off/);
      expect(doc.metadata).toMatchObject({ source: 'datasets', dataset: 'ip', path: 'repairs/bike-tire.md' });
      await client.close();
    });

    it('a token scoped to collections reaches no dataset: not in search, not by id, not by URI', async () => {
      const { token } = await engine.createToken({ name: 'notes-only', collections: ['notes'] });
      const client = await connect('v2 (2026-07-28)', 'scoped', token);
      const k = await client.callTool({ name: 'knowledge.search', arguments: { query: QUESTION } });
      expect(results(k).map((x) => x.uri)).toEqual(['trove://notes/bikes.md']);
      const alias = await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'ip', query: QUESTION } });
      expect(firstText(alias)).toBe('Not found: no source named "datasets:ip"');
      expect((await client.callTool({ name: 'datasets.search', arguments: { query: QUESTION } })).isError).toBe(true);
      const byId = await client.callTool({ name: 'datasets.get', arguments: { id: 'ip:2' } });
      expect(firstText(byId)).toBe('Not found: no dataset "ip"');
      await expect(client.readResource({ uri: 'trove://~datasets/ip/2' })).rejects.toThrow(/not found/i);
      await client.close();
    });
  });
});
