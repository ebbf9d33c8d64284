// Keyword search through the engine: syntaxes, partial matches ranked, filters, pagination,
// minScore, explain, normalised scores, snippets; on SQLite and on PostgreSQL.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, SearchResponse } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { outcome, troveErrorAsync } from '../helpers/engine.js';
import { setMtime, tempDir, writeTree } from '../helpers/tmp.js';

describeBackends('search', (b) => {
  let engine: Engine;

  beforeAll(async () => {
    const work = tempDir();
    writeTree(work, {
      'retry.md': '---\ntitle: Retry policy\ntags: [networking, reliability]\n---\n# Retry policy\n\nRetry failed requests with exponential backoff and jitter.\n',
      'backoff.md': '---\ntags: [networking]\n---\n# Backoff\n\nExponential backoff spreads load when servers struggle.\n',
      'jitter.txt': 'Jitter alone: random delays added to timers.\n',
      'client.ts': '// HTTP client\nexport function retryRequest() {\n  // retry with backoff\n  return fetchWithBackoff();\n}\n',
      'page.html': '<html><head><title>Cooking</title></head><body><h1>Soup</h1><p>Tomato soup recipe with basil.</p></body></html>',
      'old.md': '# Old notes\n\nLegacy retry notes from long ago.\n',
      'deep/dir/nested.md': '# Nested\n\nA nested page about backoff strategies.\n',
      // long enough to be several chunks: the negated word sits in a different chunk from the match
      'long.md': `# Long\n\nCircuit breaker notes.\n\n## Appendix\n\n${'Unrelated filler sentence. '.repeat(120)}\n\n## Later\n\nA late mention of backoff.\n`,
    });
    const old = new Date('2020-01-15T00:00:00Z');
    const recent = new Date('2024-06-01T00:00:00Z');
    for (const f of ['retry.md', 'backoff.md', 'jitter.txt', 'client.ts', 'page.html', 'deep/dir/nested.md']) setMtime(path.join(work, f), recent);
    setMtime(path.join(work, 'old.md'), old);

    const many = tempDir();
    writeTree(many, Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${String(i).padStart(2, '0')}.md`, `# Page ${i}\n\npagination ${'filler '.repeat(i)}`])));

    engine = await b.open();
    await engine.addCollection({ root: work, name: 'work' });
    await engine.addCollection({ root: many, name: 'many' });
    await engine.index();
  });

  const pathsOf = (r: { results: { path: string }[] }) => r.results.map((h) => h.path);

  describe('syntaxes', () => {
    it('match ranks documents with every term first, and still returns partial matches', async () => {
      const r = await engine.search({ query: 'exponential backoff jitter', collections: ['work'] });
      expect(pathsOf(r)[0]).toBe('retry.md'); // all three terms
      expect(pathsOf(r)).toEqual(expect.arrayContaining(['backoff.md', 'jitter.txt', 'client.ts', 'deep/dir/nested.md']));
    });

    it('match does not return nothing because one term is missing', async () => {
      const r = await engine.search({ query: 'retry backoff unobtainium', collections: ['work'] });
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.plan.dropped).toContain('unobtainium');
      expect(pathsOf(r)).toEqual(expect.arrayContaining(['retry.md', 'client.ts']));
    });

    it('phrase needs the words in order', async () => {
      expect(pathsOf(await engine.search({ query: 'exponential backoff', syntax: 'phrase', collections: ['work'] })).sort()).toEqual(['backoff.md', 'retry.md']);
      expect(pathsOf(await engine.search({ query: 'spreads load', syntax: 'phrase' }))).toEqual(['backoff.md']);
      expect((await engine.search({ query: 'load spreads', syntax: 'phrase' })).results).toEqual([]);
    });

    it('prefix matches word starts', async () => {
      expect(pathsOf(await engine.search({ query: 'tomat', syntax: 'prefix' }))).toEqual(['page.html']);
      expect((await engine.search({ query: 'tomat', syntax: 'match' })).results).toEqual([]);
    });

    it('boolean negation excludes a document that has the word in any chunk', async () => {
      expect((await engine.search({ query: 'circuit', syntax: 'boolean', collections: ['work'] })).results.map((h) => h.path)).toEqual(['long.md']);
      expect((await engine.search({ query: 'circuit -backoff', syntax: 'boolean', collections: ['work'] })).results).toEqual([]);
      expect((await engine.search({ query: 'circuit NOT jitter', syntax: 'boolean', collections: ['work'] })).results.map((h) => h.path)).toEqual(['long.md']);
    });

    it('boolean supports AND, OR, NOT, groups and quoted phrases', async () => {
      expect(pathsOf(await engine.search({ query: 'retry AND NOT backoff', syntax: 'boolean' }))).toEqual(['old.md']);
      expect(pathsOf(await engine.search({ query: 'soup OR jitter', syntax: 'boolean', collections: ['work'] })).sort()).toEqual(['jitter.txt', 'page.html', 'retry.md']);
      expect(pathsOf(await engine.search({ query: '(tomato OR legacy) -soup', syntax: 'boolean' }))).toEqual(['old.md']);
      expect(pathsOf(await engine.search({ query: '"random delays"', syntax: 'boolean' }))).toEqual(['jitter.txt']);
    });

    it('title and headings weigh more than body text', async () => {
      const r = await engine.search({ query: 'backoff', collections: ['work'] });
      expect(['backoff.md', 'deep/dir/nested.md']).toContain(pathsOf(r)[0]);
      expect(pathsOf(r).indexOf('backoff.md')).toBeLessThan(pathsOf(r).indexOf('client.ts'));
    });

    it('refuses FTS5 syntax it cannot use with a clear error, and never a syntax error', async () => {
      for (const q of ['"', '***', '(((', 'NOT', '🚀']) {
        const err = await troveErrorAsync(() => engine.search({ query: q, syntax: 'boolean' }));
        expect(err.code, q).toBe('INVALID_INPUT');
      }
      for (const q of ['retry" OR (', 'NEAR(retry backoff, 2)', 'retry AND', 'title:retry', '-', 'col:*']) {
        for (const syntax of ['match', 'phrase', 'prefix', 'boolean'] as const) {
          // a lone '-' has no word to search for; every other string searches
          expect(await outcome(() => engine.search({ query: q, syntax })), `${syntax} ${q}`).toBe(q === '-' ? 'INVALID_INPUT' : 'results');
        }
      }
    });

    it('validates the request', async () => {
      expect((await troveErrorAsync(() => engine.search({ query: '   ' }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.search({ query: 'x', limit: 0 }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.search({ query: 'x', syntax: 'regex' as 'match' }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.search({ query: 'x', minScore: 2 }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.search({ query: 'x', collections: ['nope'] }))).code).toBe('NOT_FOUND');
      expect((await troveErrorAsync(() => engine.search({ query: 'x', modifiedAfter: 'not a date' }))).code).toBe('INVALID_INPUT');
    });
  });

  describe('filters', () => {
    it('by collection', async () => {
      expect((await engine.search({ query: 'pagination', collections: ['work'] })).results).toEqual([]);
      expect((await engine.search({ query: 'pagination', collections: ['many'], limit: 100 })).results).toHaveLength(25);
    });

    it('an empty collection list allows nothing (it is never read as "all")', async () => {
      expect((await engine.search({ query: 'pagination', collections: [] })).results).toEqual([]);
      expect((await engine.multiGet('**', { collections: [] })).documents).toEqual([]);
      expect((await troveErrorAsync(() => engine.get('retry.md', { collections: [] }))).code).toBe('NOT_FOUND');
    });

    it('by path glob (bare names match at any depth)', async () => {
      expect(pathsOf(await engine.search({ query: 'backoff', path: 'deep/**' }))).toEqual(['deep/dir/nested.md']);
      expect(pathsOf(await engine.search({ query: 'backoff', path: '*.ts' }))).toEqual(['client.ts']);
      expect(pathsOf(await engine.search({ query: 'backoff', path: 'nested.md' }))).toEqual(['deep/dir/nested.md']);
    });

    it('by kind', async () => {
      expect(pathsOf(await engine.search({ query: 'retry', kinds: ['code'] }))).toEqual(['client.ts']);
      expect(pathsOf(await engine.search({ query: 'soup', kinds: ['html'] }))).toEqual(['page.html']);
      expect(pathsOf(await engine.search({ query: 'jitter', kinds: ['text'] }))).toEqual(['jitter.txt']);
    });

    it('by modified date range', async () => {
      expect(pathsOf(await engine.search({ query: 'retry', modifiedBefore: '2021-01-01' }))).toEqual(['old.md']);
      const after = pathsOf(await engine.search({ query: 'retry', modifiedAfter: '2023-01-01', collections: ['work'] }));
      expect(after).not.toContain('old.md');
      expect(after).toContain('retry.md');
      expect((await engine.search({ query: 'retry', modifiedAfter: '2019-01-01', modifiedBefore: '2019-12-31' })).results).toEqual([]);
      expect(pathsOf(await engine.search({ query: 'retry', modifiedBefore: Date.parse('2021-01-01') }))).toEqual(['old.md']);
    });

    it('by tags (every tag must be present, case-insensitive)', async () => {
      expect(pathsOf(await engine.search({ query: 'backoff', tags: ['networking'] })).sort()).toEqual(['backoff.md', 'retry.md']);
      expect(pathsOf(await engine.search({ query: 'backoff', tags: ['networking', 'Reliability'] }))).toEqual(['retry.md']);
      expect((await engine.search({ query: 'backoff', tags: ['missing'] })).results).toEqual([]);
    });
  });

  describe('results', () => {
    it('paginate with has_more, next_offset and total_estimated', async () => {
      const seen: string[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const r: SearchResponse = await engine.search({ query: 'pagination', collections: ['many'], limit: 10, offset });
        expect(r.offset).toBe(offset);
        expect(r.results.length).toBeLessThanOrEqual(10);
        expect(r.total_estimated).toBeGreaterThanOrEqual(offset + r.results.length);
        if (r.has_more) expect(r.next_offset).toBe(offset + 10);
        else expect(r.next_offset).toBeNull();
        seen.push(...pathsOf(r));
        offset = r.next_offset;
        pages++;
      }
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(25);
      const last = await engine.search({ query: 'pagination', collections: ['many'], limit: 10, offset: 20 });
      expect(last).toMatchObject({ has_more: false, next_offset: null, total_estimated: 25 });
      expect((await engine.search({ query: 'pagination', collections: ['many'], limit: 10, offset: 100 })).results).toEqual([]);
    });

    it('have scores in 0..1, best first, and minScore drops the rest', async () => {
      const r = await engine.search({ query: 'retry backoff jitter', limit: 50 });
      const scores = r.results.map((h) => h.score);
      expect(scores.length).toBeGreaterThan(2);
      for (const s of scores) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
      expect(scores[0]).toBe(1);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      const filtered = await engine.search({ query: 'retry backoff jitter', limit: 50, minScore: 0.5 });
      expect(filtered.results.length).toBeLessThan(scores.length);
      for (const h of filtered.results) expect(h.score).toBeGreaterThanOrEqual(0.5);
    });

    it('a single result scores 1 (positional fallback)', async () => {
      const r = await engine.search({ query: 'basil' });
      expect(r.results).toHaveLength(1);
      expect(r.results[0]!.score).toBe(1);
    });

    it('carry document fields, a line-numbered snippet centred on the match, and the anchor chunk', async () => {
      const [hit] = (await engine.search({ query: 'jitter', collections: ['work'], path: 'retry.md' })).results;
      expect(hit).toMatchObject({ collection: 'work', path: 'retry.md', uri: 'trove://work/retry.md', title: 'Retry policy', kind: 'markdown', tags: ['networking', 'reliability'] });
      expect(hit!.docid).toMatch(/^[0-9a-f]{6,}$/);
      expect(hit!.modified).toBe('2024-06-01T00:00:00.000Z');
      expect(hit!.snippet).toMatch(/^\d+: /);
      expect(hit!.snippet).toContain('7: Retry failed requests with exponential backoff and jitter.');
      expect(hit!.line).toBeLessThanOrEqual(7);
      expect(hit!.chunk.headingPath).toEqual(['Retry policy']);
      expect(hit!.chunk.lineStart).toBeLessThanOrEqual(7);
      expect(hit!.chunk.lineEnd).toBeGreaterThanOrEqual(7);
    });

    it('snippetChars bounds the snippet', async () => {
      const [hit] = (await engine.search({ query: 'pagination', collections: ['many'], path: 'p24.md', snippetChars: 60 })).results;
      const body = hit!.snippet.split('\n').map((l) => l.replace(/^\d+: /, '')).join('\n');
      expect(body.length).toBeLessThanOrEqual(62);
      expect(body).toContain('pagination');
    });

    it('explain returns the raw BM25 score and per-field hits', async () => {
      const r = await engine.search({ query: 'retry policy backoff', explain: true, collections: ['work'] });
      const top = r.results[0]!;
      expect(top.path).toBe('retry.md');
      expect(top.explain).toBeDefined();
      const ex = top.explain as { bm25: number; fields: Record<string, string[]>; strategy: string; expression: string; matchedChunks: number };
      expect(ex.bm25).toBeGreaterThan(0);
      expect(ex.fields.title).toEqual(expect.arrayContaining(['retry', 'policy']));
      expect(ex.fields.headings).toEqual(expect.arrayContaining(['retry', 'policy']));
      expect(ex.fields.body).toEqual(expect.arrayContaining(['retry', 'backoff']));
      expect(ex.expression).toContain('"retry"');
      expect(ex.matchedChunks).toBeGreaterThanOrEqual(1);
      expect((await engine.search({ query: 'retry' })).results[0]!.explain).toBeUndefined();
    });
  });
});
