// The knowledge toolset driven by real SDK clients over real HTTP against a real engine: the v1
// SDK client (a 2025-11-25 session) and the v2 client on both protocol generations (a 2025 session
// and stateless 2026-07-28). Every tool answers the same way on each: the spec's shapes in
// structuredContent and as JSON text, isError with a reason for bad input, the token budget held.
// On both backends: every client kind on SQLite, the stateless client on PostgreSQL (the answers
// come from the index; the SDK generations do not depend on which one holds it).
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { describeBackends } from '../helpers/backends.js';
import { firstText, makeFixture, startTestHost, type Fixture } from './helpers.js';

describeBackends('the knowledge toolset', (b) => {
  let f: Fixture;
  let host: Host;

  beforeAll(async () => {
    f = await makeFixture(b);
    host = await startTestHost(f);
  });
  afterAll(async () => {
    await host?.close();
    await f?.cleanup();
  });

  /** What the tests need of a client, whichever SDK it is. */
  interface AnyClient {
    listTools(): Promise<{ tools: { name: string; title?: string; annotations?: { readOnlyHint?: boolean }; outputSchema?: unknown }[] }>;
    callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean; content: unknown; structuredContent?: unknown }>;
    close(): Promise<void>;
  }

  type Kind = 'v1 (2025 session)' | 'v2 (2025 session)' | 'v2 (2026-07-28)';

  async function connect(kind: Kind): Promise<AnyClient> {
    const url = new URL(host.mcpUrl);
    const requestInit = { headers: { Authorization: `Bearer ${host.token}` } };
    if (kind.startsWith('v1')) {
      const client = new V1Client({ name: 'knowledge-v1', version: '1' });
      await client.connect(new V1Http(url, { requestInit }));
      return client as unknown as AnyClient;
    }
    const client = new V2Client({ name: 'knowledge-v2', version: '1' }, kind.includes('2026') ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(new V2Http(url, { requestInit }));
    expect(client.getProtocolEra()).toBe(kind.includes('2026') ? 'modern' : 'legacy');
    return client as unknown as AnyClient;
  }

  const structured = <T = Record<string, unknown>>(r: { structuredContent?: unknown }) => r.structuredContent as T;
  interface Item {
    id: string;
    uri: string;
    path: string;
    score: number;
    snippet: string | null;
    loc: { chunk_index: number } | null;
  }

  const kinds: readonly Kind[] = b.name === 'sqlite' ? ['v1 (2025 session)', 'v2 (2025 session)', 'v2 (2026-07-28)'] : ['v2 (2026-07-28)'];
  describe.each(kinds)('knowledge tools, %s', (kind) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connect(kind);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists the knowledge tools with titles, output schemas and read-only hints', async () => {
      const { tools } = await client.listTools();
      const names = ['knowledge.search', 'knowledge.get', 'knowledge.session', 'documents.search', 'documents.get', 'datasets.search', 'datasets.get'];
      for (const name of names) {
        const t = tools.find((x) => x.name === name);
        expect(t, name).toBeDefined();
        expect(t!.title, name).toBeTruthy();
        expect(t!.outputSchema, name).toBeTruthy();
        expect(t!.annotations?.readOnlyHint, name).toBe(name !== 'knowledge.session');
      }
    });

    it('knowledge.search: the spec result shape, as structuredContent and the same JSON as text', async () => {
      const r = await client.callTool({ name: 'knowledge.search', arguments: { query: 'exponential backoff jitter', dedupe: false } });
      expect(r.isError).toBeFalsy();
      const s = structured<{ results: Item[]; has_more: boolean; mode: string; sources: { source: string }[] }>(r);
      expect(JSON.parse(firstText(r))).toEqual(s);
      expect(s.results[0]).toMatchObject({ source: 'documents', collection: 'notes', path: 'retries.md', uri: 'trove://notes/retries.md', title: 'Retry policy', score_type: 'fts' });
      expect(s.results[0]!.score).toBeGreaterThan(0);
      expect(s.results[0]!.score).toBeLessThanOrEqual(1);
      expect(s.mode).toBe('keyword');
      expect(s.sources.map((x) => x.source)).toEqual(['documents']);
      // the query's words marked in the snippet as every face marks them: whole words, stemmed, no stop words
      const first = s.results[0]! as Item & { highlights: [number, number][] };
      const marked = first.highlights.map(([a, b]) => first.snippet!.slice(a, b).toLowerCase());
      expect(marked.length).toBeGreaterThan(1);
      for (const word of marked) expect(['exponential', 'backoff', 'jitter']).toContain(word);
    });

    it('knowledge.get marks the words of its query in the content', async () => {
      const g = await client.callTool({ name: 'knowledge.get', arguments: { uri: 'trove://notes/retries.md', query: 'the thundering herds', retrieval: { mode: 'full' } } });
      const s = g.structuredContent as { content: string; highlights: [number, number][] };
      expect(s.highlights.map(([a, b]) => s.content.slice(a, b))).toEqual(['thundering', 'herds']);
    });

    it('knowledge.search: bad input is an isError that says what is wrong', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ query: '' }, /query/],
        [{ query: 'x', limit: 'ten' }, /limit/],
        [{ query: 'x', sources: ['recipes'] }, /unknown source "recipes"/],
        [{ query: 'x', sources: ['documents:nope'] }, /no source named "documents:nope"/],
        [{ query: 'x', mode: 'fuzzy' }, /mode/],
        [{ query: 'x', topK: 0, dataset: 'd' }, /topK/],
        [{ query: 'x', filters: { date_from: 'soon' } }, /date_from is not a date/],
      ];
      for (const [args, why] of cases) {
        const r = await client.callTool({ name: 'knowledge.search', arguments: args });
        expect(r.isError, JSON.stringify(args)).toBe(true);
        expect(firstText(r), JSON.stringify(args)).toMatch(why);
      }
    });

    it('knowledge.get: every retrieval mode within max_tokens, anchored on the result loc', async () => {
      const s = structured<{ results: Item[] }>(await client.callTool({ name: 'knowledge.search', arguments: { query: 'backoff', sources: ['documents:notes'], dedupe: false } }));
      const big = s.results.find((x) => x.path === 'big.md')!;
      for (const mode of ['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto']) {
        for (const [max, cpt] of [[20, 4], [333, 3.3], [2000, 1]] as const) {
          const r = await client.callTool({ name: 'knowledge.get', arguments: { source: 'documents', id: big.id, loc: big.loc, retrieval: { mode, max_tokens: max, chars_per_token: cpt } } });
          expect(r.isError, `${mode} ${max}`).toBeFalsy();
          const g = structured<{ content: string; retrieval: { tokens: number; max_tokens: number; mode: string; anchored_by: string } }>(r);
          expect(JSON.parse(firstText(r))).toEqual(g);
          expect(Math.ceil(g.content.length / cpt), `${mode} ${max} ${cpt}`).toBeLessThanOrEqual(max);
          expect(g.retrieval.tokens).toBe(Math.ceil(g.content.length / cpt));
          expect(g.retrieval.max_tokens).toBe(max);
          if (mode !== 'full') expect(g.retrieval.anchored_by).toBe('loc');
          if (mode === 'auto') expect(g.retrieval.mode).toBe('chunk_with_siblings');
        }
      }
    });

    it('knowledge.get: by uri without a source; clear errors for a bad id, cursor or anchor', async () => {
      const ok = await client.callTool({ name: 'knowledge.get', arguments: { uri: 'trove://notes/guide/intro.md', retrieval: { mode: 'full' } } });
      expect(structured<{ content: string }>(ok).content).toMatch(/^# Intro\n\nWelcome to the guide/);
      const cases: [Record<string, unknown>, RegExp][] = [
        [{}, /needs an id/],
        [{ id: 'notes/retries.md' }, /source is required/],
        [{ source: 'documents', id: 'notes/retrys.md' }, /Not found: .*did you mean notes\/retries\.md/],
        [{ uri: 'trove://notes/../secret/plans.md' }, /leave their collection/],
        [{ uri: 'trove://notes/retries.md', cursor: 'garbage', retrieval: { mode: 'full' } }, /cursor/],
        [{ uri: 'trove://notes/retries.md', loc: { chunk_index: 40 } }, /not a chunk of this item/],
        [{ uri: 'trove://notes/retries.md', retrieval: { mode: 'everything' } }, /mode/],
      ];
      for (const [args, why] of cases) {
        const r = await client.callTool({ name: 'knowledge.get', arguments: args });
        expect(r.isError, JSON.stringify(args)).toBe(true);
        expect(firstText(r), JSON.stringify(args)).toMatch(why);
      }
    });

    it('documents.search and documents.get: the same shapes, limited to collections', async () => {
      const r = structured<{ results: Item[] }>(await client.callTool({ name: 'documents.search', arguments: { query: 'backoff', collections: ['secret'], dedupe: false } }));
      expect(r.results.map((x) => x.uri)).toEqual(['trove://secret/plans.md']);
      const g = await client.callTool({ name: 'documents.get', arguments: { id: r.results[0]!.id, retrieval: { mode: 'chunk' } } });
      expect(structured<{ content: string; meta: { collection: string } }>(g)).toMatchObject({ meta: { collection: 'secret' }, content: expect.stringMatching(/acquisition closes/) });
      const bad = await client.callTool({ name: 'documents.search', arguments: { query: 'backoff', collections: ['nope'] } });
      expect(firstText(bad)).toMatch(/no source named "documents:nope"/);
    });

    it('knowledge.session: returns the session, sets soft defaults, ends it', async () => {
      const first = structured<{ session: string | null; protocol: string; defaults: { snippet_length: number }; client: { name: string } }>(
        await client.callTool({ name: 'knowledge.session', arguments: { defaults: { snippet_length: 70, order_by: 'recent' } } }),
      );
      expect(first.protocol).toBe(kind.includes('2026') ? '2026-07-28' : '2025');
      expect(first.client?.name).toBe(kind.startsWith('v1') ? 'knowledge-v1' : 'knowledge-v2');
      expect(first.defaults.snippet_length).toBe(70);
      // a 2025 session is its protocol session; a stateless client carries the handle
      if (kind.includes('2026')) expect(first.session).toMatch(/^ks_/);
      else expect(first.session).toBeNull();
      const handle = first.session ?? undefined;
      const s = structured<{ results: Item[]; order_by: string }>(await client.callTool({ name: 'knowledge.search', arguments: { query: 'backoff', session: handle, dedupe: false } }));
      expect(s.order_by).toBe('recent');
      for (const x of s.results) expect(x.snippet!.length).toBeLessThanOrEqual(70);
      const ended = structured<{ ended: boolean }>(await client.callTool({ name: 'knowledge.session', arguments: { session: handle, end: true } }));
      expect(ended.ended).toBe(true);
    });
  });
});
