// The dataset registry through Engine.datasets: the committed fixtures (FAISS indexes written by
// faiss-cpu over real MiniLM vectors, broken ones, a folder dataset) added as a folder, searched
// with the real model. Bad datasets end in Error with their reason while the others serve. On
// SQLite and on PostgreSQL: the added folders, the model checks' cache and the folder dataset's
// index are the storage's; searching a FAISS index reads its files alone, so those cases (and the
// large HNSW graph) run on one backend.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type DatasetInfo, type DatasetState } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { modelsDir } from '../embed/models-dir.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

const GOOD = ['ip', 'l2', 'idmap', 'idmap2-l2', 'hnsw'];
const QUESTION = 'how do I fix a flat tire on my bike';

afterAll(() => removeTempDirs());

describeBackends('the dataset registry', (b) => {
  let engine: Engine;
  const events: DatasetInfo[] = [];

  beforeAll(async () => {
    engine = await b.open({ embeddings: { modelsDir, workers: 1 } });
    engine.datasets.onChange((d) => events.push(d));
    const found = await engine.datasets.addFolder(FIXTURES);
    expect(found.length).toBe(14);
    await engine.datasets.settled();
  }, 120_000);

  const byId = async () => new Map((await engine.datasets.list()).map((d) => [d.id, d]));

  describe('a folder of datasets, good and broken', () => {
    it('lists every manifest with its state; each broken one says why while the others are ready', async () => {
      const all = await byId();
      for (const id of [...GOOD, 'chunked', 'unnormalized']) expect(all.get(id), id).toMatchObject({ state: 'ready', reason: null, kind: 'faiss', model: 'all-MiniLM-L6-v2' });
      const reasons: Record<string, RegExp> = {
        truncated: /^index\.faiss cannot be read: the file is truncated: IndexFlatIP's vectors needs 36864 bytes at offset 45, but the file ends at \d+$/,
        'missing-metadata': /^the metadata file "\.\/metadata\.json" is not there \(looked for .*fixtures\/datasets\/metadata\.json and .*missing-metadata\/metadata\.json\)$/,
        'dims-mismatch': /^model mismatch: the index holds 128-dimension vectors, but all-MiniLM-L6-v2 makes 384-dimension vectors/,
        'model-mismatch': /^model mismatch: the stored vectors do not come from test-tiny-embedder: its embedding of a document's own text is at cosine -?0\.\d\d at best to the stored vector/,
        'unknown-model': /^unknown embedding model "text-embedding-3-small": .* Trove has all-MiniLM-L6-v2, multilingual-e5-small/,
        unsupported: /^unsupported FAISS index type IndexIVFFlat \(type code "IwFl"\)/,
      };
      for (const [id, reason] of Object.entries(reasons)) {
        expect(all.get(id)?.state, id).toBe('error');
        expect(all.get(id)?.reason, id).toMatch(reason);
      }
      // a folder dataset is Loading until its folder has been indexed once
      expect(all.get('handbook')).toMatchObject({ state: 'loading', kind: 'folder', documents: 0 });
      expect(all.get('ip')).toMatchObject({
        name: 'Household guides (IP)',
        defaultTopK: 3,
        documents: 24,
        dims: 384,
        indexType: 'IndexFlatIP',
        indexPath: path.join(FIXTURES, 'datasets', 'ip', 'docs.index'),
        metadataPath: path.join(FIXTURES, 'datasets', 'ip', 'metadata.json'),
        folder: FIXTURES,
        scoring: 'inner product of unit vectors = cosine similarity; score = cosine clipped to 0..1',
      });
      expect(all.get('idmap')?.indexType).toBe('IndexIDMap(IndexFlatIP)');
      expect(all.get('idmap2-l2')?.indexType).toBe('IndexIDMap2(IndexFlatL2)');
      expect(all.get('hnsw')?.indexType).toBe('IndexHNSWFlat(IndexFlatIP)');
    });

    it('reports each state change: Unloaded → Validating → Loading → Ready, or → Error', () => {
      const states = (id: string): DatasetState[] => events.filter((e) => e.id === id).map((e) => e.state);
      expect(states('ip')).toEqual(['unloaded', 'validating', 'loading', 'ready']);
      expect(states('truncated')).toEqual(['unloaded', 'validating', 'loading', 'error']);
      expect(states('handbook')).toEqual(['unloaded', 'validating', 'loading']);
    });

    it('bad input and unusable datasets get a clear error, never an empty result', async () => {
      const search = (id: string, q: string, opts = {}) => troveErrorAsync(() => engine.datasets.search(id, q, opts));
      expect(await search('nope', 'x')).toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/^no dataset "nope" \(datasets: chunked, dims-mismatch, handbook, hnsw, /) });
      expect(await search('truncated', 'x')).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/^dataset "truncated" is error: index\.faiss cannot be read: the file is truncated/) });
      expect(await search('handbook', 'x')).toMatchObject({ code: 'UNAVAILABLE', message: 'dataset "handbook" is loading (its files are being read, or its folder indexed, right now)' });
      for (const topK of [0, 101, 2.5]) expect((await search('ip', 'x', { topK })).message).toBe(`topK must be a whole number from 1 to 100 (got ${topK})`);
      expect((await search('ip', 'x', { offset: -1 })).code).toBe('INVALID_INPUT');
      expect((await search('ip', 'x', { mode: 'fuzzy' })).message).toBe('mode must be keyword, semantic or hybrid (got "fuzzy")');
      for (const q of ['', '   \n']) expect((await search('ip', q)).message).toBe('query is empty: type what to search for');
      expect((await search('ip', 'q'.repeat(1025))).message).toBe('query is longer than 1024 characters (1025)');
      for (const ref of ['24', '-1', 'abc', '1.5']) {
        expect(await troveErrorAsync(() => engine.datasets.document('ip', ref))).toMatchObject({ code: 'NOT_FOUND', message: `dataset "ip" has no document "${ref}": its refs are positions 0..23 in its metadata` });
      }
      expect((await troveErrorAsync(() => engine.datasets.info('nope'))).code).toBe('NOT_FOUND');
      expect((await troveErrorAsync(() => engine.datasets.document('truncated', '0'))).code).toBe('UNAVAILABLE');
    });

    it('status lists every dataset; the user collections never see them', async () => {
      const s = await engine.status();
      expect(s.datasets.map((d) => d.id)).toEqual((await engine.datasets.list()).map((d) => d.id));
      expect(s.datasets.find((d) => d.id === 'unsupported')).toMatchObject({ state: 'error', reason: expect.stringContaining('IndexIVFFlat') });
      expect((await engine.status({ collections: [] })).datasets).toEqual([]); // a scoped token sees no datasets
    });
  });

  // a FAISS index is searched from its files, apart from the index: the same on every backend
  if (b.name === 'sqlite') {
    describe('searching FAISS indexes', () => {
      it('every supported index type finds the same documents with the same similarities', async () => {
        const runs = await Promise.all(GOOD.map((id) => engine.datasets.search(id, QUESTION, { topK: 5 })));
        const [ip] = runs;
        expect(ip!.results[0]).toMatchObject({ dataset: 'ip', path: 'repairs/bike-tire.md', title: 'Fixing a flat bicycle tire', ref: '2', chunk: null });
        for (const r of runs) {
          expect(r.mode).toBe('semantic');
          expect(r.datasetSize).toBe(24);
          expect(r.results.map((h) => h.path)).toEqual(ip!.results.map((h) => h.path));
          for (const [i, h] of r.results.entries()) {
            expect(h.similarity!).toBeCloseTo(ip!.results[i]!.similarity!, 3); // L2: cos = 1 − d²/2
            expect(h.score).toBeGreaterThanOrEqual(0);
            expect(h.score).toBeLessThanOrEqual(1);
            expect(await engine.datasets.document(r.dataset, h.ref)).toMatchObject({ title: h.title, path: h.path }); // an IDMap's ids index the metadata
          }
          expect(r.results.map((h) => h.score)).toEqual([...r.results.map((h) => h.score)].sort((a, b) => b - a));
        }
        expect(ip!.results[0]!.similarity).toBeGreaterThan(0.4);
      });

      it('a document searched for by its own words ranks first in every index', async () => {
        for (const id of GOOD) {
          const r = await engine.datasets.search(id, 'control the centre, develop knights and bishops, castle early', { topK: 1 });
          expect(r.results[0]?.path, id).toBe('hobbies/chess-openings.md');
        }
      });

      it('several vectors of one document collapse to its best', async () => {
        const r = await engine.datasets.search('chunked', QUESTION, { topK: 24 });
        expect(r.results.length).toBe(24);
        expect(new Set(r.results.map((h) => h.path)).size).toBe(24);
        expect(r.datasetSize).toBe(48);
        expect(r.hasMore).toBe(false);
        const top = await engine.datasets.document('chunked', r.results[0]!.ref);
        expect(top.path).toBe('repairs/bike-tire.md');
        expect(top.text.length).toBeLessThan(200); // one half of the guide, the better-matching one
      });

      it('unnormalised vectors: ranked as the index ranks them, and the result says what the score means', async () => {
        const r = await engine.datasets.search('unnormalized', QUESTION, { topK: 24 });
        expect(r.notices.join(' ')).toMatch(/not unit length \(norms \d\.\d\d–\d\.\d\d\): ranked by raw inner product, as the index does; score = inner product ÷ the largest norm/);
        expect((await byId()).get('unnormalized')?.scoring).toMatch(/not unit length/);
        const ip = await engine.datasets.search('ip', QUESTION, { topK: 24 });
        const cosine = new Map(ip.results.map((h) => [h.path, h.similarity]));
        for (const h of r.results) expect(h.similarity!).toBeCloseTo(cosine.get(h.path)!, 3); // the true cosine
        expect(r.results.map((h) => h.score)).toEqual([...r.results.map((h) => h.score)].sort((a, b) => b - a));
      });

      it('topK defaults to the manifest defaultTopK; offset pages through without overlap', async () => {
        expect((await engine.datasets.search('ip', QUESTION)).results.length).toBe(3);
        expect((await engine.datasets.search('l2', QUESTION)).results.length).toBe(5); // the spec default
        const all = await engine.datasets.search('ip', QUESTION, { topK: 24 });
        const first = await engine.datasets.search('ip', QUESTION, { topK: 10 });
        const last = await engine.datasets.search('ip', QUESTION, { topK: 10, offset: 20 });
        expect(first).toMatchObject({ hasMore: true, nextOffset: 10 });
        expect(last).toMatchObject({ hasMore: false, nextOffset: null });
        expect([...first.results, ...last.results].map((h) => h.ref)).toEqual([...all.results.slice(0, 10), ...all.results.slice(20)].map((h) => h.ref));
      });

      it('snippets are plain text, no longer than asked, around the words of the query', async () => {
        const r = await engine.datasets.search('ip', 'listen for the puncture', { topK: 1, snippetLength: 80 });
        const s = r.results[0]!.snippet;
        expect(s.length).toBeLessThanOrEqual(80);
        expect(s).toContain('puncture');
        expect(s).not.toMatch(/^\d+: /m);
        const whole = await engine.datasets.search('ip', QUESTION, { topK: 1, snippetLength: 2000 });
        expect(whole.results[0]!.snippet).toBe((await engine.datasets.document('ip', '2')).text);
      });

      it('a FAISS dataset asked for keyword search runs semantic and says so', async () => {
        const r = await engine.datasets.search('ip', QUESTION, { mode: 'keyword', topK: 1 });
        expect(r.mode).toBe('semantic');
        expect(r.notices).toContain('dataset "ip" is a FAISS index: searched by its vectors (semantic), not keyword');
      });
    });
  }

  describe('a folder dataset', () => {
    it('is indexed like a read-only collection of its own, Ready once indexed, and searched by keyword', async () => {
      const notes = tempDir('trove-root-');
      writeTree(notes, { 'badge.md': '# My badge\n\nI keep my badge in my coat.\n' });
      await engine.addCollection({ root: notes, name: 'notes' });
      await engine.index();
      expect((await byId()).get('handbook')).toMatchObject({ state: 'ready', documents: 4 });
      expect(events.filter((e) => e.id === 'handbook').map((e) => e.state).at(-1)).toBe('ready');
      const r = await engine.datasets.search('handbook', 'lost badge');
      expect(r).toMatchObject({ mode: 'keyword', datasetSize: 4 });
      expect(r.notices[0]).toMatch(/has no vectors yet: keyword search only/);
      expect(r.results[0]).toMatchObject({ dataset: 'handbook', ref: 'security.md', path: 'security.md', title: 'Security', similarity: null, chunk: { ordinal: 0, lineStart: 1 } });
      expect(r.results[0]!.modified).toMatch(/^\d{4}-\d\d-\d\dT/);
      const doc = await engine.datasets.document('handbook', 'security.md');
      expect(doc.text).toContain('Report a lost laptop or badge');
      expect(doc.chunks![0]).toMatchObject({ ordinal: 0, charStart: 0, lineStart: 1 });
      // the user's collections and their search never see a dataset's documents
      expect((await engine.listCollections()).map((c) => c.name)).toEqual(['notes']);
      expect((await engine.search({ query: 'badge' })).results.map((h) => h.path)).toEqual(['badge.md']);
      expect((await engine.status()).collections.map((c) => c.name)).toEqual(['notes']);
      expect((await troveErrorAsync(() => engine.datasets.document('handbook', 'nope.md'))).code).toBe('NOT_FOUND');
      await expect(engine.index({ dataset: 'ip' })).rejects.toThrow('dataset "ip" is a FAISS index: it has nothing to index');
    });

    it('is embedded with the collections, then searched hybrid by default, or semantic', async () => {
      await engine.embed();
      const hybrid = await engine.datasets.search('handbook', 'when are travel receipts due');
      expect(hybrid.mode).toBe('hybrid');
      expect(hybrid.results[0]).toMatchObject({ ref: 'expenses.md' });
      expect(hybrid.results[0]!.similarity).toBeGreaterThan(0.3);
      const semantic = await engine.datasets.search('handbook', 'time off', { mode: 'semantic', topK: 1 });
      expect(semantic).toMatchObject({ mode: 'semantic', results: [{ ref: 'holidays.md' }] });
      expect(semantic.results[0]!.similarity).toBeCloseTo(semantic.results[0]!.score, 3);
      const keyword = await engine.datasets.search('handbook', 'receipts', { mode: 'keyword' });
      expect(keyword.results.map((h) => h.ref)).toEqual(['expenses.md']);
    });

    it('removing the added folder drops its datasets and their index', async () => {
      await engine.datasets.removeFolder(FIXTURES);
      expect(await engine.datasets.folders()).toEqual([]);
      expect(await engine.datasets.list()).toEqual([]);
      expect(events.filter((e) => e.id === 'ip').at(-1)).toMatchObject({ state: 'unloaded', reason: `its folder ${FIXTURES} is no longer a dataset folder` });
      await expect(engine.datasets.search('handbook', 'badge')).rejects.toThrow(/no dataset "handbook"/);
      const rows = await b.peek(engine);
      await expect.poll(async () => (await rows.collections.list(['dataset'])).map((c) => c.name), { timeout: 10_000 }).toEqual([]); // the folder dataset's index goes
      expect((await engine.search({ query: 'badge' })).results.map((h) => h.path)).toEqual(['badge.md']);
      expect(await troveErrorAsync(() => engine.datasets.removeFolder(FIXTURES))).toMatchObject({ code: 'NOT_FOUND', message: `${FIXTURES} is not an added dataset folder (none are added)` });
      expect((await troveErrorAsync(() => engine.datasets.addFolder(path.join(FIXTURES, 'nowhere')))).code).toBe('IO');
      expect(await troveErrorAsync(() => engine.datasets.addFolder(engine.datasets.profileFolder()))).toMatchObject({ code: 'CONFLICT' });
    });
  });
});

// one backend: a FAISS graph walked from its file
describe('a large IndexHNSWFlat', () => {
  it('is searched through its graph, finding what an exact scan finds', async () => {
    const holder = tempDir('trove-hnsw-');
    for (const id of ['ip', 'hnsw']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
    const graph = await Engine.open({ profileDir: tempDir('trove-profile-'), embeddings: { modelsDir, workers: 1 }, datasets: { hnswGraphFrom: 10 } });
    try {
      await graph.datasets.addFolder(holder);
      await graph.datasets.settled();
      for (const q of [QUESTION, 'what makes a volcano explode', 'immune memory after a shot']) {
        const [exact, walked] = await Promise.all([graph.datasets.search('ip', q, { topK: 10 }), graph.datasets.search('hnsw', q, { topK: 10 })]);
        expect(walked.results.map((h) => h.ref)).toEqual(exact.results.map((h) => h.ref));
      }
      // a deep page still holds every document
      const deep = await graph.datasets.search('hnsw', QUESTION, { topK: 10, offset: 20 });
      expect(deep.results.length).toBe(4);
    } finally {
      await graph.close();
    }
  });
});
