// Vector, hybrid and rerank search through the Engine: real files, real models, on SQLite
// (sqlite-vec) and on PostgreSQL (pgvector). The ANN index (usearch) is SQLite's own acceleration:
// its test runs on SQLite only.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { markdownProse } from '../../src-main/engine/text/markdown-prose.js';
import { describeBackends } from '../helpers/backends.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const notes = {
  'resilience.md': '# Resilience settings\n\nThe HTTP client retries failed requests three times, waiting longer after each attempt (exponential backoff).\n',
  'cells.md': '# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP.\n',
  'cooking.md': '# Bread\n\nKnead the dough for ten minutes and let it rise for an hour.\n',
};
const other = {
  'timeouts.md': '# Network timeouts\n\nRequests that fail are retried automatically by the client library.\n',
};

afterAll(() => removeTempDirs());

describeBackends('vector, hybrid and rerank search', (b) => {
  let engine: Engine;
  let root: string;
  let root2: string;

  beforeAll(async () => {
    root = tempDir('trove-root-');
    root2 = tempDir('trove-root-');
    writeTree(root, notes);
    writeTree(root2, other);
    engine = await b.open({ embeddings: { modelsDir, rerankModel: 'test-tiny-cross-encoder', workers: 1 } });
    await engine.addCollection({ root, name: 'notes' });
    await engine.addCollection({ root: root2, name: 'other' });
    await engine.index();
  });

  describe('before embedding', () => {
    it('keyword search works at once, before any vector; status says what waits', async () => {
      expect((await engine.search({ query: 'mitochondria' })).results[0]?.path).toBe('cells.md');
      const st = await engine.status();
      expect(st.hasVectorIndex).toBe(false);
      expect(st.needsEmbedding).toBe(4);
    });

    it('with more chunks waiting than a search embeds by itself: vector search says why it is off; hybrid falls back and says so', async () => {
      const few = await b.open({ embeddings: { modelsDir, workers: 1, catchUpChunks: 3 } });
      await few.addCollection({ root, name: 'notes' });
      await few.addCollection({ root: root2, name: 'other' });
      await few.index();
      await expect(few.search({ query: 'how do I configure retries', mode: 'vector' })).rejects.toThrow(/vector search is off: no vectors yet/);
      const r = await few.search({ query: 'retries', mode: 'hybrid' });
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.notices?.join(' ')).toMatch(/vector leg skipped/);
      expect(await few.status()).toMatchObject({ hasVectorIndex: false, needsEmbedding: 4 }); // the searches embedded nothing
    });
  });

  describe('after embedding', () => {
    beforeAll(async () => {
      const seen: number[] = [];
      const status = await engine.embed({ onProgress: (p) => seen.push(p.done) });
      expect(status.map((s) => s.model)).toEqual(['all-MiniLM-L6-v2', 'all-MiniLM-L6-v2']);
      expect(seen.length).toBeGreaterThan(0);
    });

    it('finds the paraphrase by meaning, scores 0..1, status shows the model', async () => {
      const r = await engine.search({ query: 'how do I configure retry policies', mode: 'vector', collections: ['notes'], explain: true });
      expect(r.results[0]).toMatchObject({ path: 'resilience.md', collection: 'notes' });
      for (const h of r.results) expect(h.score).toBeGreaterThanOrEqual(0.3);
      expect(r.results[0]!.explain).toHaveProperty('cosine');
      const st = await engine.status();
      expect(st.hasVectorIndex).toBe(true);
      expect(st.needsEmbedding).toBe(0);
      expect(st.embeddings.collections.find((c) => c.collection === 'notes')).toMatchObject({ model: 'all-MiniLM-L6-v2', vectors: 3, needsEmbedding: 0 });
    });

    it("stores the model's vector as it made it: what the model read of a chunk finds it at cosine 1", async () => {
      const rows = await b.peek(engine);
      const notesId = (await rows.collections.get('notes'))!.id;
      const doc = (await rows.documents.byPath(notesId, 'cells.md'))!;
      const [chunk] = await rows.chunks.forDocument(doc.id);
      const text = (await rows.documents.content(doc.id))!.slice(chunk!.charStart, chunk!.charEnd);
      // a Markdown chunk: the model read its prose (text/markdown-prose.ts)
      const r = await engine.search({ query: markdownProse(text), mode: 'vector', collections: ['notes'], explain: true });
      expect(r.results[0]!.path).toBe('cells.md');
      expect((r.results[0]!.explain as { cosine: number }).cosine).toBeCloseTo(1, 4);
    });

    it('filters inside the kNN: a collection or path filter returns its own matches', async () => {
      const inOther = await engine.search({ query: 'how do I configure retry policies', mode: 'vector', collections: ['other'] });
      expect(inOther.results.map((h) => h.collection)).toEqual(['other']);
      const byPath = await engine.search({ query: 'how do I configure retry policies', mode: 'vector', path: 'cooking.md', minScore: 0 });
      expect(byPath.results.map((h) => h.path)).toEqual(['cooking.md']);
    });

    it('hybrid explains both legs and the fused score; rerank blends the cross-encoder in', async () => {
      const h = await engine.search({ query: 'retries', mode: 'hybrid', explain: true, collections: ['notes'] });
      const top = h.results[0]!;
      expect(top.path).toBe('resilience.md');
      expect(top.explain).toMatchObject({ fusion: 'rrf', legs: { keyword: { rank: 1 }, vector: { rank: 1 } } });
      const r = await engine.search({ query: 'retries', mode: 'rerank', explain: true });
      expect(r.notices).toBeUndefined();
      expect(r.results[0]!.explain).toHaveProperty('rerank');
      for (const x of r.results) expect(x.score).toBeLessThanOrEqual(1);
    });

    it('hybrid and rerank pages carry the snippets the legs would have cut, page by page', async () => {
      const keyword = await engine.search({ query: 'retries', limit: 20 });
      const vector = await engine.search({ query: 'retries', mode: 'vector', limit: 20, minScore: 0 });
      const snippetOf = new Map([...vector.results, ...keyword.results].map((h) => [`${h.collection}/${h.path}`, { snippet: h.snippet, line: h.line }]));
      for (const mode of ['hybrid', 'rerank'] as const) {
        const all = await engine.search({ query: 'retries', mode, limit: 20 });
        expect(all.results.length).toBeGreaterThanOrEqual(2);
        for (const h of all.results) {
          expect(h.snippet, `${mode} ${h.path}`).not.toBe('');
          expect({ snippet: h.snippet, line: h.line }).toEqual(snippetOf.get(`${h.collection}/${h.path}`));
        }
        const second = await engine.search({ query: 'retries', mode, limit: 1, offset: 1 });
        expect(second.results.map((h) => [h.path, h.snippet])).toEqual([[all.results[1]!.path, all.results[1]!.snippet]]);
      }
    });

    it('a deleted document loses its vectors', async () => {
      fs.rmSync(path.join(root, 'cooking.md'));
      await engine.index({ collection: 'notes' });
      expect((await engine.status()).embeddings.collections.find((c) => c.collection === 'notes')!.vectors).toBe(2);
      const r = await engine.search({ query: 'bread dough', mode: 'vector', minScore: 0 });
      expect(r.results.map((h) => h.path)).not.toContain('cooking.md');
    });

    it('a new document waits for its vectors (pendingEmbedding); a semantic search embeds the few waiting chunks first, finding it by meaning at once', async () => {
      fs.writeFileSync(path.join(root, 'whales.md'), '# Whales\n\nThe narwhal has a long spiral tusk.\n');
      await engine.index({ collection: 'notes' });
      const waiting = (await engine.search({ query: 'narwhal OR mitochondria', syntax: 'boolean' })).results;
      expect(Object.fromEntries(waiting.map((h) => [h.path, h.pendingEmbedding]))).toEqual({ 'whales.md': true, 'cells.md': false });
      const found = await engine.search({ query: 'which sea animal has a spiral tooth?', mode: 'vector', collections: ['notes'] });
      expect(found.results[0]?.path).toBe('whales.md');
      expect(found.notices).toBeUndefined();
      const embedded = (await engine.search({ query: 'narwhal OR mitochondria', syntax: 'boolean' })).results;
      expect(embedded.map((h) => h.pendingEmbedding)).toEqual([false, false]);
      fs.rmSync(path.join(root, 'whales.md'));
      await engine.index({ collection: 'notes' });
    });

    it('switching the model re-embeds beside the old vectors and swaps when done', async () => {
      const before = await engine.setCollectionModel('other', 'test-tiny-embedder');
      expect(before).toMatchObject({ model: 'all-MiniLM-L6-v2' }); // still served by the old vectors
      const during = await engine.search({ query: 'retry', mode: 'vector', collections: ['other'] });
      expect(during.results.length).toBe(1);
      const [after] = await engine.embed({ collection: 'other' });
      expect(after).toMatchObject({ model: 'test-tiny-embedder', vectors: 1, switchingTo: null, needsEmbedding: 0 });
      const r = await engine.search({ query: 'automatic retries of failed requests', mode: 'vector', collections: ['other'] });
      expect(r.results[0]?.path).toBe('timeouts.md');
    });

    it('picks the multilingual model by itself for a collection of Chinese text (saying it is not here yet); embeds and searches Chinese with a second model', async () => {
      const zh = tempDir('trove-root-');
      writeTree(zh, {
        'retry.md': '# 重试设置\n\n客户端在请求失败后会自动重试三次，并使用指数退避。\n',
        'wall.md': '# 长城\n\n长城是中国古代的军事防御工程，绵延数千公里。\n',
      });
      await engine.addCollection({ root: zh, name: 'zh' });
      await engine.index({ collection: 'zh' });
      // the automatic choice: the catalogue's multilingual model, which the tests do not download
      await expect(engine.embed({ collection: 'zh' })).rejects.toThrow(/model "multilingual-e5-small" is not available: .*trove models pull multilingual-e5-small/);
      expect(await engine.models.missing('zh')).toEqual(['multilingual-e5-small']);
      expect((await engine.status()).embeddings.collections.find((c) => c.collection === 'zh')).toMatchObject({ model: null, problem: expect.stringMatching(/multilingual-e5-small/) });
      // a model of its own: CJK text tokenised, embedded and found (the tiny model matches shared characters; meaning is the benches' job)
      await engine.setCollectionModel('zh', 'test-tiny-embedder');
      const [st] = await engine.embed({ collection: 'zh' });
      expect(st).toMatchObject({ model: 'test-tiny-embedder', vectors: 2 });
      const r = await engine.search({ query: '如何配置重试次数', mode: 'vector', collections: ['zh'] });
      expect(r.results[0]?.path).toBe('retry.md');
    });

    it('an unknown model is refused with a clear error', async () => {
      await expect(engine.setCollectionModel('notes', 'no-such-model')).rejects.toThrow(TroveError);
    });
  });
});

// SQLite only: the usearch ANN index and its file are the SQLite storage's acceleration of kNN
// (PostgreSQL's HNSW index keeps itself).
describe('ANN index', () => {
  it('is built once a space is big enough and filled, before any search (a one-shot embed waits for it), answers like exact search, and follows deletions', async () => {
    const dir = tempDir('trove-root-');
    const words = ['retries and backoff for HTTP clients', 'bread dough and yeast', 'mitochondria and cells', 'rivers and lakes', 'chess openings', 'guitar chords'];
    writeTree(dir, Object.fromEntries(words.map((w, i) => [`n${i}.md`, `# Note ${i}\n\nThis note is about ${w}.\n`])));
    const profileDir = tempDir('trove-profile-');
    const q = { query: 'how do I configure retry policies', mode: 'vector' as const, minScore: 0 };
    // exact kNN first: an engine whose threshold the six notes do not reach
    const plain = await Engine.open({ profileDir, embeddings: { modelsDir, workers: 1, annMinVectors: 1000 } });
    let exact: string[];
    try {
      await plain.addCollection({ root: dir, name: 'many' });
      await plain.index();
      await plain.embed();
      exact = (await plain.search(q)).results.map((r) => r.path);
    } finally {
      await plain.close();
    }
    const file = path.join(profileDir, 'vectors', 'space-1.usearch');
    expect(fs.existsSync(file)).toBe(false);
    const e = await Engine.open({ profileDir, embeddings: { modelsDir, workers: 1, annMinVectors: 4 } });
    try {
      await e.embed(); // nothing left to embed, but a filled space: its index is built in the background, before any search asks
      await expect.poll(() => fs.existsSync(file), { timeout: 10_000, interval: 50 }).toBe(true);
      const approx = (await e.search(q)).results.map((r) => r.path);
      expect(approx).toEqual(exact);
      fs.rmSync(path.join(dir, 'n0.md'));
      await e.index();
      expect((await e.search(q)).results.map((r) => r.path)).not.toContain('n0.md');
    } finally {
      await e.close();
    }
    // a one-shot command waits for the index and leaves it saved for the next process
    fs.rmSync(file);
    const once = await Engine.open({ profileDir, embeddings: { modelsDir, workers: 1, annMinVectors: 4 } });
    try {
      await once.embed({ waitForAnnIndex: true });
      expect(fs.existsSync(file)).toBe(true);
    } finally {
      await once.close();
    }
  });
});
