// Memory as a knowledge source, over real MCP clients against a real engine with the real
// embedding model: memory.search / memory.get in the common result shape, memory in
// knowledge.search's default sources for a token whose grant lets it read (and nowhere for one
// without: not in results, not by name, not by URI, not as a resource), the tags and date
// filters applied to memory, and knowledge.get on an entry in every retrieval mode within budget.
// On both backends.
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackends } from '../helpers/backends.js';
import { connectClient, memoryFixture, type MemoryFixture, type ToolClient, type ToolResult } from './memory-helpers.js';

/** One thread of five messages (the middle one long), one other thread, stored with fixed times. */
const ENTRIES = [
  { key: 'ask', thread_id: 'rollout', source: 'user', text: 'Why did the canary rollout of the billing service stall?', created_at: '2025-03-01T09:00:00Z', tags: ['billing'] },
  {
    key: 'answer',
    thread_id: 'rollout',
    source: 'agent',
    text: `The canary rollout stalled: the billing service retried without jitter, so every replica hammered the ledger at once.\n\n${'Each replica logged the same retry storm. '.repeat(60)}`,
    created_at: '2025-03-01T09:01:00Z',
    tags: ['billing', 'incident'],
  },
  { key: 'fix', thread_id: 'rollout', source: 'user', text: 'Add jitter to the ledger client and resume the canary.', created_at: '2025-03-01T09:02:00Z', tags: ['billing'] },
  { key: 'done', thread_id: 'rollout', source: 'agent', text: 'Jitter added; the canary finished cleanly.', created_at: '2025-03-01T09:03:00Z', tags: [] },
  { key: 'later', thread_id: 'rollout', source: 'user', text: 'Thanks.', created_at: '2025-03-01T09:04:00Z', tags: [] },
  { key: 'lunch', thread_id: 'errands', source: 'user', text: 'The billing office closes early on Fridays.', created_at: '2026-01-10T12:00:00Z', tags: ['errands'] },
];

interface Item {
  id: string;
  source: string;
  thread_id?: string;
  title: string;
  snippet: string | null;
  uri: string;
  score: number;
  score_type: string;
  created_at: string | null;
  last_modified: string | null;
  tags: string[] | null;
  loc: { chunk_index: number } | null;
}
interface Search {
  results: Item[];
  sources: { source: string; mode: string | null }[];
  notices: string[];
}
interface Got {
  meta: Item;
  content: string;
  retrieval: { mode: string; tokens: number; max_tokens: number; chunks: number[]; anchor: number | null; anchored_by: string; truncated: boolean; next_cursor: string | null };
}

const sc = <T>(r: ToolResult) => r.structuredContent as T;
const errorText = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

describeBackends('memory through the knowledge tools', (b) => {
  let f: MemoryFixture;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    f = await memoryFixture(b);
    expect(await f.engine.memory.import(ENTRIES.map(({ key: _k, ...e }) => ({ ...e, metadata: {}, images: [], updated_at: e.created_at })))).toEqual({ imported: 6, skipped: 0 });
    for (const e of (await f.engine.memory.list({ limit: 100 })).entries) ids[ENTRIES.find((x) => x.text === e.text)!.key] = e.id;
  });
  afterAll(async () => {
    await f?.cleanup();
  });

  // every client kind on SQLite; the stateless client on PostgreSQL (the transports do not depend on the index)
  describe.each(b.name === 'sqlite' ? (['v2 http 2026-07-28', 'v2 http 2025-11-25', 'v1 http'] as const) : (['v2 http 2026-07-28'] as const))('memory as a knowledge source, %s', (kind) => {
    let client: ToolClient;
    beforeAll(async () => {
      client = await connectClient(kind, f);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('memory.search answers in the common result shape, with calibrated scores and the entry id as loc', async () => {
      expect(await client.listTools()).toEqual(expect.arrayContaining(['memory.search', 'memory.get']));
      // a word in few entries (BM25 gives a word in most of them no weight, and calibration says so)
      const r = await client.callTool('memory.search', { query: 'ledger', dedupe: false, mode: 'keyword' });
      expect(r.isError, errorText(r)).toBeFalsy();
      const s = sc<Search>(r);
      expect(s.sources).toEqual([expect.objectContaining({ source: 'memory', mode: 'keyword' })]);
      expect(s.results.map((x) => x.id).sort()).toEqual([ids.answer, ids.fix].map(String).sort());
      for (const x of s.results) {
        expect(x.source).toBe('memory');
        expect(x.uri).toBe(`trove://~memory/${x.id}`);
        expect(x.loc?.chunk_index).toBe(Number(x.id));
        expect(x.score).toBeGreaterThan(0);
        expect(x.score).toBeLessThanOrEqual(1);
        expect(x.score_type).toBe('fts');
        expect(x.thread_id).toBe('rollout');
      }
      expect(s.results.map((x) => x.score)).toEqual([...s.results.map((x) => x.score)].sort((a, b) => b - a));
      const fix = s.results.find((x) => x.id === String(ids.fix))!;
      expect(fix).toMatchObject({ title: 'Add jitter to the ledger client and resume the canary.', created_at: '2025-03-01T09:02:00.000Z', last_modified: '2025-03-01T09:02:00.000Z', tags: ['billing'] });
      expect(fix.snippet).toContain('ledger');
      // the JSON text is the structured content
      expect(JSON.parse(r.content[0]!.text!)).toEqual(s);
    });

    it('knowledge.search includes memory by default, beside the documents, on one scale', async () => {
      const r = await client.callTool('knowledge.search', { query: 'exponential backoff retry jitter billing', dedupe: false, limit: 20, mode: 'keyword' });
      expect(r.isError, errorText(r)).toBeFalsy();
      const s = sc<Search>(r);
      expect(s.sources.map((x) => x.source).sort()).toEqual(['documents:notes', 'memory']);
      const kinds = new Set(s.results.map((x) => x.source));
      expect(kinds).toEqual(new Set(['documents', 'memory']));
      for (const x of s.results) expect(x.score).toBeLessThanOrEqual(1);
      expect(s.results.map((x) => x.score)).toEqual([...s.results.map((x) => x.score)].sort((a, b) => b - a));
    });

    it('tags (every one) and dates (when stored) filter memory', async () => {
      const tagged = sc<Search>(await client.callTool('memory.search', { query: 'canary', dedupe: false, filters: { tags: ['billing', 'INCIDENT'] } }));
      expect(tagged.results.map((x) => x.id)).toEqual([String(ids.answer)]);
      const anyBilling = sc<Search>(await client.callTool('memory.search', { query: 'canary', dedupe: false, filters: { tags: ['billing'] } }));
      expect(anyBilling.results.map((x) => x.id).sort()).toEqual([ids.ask, ids.answer, ids.fix].map(String).sort());
      const recent = sc<Search>(await client.callTool('knowledge.search', { query: 'billing', dedupe: false, sources: ['memory'], filters: { date_from: '2026-01-01' } }));
      expect(recent.results.map((x) => x.id)).toEqual([String(ids.lunch)]);
      const old = sc<Search>(await client.callTool('memory.search', { query: 'billing', dedupe: false, filters: { date_to: '2025-12-31T23:59:59Z' } }));
      expect(old.results.length).toBeGreaterThan(0);
      expect(old.results.map((x) => x.id)).not.toContain(String(ids.lunch));
      // a kind filter without memory leaves it out, and says so
      const docsOnly = sc<Search>(await client.callTool('knowledge.search', { query: 'billing backoff', dedupe: false, filters: { kinds: ['markdown'] } }));
      expect(docsOnly.results.every((x) => x.source === 'documents')).toBe(true);
      expect(docsOnly.notices.join('\n')).toMatch(/memory: skipped/);
    });

    it('knowledge.get on an entry: every retrieval mode within max_tokens, anchored on the entry in its thread', async () => {
      const s = sc<Search>(await client.callTool('memory.search', { query: 'replica ledger retry storm', dedupe: false }));
      const hit = s.results.find((x) => x.id === String(ids.answer))!;
      expect(hit).toBeTruthy();
      for (const max of [40, 120, 2000]) {
        for (const mode of ['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto'] as const) {
          const r = await client.callTool('knowledge.get', { source: 'memory', id: hit.id, loc: hit.loc, retrieval: { mode, max_tokens: max } });
          expect(r.isError, errorText(r)).toBeFalsy();
          const g = sc<Got>(r);
          expect(Math.ceil(g.content.length / 4), `${mode} ${max}`).toBeLessThanOrEqual(max);
          expect(g.retrieval.tokens).toBe(Math.ceil(g.content.length / 4));
          expect(g.meta).toMatchObject({ id: hit.id, source: 'memory', uri: hit.uri, thread_id: 'rollout' });
          if (mode !== 'full') expect(g.retrieval.anchor).toBe(ids.answer);
        }
      }
      // a generous budget: chunk is the message, chunk_with_siblings adds its neighbours, full the thread around it
      const get = async (mode: string, extra: Record<string, unknown> = {}) =>
        sc<Got>(await client.callTool('memory.get', { uri: hit.uri, retrieval: { mode, max_tokens: 5000, ...extra } }));
      const chunk = await get('chunk');
      expect(chunk.retrieval).toMatchObject({ chunks: [ids.answer], anchored_by: 'loc', truncated: false });
      expect(chunk.content).toContain('retried without jitter');
      expect(chunk.content).not.toContain('resume the canary');
      const siblings = await get('chunk_with_siblings', { sibling_window: 1 });
      expect([...siblings.retrieval.chunks].sort()).toEqual([ids.ask, ids.answer, ids.fix].sort());
      expect(siblings.content.indexOf('Why did the canary')).toBeLessThan(siblings.content.indexOf('retried without jitter'));
      expect(siblings.content).toContain('resume the canary');
      const full = await get('full');
      for (const e of ENTRIES.filter((x) => x.thread_id === 'rollout')) expect(full.content).toContain(e.text.slice(0, 30));
      expect(full.content).not.toContain('Fridays');
    });

    it('memory.get refuses what is not a memory entry, clearly', async () => {
      const missing = await client.callTool('memory.get', { id: '999999' });
      expect(missing.isError).toBe(true);
      expect(errorText(missing)).toMatch(/no memory entry 999999/);
      const bad = await client.callTool('memory.get', { id: 'not-a-number' });
      expect(bad.isError).toBe(true);
      expect(errorText(bad)).toMatch(/not a memory entry id/);
      const other = await client.callTool('memory.get', { uri: 'trove://notes/retries.md' });
      expect(other.isError).toBe(true);
      expect(errorText(other)).toMatch(/documents URI, not one of memory/);
    });
  });

  describe('memory once embedded', () => {
    let client: ToolClient;
    beforeAll(async () => {
      await f.engine.embed();
      client = await connectClient('v2 http 2026-07-28', f);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('searches memory semantically and in hybrid by default, calibrated on the cosine like the documents', async () => {
      const sem = sc<Search>(await client.callTool('memory.search', { query: 'the deployment got stuck', mode: 'semantic', dedupe: false }));
      expect(sem.sources).toEqual([expect.objectContaining({ source: 'memory', mode: 'semantic' })]);
      expect(sem.results[0]!.thread_id).toBe('rollout');
      for (const x of sem.results) {
        expect(x.score_type).toBe('semantic');
        expect(x.score).toBeGreaterThan(0);
        expect(x.score).toBeLessThanOrEqual(1);
      }
      const all = sc<Search>(await client.callTool('knowledge.search', { query: 'billing canary rollout', dedupe: false }));
      expect(all.sources.find((x) => x.source === 'memory')?.mode).toBe('hybrid');
      expect(all.results.filter((x) => x.source === 'memory').every((x) => x.score_type === 'hybrid')).toBe(true);
    });
  });

  describe('a token without a memory grant never sees memory through the knowledge tools', () => {
    let none: ToolClient;
    let reader: ToolClient;
    let noneToken: string;
    beforeAll(async () => {
      noneToken = (await f.engine.createToken({ name: 'knowledge-no-memory', memory: 'none' })).token;
      none = await connectClient('v2 http 2026-07-28', f, noneToken);
      reader = await connectClient('v2 http 2025-11-25', f, (await f.engine.createToken({ name: 'knowledge-reader', collections: ['notes'], memory: 'read' })).token);
    });
    afterAll(async () => {
      await none?.close();
      await reader?.close();
    });

    it('none: no memory tools, no memory results, no memory by name, by id, by URI or as a resource', async () => {
      const tools = await none.listTools();
      expect(tools).toContain('knowledge.search');
      expect(tools).not.toContain('memory.search');
      expect(tools).not.toContain('memory.get');
      const all = sc<Search>(await none.callTool('knowledge.search', { query: 'billing canary jitter backoff', dedupe: false, limit: 50 }));
      expect(all.sources.map((x) => x.source)).toEqual(['documents:notes']); // one collection: its run is named
      expect(all.results.some((x) => x.source === 'memory')).toBe(false);
      const named = await none.callTool('knowledge.search', { query: 'billing', sources: ['memory'] });
      expect(named.isError).toBe(true);
      expect(errorText(named)).not.toMatch(/canary|billing service/);
      const byId = await none.callTool('knowledge.get', { source: 'memory', id: String(ids.fix) });
      expect(byId.isError).toBe(true);
      expect(errorText(byId)).toMatch(/no memory entry/);
      const byUri = await none.callTool('knowledge.get', { uri: `trove://~memory/${ids.fix}`, retrieval: { mode: 'full' } });
      expect(byUri.isError).toBe(true);
      expect(errorText(byUri)).not.toContain('jitter');
      await expect(none.callTool('memory.search', { query: 'billing' })).rejects.toThrow(/memory.search not found/);

      const raw = new V2Client({ name: 'no-memory-resources', version: '1' });
      await raw.connect(new V2Http(new URL(f.host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${noneToken}` } } }));
      await expect(raw.readResource({ uri: `trove://~memory/${ids.fix}` })).rejects.toThrow(/no memory entry/);
      await raw.close();
    });

    it('read (on a token scoped to a collection): memory is searched and read beside that collection', async () => {
      const tools = await reader.listTools();
      expect(tools).toEqual(expect.arrayContaining(['memory.search', 'memory.get', 'knowledge.search']));
      const all = sc<Search>(await reader.callTool('knowledge.search', { query: 'billing canary backoff', dedupe: false, mode: 'keyword' }));
      expect(all.sources.map((x) => x.source).sort()).toEqual(['documents:notes', 'memory']);
      const got = await reader.callTool('knowledge.get', { uri: `trove://~memory/${ids.fix}`, retrieval: { mode: 'chunk' } });
      expect(got.isError, errorText(got)).toBeFalsy();
      expect(sc<Got>(got).content).toContain('Add jitter to the ledger client');
    });
  });
});
