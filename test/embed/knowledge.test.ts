// Engine.knowledge over a real engine: real files and the real embedding model, on SQLite and on
// PostgreSQL. One source ranks exactly as the engine's own search does; scores are calibrated (not
// each result set's own 0..1) and comparable across modes; the merge pages consistently and
// passes over excluded URIs; get anchors, budgets and pages; scopes hide what they should.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, KnowledgeSearchResponse } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { describeBackends } from '../helpers/backends.js';
import { setMtime, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const notes = {
  'resilience.md': '# Resilience settings\n\nThe HTTP client retries failed requests three times, waiting longer after each attempt (exponential backoff).\n',
  'cells.md': '# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP.\n',
  'cooking.md': '# Bread\n\nKnead the dough for ten minutes and let it rise for an hour.\n',
  'long.md': `# Long guide\n\n${Array.from({ length: 30 }, (_, i) => `## Step ${i}\n\n${'Careful words about step handling and review. '.repeat(12)}${i === 17 ? 'The retry budget is exhausted after jitter.' : ''}\n`).join('\n')}`,
};
const other = {
  'timeouts.md': '# Network timeouts\n\nRequests that fail are retried automatically by the client library.\n',
};

const uris = (r: KnowledgeSearchResponse) => r.results.map((x) => x.uri);

describeBackends('knowledge over collections', (b) => {
  let engine: Engine;
  let root: string;

  beforeAll(async () => {
    root = tempDir('trove-root-');
    const root2 = tempDir('trove-root-');
    writeTree(root, notes);
    writeTree(root2, other);
    setMtime(path.join(root, 'cells.md'), new Date('2020-01-01'));
    setMtime(path.join(root, 'cooking.md'), new Date('2024-06-01'));
    // catchUpChunks 0: a search embeds nothing by itself, so "before any vectors" lasts until the
    // explicit embed (a search's catch-up: knowledge-datasets.test.ts, engine-vectors.test.ts)
    engine = await b.open({ embeddings: { modelsDir, workers: 1, catchUpChunks: 0 } });
    await engine.addCollection({ root, name: 'notes' });
    await engine.addCollection({ root: root2, name: 'other' });
    await engine.index();
  });


  describe('before any vectors', () => {
    it('defaults to keyword, says so, and keeps the engine keyword order with calibrated scores', async () => {
      const r = await engine.knowledge.search({ query: 'retried requests client' });
      expect(r.mode).toBe('keyword');
      expect(r.sources).toEqual([expect.objectContaining({ source: 'documents', kind: 'documents', mode: 'keyword' })]);
      const own = await engine.search({ query: 'retried requests client', freshness: false });
      expect(uris(r)).toEqual(own.results.map((h) => h.uri));
      // not min/max per result set: the best hit is not pinned at 1, and scores only fall
      expect(r.results[0]!.score).toBeLessThan(1);
      expect(r.results[0]!.score).toBeGreaterThan(0);
      const scores = r.results.map((x) => x.score!);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(r.results.every((x) => x.score_type === 'fts')).toBe(true);
    });

    it('semantic without vectors is UNAVAILABLE with the reason', async () => {
      const err = await engine.knowledge.search({ query: 'retry', mode: 'semantic' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TroveError);
      expect((err as TroveError).code).toBe('UNAVAILABLE');
      expect((err as TroveError).message).toMatch(/no vectors yet/);
    });
  });

  describe('with vectors', () => {
    beforeAll(async () => {
      await engine.embed();
    }, 120_000);

    it('defaults to hybrid and ranks exactly as the engine hybrid does', async () => {
      const q = 'how does the client handle failures';
      const r = await engine.knowledge.search({ query: q });
      expect(r.mode).toBe('hybrid');
      const own = await engine.search({ query: q, mode: 'hybrid', freshness: false });
      expect(uris(r)).toEqual(own.results.map((h) => h.uri));
      expect(r.results.every((x) => x.score_type === 'hybrid')).toBe(true);
    });

    it('scores mean the same across modes: the relevant document scores alike from keyword, semantic and hybrid', async () => {
      const q = 'mitochondria powerhouse of the cell';
      const by = async (mode: 'keyword' | 'semantic' | 'hybrid') => (await engine.knowledge.search({ query: q, mode })).results.find((x) => x.path === 'cells.md')!.score!;
      const [k, s, h] = [await by('keyword'), await by('semantic'), await by('hybrid')];
      for (const v of [k, s, h]) expect(v).toBeGreaterThan(0.5);
      expect(Math.max(k, s, h) - Math.min(k, s, h)).toBeLessThan(0.35);
      // an irrelevant document's semantic score stays well below the relevant one's
      const sem = await engine.knowledge.search({ query: q, mode: 'semantic' });
      expect(sem.results.find((x) => x.path === 'cooking.md')!.score!).toBeLessThan(s - 0.2);
    });

    it('gives the spec result shape with a plain snippet and a loc knowledge.get anchors on', async () => {
      const r = await engine.knowledge.search({ query: 'retry budget jitter', snippet_length: 60, sources: ['documents:notes'] });
      const hit = r.results[0]!;
      expect(hit).toMatchObject({ source: 'documents', collection: 'notes', path: 'long.md', uri: 'trove://notes/long.md', version: null, created_at: null, tags: [], kind: 'markdown' });
      expect(hit.id).toMatch(/^#[0-9a-f]{6}$/);
      expect(hit.snippet!.length).toBeLessThanOrEqual(60);
      expect(hit.snippet).not.toMatch(/^\d+: |\n/);
      expect(hit.last_modified).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(hit.loc!.chunk_index).toBeGreaterThan(0);
      const got = await engine.knowledge.get({ source: 'documents', id: hit.id, loc: hit.loc!, retrieval: { mode: 'chunk' } });
      expect(got.content).toMatch(/retry budget is exhausted/);
      expect(got.retrieval).toMatchObject({ mode: 'chunk', anchor: hit.loc!.chunk_index, anchored_by: 'loc', chunking: 'prechunked' });
    });
  });

  describe('merge and pages', () => {
    it('pages consistently: page 2 continues page 1 with nothing repeated or lost', async () => {
      const q = 'client requests retried dough cell';
      const whole = await engine.knowledge.search({ query: q, mode: 'keyword', limit: 10 });
      const p1 = await engine.knowledge.search({ query: q, mode: 'keyword', limit: 2 });
      expect(p1.has_more).toBe(true);
      const p2 = await engine.knowledge.search({ query: q, mode: 'keyword', limit: 2, offset: p1.next_offset! });
      expect([...uris(p1), ...uris(p2)]).toEqual(uris(whole).slice(0, 4));
    });

    it('passes over excluded URIs, filling the page from further down', async () => {
      const q = 'client requests retried dough cell';
      const whole = await engine.knowledge.search({ query: q, mode: 'keyword', limit: 10 });
      const r = await engine.knowledge.search({ query: q, mode: 'keyword', limit: 2, exclude: uris(whole).slice(0, 2) });
      expect(uris(r)).toEqual(uris(whole).slice(2, 4));
      expect(r.skipped).toBe(2);
      const none = await engine.knowledge.search({ query: q, mode: 'keyword', exclude: uris(whole) });
      expect(none.results).toEqual([]);
      expect(none.skipped).toBe(whole.results.length);
    });

    it('order_by recent sorts by last_modified, newest first', async () => {
      const r = await engine.knowledge.search({ query: 'client dough mitochondria', mode: 'keyword', order_by: 'recent' });
      const times = r.results.map((x) => Date.parse(x.last_modified!));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(r.results.at(-1)!.path).toBe('cells.md');
    });

    it('filters by kind, path, tags and dates', async () => {
      const q = 'client dough mitochondria';
      expect(uris(await engine.knowledge.search({ query: q, mode: 'keyword', filters: { path: 'cook*' } }))).toEqual(['trove://notes/cooking.md']);
      expect(uris(await engine.knowledge.search({ query: q, mode: 'keyword', filters: { date_to: '2021-01-01' } }))).toEqual(['trove://notes/cells.md']);
      expect((await engine.knowledge.search({ query: q, mode: 'keyword', filters: { kinds: ['html'] } })).results).toEqual([]);
      await expect(engine.knowledge.search({ query: q, filters: { date_from: 'yesterday-ish' } })).rejects.toThrow(/date_from is not a date/);
    });

    it('sources: by collection; unknown ones are named errors, not empty results', async () => {
      const r = await engine.knowledge.search({ query: 'retried', mode: 'keyword', sources: ['documents:other'] });
      expect(uris(r)).toEqual(['trove://other/timeouts.md']);
      expect(r.sources[0]!.source).toBe('documents:other');
      await expect(engine.knowledge.search({ query: 'x', sources: ['documents:nope'] })).rejects.toThrow(/no source named "documents:nope" \(sources: documents:notes, documents:other\)/);
      await expect(engine.knowledge.search({ query: 'x', sources: ['recipes'] })).rejects.toThrow(/unknown source "recipes"; sources are documents/);
    });

    it('clamps numbers instead of refusing them, and refuses wrong types', async () => {
      const r = await engine.knowledge.search({ query: 'client', mode: 'keyword', limit: 1000, snippet_length: 5 });
      expect(r.limit).toBe(100);
      for (const hit of r.results) expect(hit.snippet!.length).toBeLessThanOrEqual(50);
      await expect(engine.knowledge.search({ query: '  ' })).rejects.toThrow(/query is empty/);
      await expect(engine.knowledge.search({ query: 'x', limit: 'ten' as unknown as number })).rejects.toThrow(/limit/);
    });
  });

  describe('get', () => {
    it('anchors on a light search for the query when given no loc, or the first chunk', async () => {
      const hit = await engine.knowledge.get({ source: 'documents', id: 'notes/long.md', query: 'retry budget', retrieval: { mode: 'chunk' } });
      expect(hit.retrieval.anchored_by).toBe('query');
      expect(hit.content).toMatch(/retry budget/);
      const first = await engine.knowledge.get({ uri: 'trove://notes/long.md', retrieval: { mode: 'chunk' } });
      expect(first.retrieval).toMatchObject({ anchored_by: 'first', anchor: 0 });
    });

    it('auto is chunk_with_siblings when max_tokens is given, else snippet', async () => {
      const withBudget = await engine.knowledge.get({ uri: 'trove://notes/long.md', query: 'jitter', retrieval: { mode: 'auto', max_tokens: 400 } });
      expect(withBudget.retrieval.mode).toBe('chunk_with_siblings');
      expect(withBudget.retrieval.tokens).toBeLessThanOrEqual(400);
      expect(withBudget.retrieval.chunks.length).toBeGreaterThan(1);
      const without = await engine.knowledge.get({ uri: 'trove://notes/long.md', query: 'jitter', retrieval: { mode: 'auto' } });
      expect(without.retrieval.mode).toBe('snippet');
      expect(without.content.length).toBeLessThanOrEqual(300);
    });

    it('chunks on the fly when asked, keeping the anchor where the result pointed', async () => {
      const r = await engine.knowledge.get({ uri: 'trove://notes/long.md', loc: { chunk_index: 10 }, retrieval: { mode: 'chunk', prefer_prechunked: false, chunk_size_tokens: 40 } });
      expect(r.retrieval.chunking).toBe('on_the_fly');
      expect(r.content.length).toBeLessThanOrEqual(160);
      const own = await engine.knowledge.get({ uri: 'trove://notes/long.md', loc: { chunk_index: 10 }, retrieval: { mode: 'chunk' } });
      expect(own.content).toContain(r.content.slice(0, 40));
    });

    it('full pages a document by cursor', async () => {
      let cursor: string | undefined;
      let text = '';
      for (let i = 0; i < 50; i++) {
        const r = await engine.knowledge.get({ uri: 'trove://notes/long.md', cursor, retrieval: { mode: 'full', max_tokens: 500 } });
        expect(r.retrieval.tokens).toBeLessThanOrEqual(500);
        text += r.content;
        cursor = r.retrieval.next_cursor ?? undefined;
        if (!cursor) break;
      }
      expect(text).toBe((await engine.get('notes/long.md')).text);
    });

    it('says what is wrong: no id, an unknown document, a memory entry that is not one', async () => {
      await expect(engine.knowledge.get({})).rejects.toThrow(/needs an id \(with its source\) or a trove:\/\/ uri/);
      await expect(engine.knowledge.get({ source: 'documents', id: 'notes/lng.md' })).rejects.toThrow(/did you mean notes\/long\.md/);
      await expect(engine.knowledge.get({ uri: 'trove://~memory/abc' })).rejects.toThrow(/"abc" is not a memory entry id/);
      await expect(engine.knowledge.get({ uri: 'trove://~memory/7' })).rejects.toThrow(/no memory entry 7/);
    });
  });

  describe('scope', () => {
    it('a collection allow-list sees only those collections; the others do not exist for it', async () => {
      const scope = { collections: ['other'], datasets: [], memory: false };
      expect((await engine.knowledge.sources(scope)).map((s) => s.source)).toEqual(['documents:other']);
      const r = await engine.knowledge.search({ query: 'client retried requests', mode: 'keyword' }, scope);
      expect(uris(r)).toEqual(['trove://other/timeouts.md']);
      await expect(engine.knowledge.search({ query: 'x', sources: ['documents:notes'] }, scope)).rejects.toThrow(/no source named "documents:notes" \(sources: documents:other\)/);
      const hidden = await engine.knowledge.get({ uri: 'trove://notes/cells.md' }, scope).catch((e: unknown) => e);
      expect((hidden as TroveError).code).toBe('NOT_FOUND');
      expect((hidden as TroveError).message).not.toMatch(/cells\.md.*did you mean/);
    });

    it('lists the sources with counts and modes (memory, empty, says so and is left out of searches)', async () => {
      expect(await engine.knowledge.sources()).toEqual([
        expect.objectContaining({ source: 'documents:notes', kind: 'documents', name: 'notes', items: 4, defaultMode: 'hybrid', unavailable: null }),
        expect.objectContaining({ source: 'documents:other', items: 1, modes: ['keyword', 'semantic', 'hybrid'] }),
        expect.objectContaining({ source: 'memory', kind: 'memory', items: 0, defaultMode: 'keyword', unavailable: 'memory is empty' }),
      ]);
      expect((await engine.knowledge.sources({ memory: false })).map((s) => s.source)).toEqual(['documents:notes', 'documents:other']);
    });
  });
});
