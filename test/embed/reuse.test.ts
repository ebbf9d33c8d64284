// Embedding less, on SQLite and PostgreSQL: a chunk whose exact text already has a vector in the
// space (the same text in another file; an edited document's unchanged chunk) gets a copy of that
// vector instead of a model run, and searches answer exactly as if every chunk had been embedded.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import type { EmbeddingProgress } from '../../src-main/engine/types/models.js';
import { markdownProse } from '../../src-main/engine/text/markdown-prose.js';
import { describeBackends, type TestBackend } from '../helpers/backends.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

afterAll(() => removeTempDirs());

/** A section long enough to be a chunk of its own. */
const section = (title: string, topic: string) =>
  `## ${title}\n\n${Array.from({ length: 9 }, (_, i) => `${topic} detail ${i + 1}: the ${title.toLowerCase()} notes say this holds, line ${i + 1} of its paragraph.`).join(' ')}\n\n`;

const boilerplate = section('Licence', 'This page is published under the documentation licence; redistribution is allowed');
const guide = (body: string) => `# Guide\n\n${section('Install', 'Run the installer and accept the defaults')}${body}${boilerplate}`;

const files = {
  'a.md': guide(section('Retries', 'The HTTP client retries failed requests with exponential backoff')),
  'b.md': guide(section('Bread', 'Knead the dough for ten minutes and let it rise')),
};

const embedOpts = { embeddings: { modelsDir, workers: 1 } };

async function embedAll(engine: Engine): Promise<EmbeddingProgress> {
  let last: EmbeddingProgress | undefined;
  await engine.embed({ onProgress: (p) => (last = p) });
  expect(last?.phase).toBe('done');
  return last!;
}

/** Each chunk's text and vector in the collection's active space, by path and ordinal. */
async function vectorsOf(b: TestBackend, engine: Engine): Promise<Map<string, { text: string; vector: Float32Array }>> {
  const s = await b.peek(engine);
  const c = (await s.collections.get('notes'))!;
  const space = (await s.vectors.collection(c.id)).activeSpaceId!;
  const out = new Map<string, { text: string; vector: Float32Array }>();
  for (const p of ['a.md', 'b.md']) {
    const doc = (await s.documents.byPath(c.id, p))!;
    const text = (await s.documents.content(doc.id))!;
    for (const ch of await s.chunks.forDocument(doc.id)) {
      const vector = await s.vectors.vectorOf(space, ch.id);
      expect(vector, `${p}#${ch.ordinal} has a vector`).toBeDefined();
      out.set(`${p}#${ch.ordinal}`, { text: text.slice(ch.charStart, ch.charEnd), vector: vector! });
    }
  }
  return out;
}

const ranked = async (engine: Engine, query: string) =>
  (await engine.search({ query, mode: 'vector', minScore: 0, limit: 10, explain: true })).results.map((h) => ({
    path: h.path,
    line: h.line,
    cosine: (h.explain as { cosine: number }).cosine,
  }));

describeBackends('embedding less: vectors reused by text', (b) => {
  let engine: Engine;
  let root: string;

  beforeAll(async () => {
    ({ engine, root } = await b.indexedFolder(files, 'notes', embedOpts));
  });

  describe('identical chunks in two files', () => {
    let first: EmbeddingProgress;
    beforeAll(async () => {
      first = await embedAll(engine);
    });

    it('get one model run and the same vector', async () => {
      const vecs = await vectorsOf(b, engine);
      const keys = [...vecs.keys()];
      expect(keys.filter((k) => k.startsWith('a.md')).length).toBeGreaterThanOrEqual(4); // title, install, topic, licence: chunks of their own
      const texts = new Set([...vecs.values()].map((v) => v.text));
      // every chunk is counted as done; only the distinct texts were run through the model
      expect(first.done).toBe(vecs.size);
      expect(first.reused).toBe(vecs.size - texts.size);
      expect(first.reused).toBeGreaterThanOrEqual(2); // the shared install and licence sections at least
      for (const [k, v] of vecs) {
        const twin = [...vecs].find(([k2, v2]) => k2 !== k && v2.text === v.text);
        if (twin) expect(Array.from(v.vector)).toEqual(Array.from(twin[1].vector));
      }
      const licence = [...vecs].filter(([, v]) => v.text.includes('documentation licence'));
      expect(licence.map(([k]) => k.split('#')[0])).toEqual(['a.md', 'b.md']);
    });

    it('a search finds both copies at the same cosine, as a chunk of its own prose (1.0)', async () => {
      const hits = await ranked(engine, markdownProse(boilerplate)); // what the model read of the section (a Markdown chunk)
      expect(hits.slice(0, 2).map((h) => h.path).sort()).toEqual(['a.md', 'b.md']);
      expect(hits[0]!.cosine).toBeCloseTo(1, 4);
      expect(hits[1]!.cosine).toBe(hits[0]!.cosine);
    });
  });

  describe('an edited document', () => {
    let before: Map<string, { text: string; vector: Float32Array }>;
    let second: EmbeddingProgress;
    beforeAll(async () => {
      before = await vectorsOf(b, engine);
      fs.writeFileSync(path.join(root, 'a.md'), guide(section('Timeouts', 'Requests that take longer than thirty seconds are cancelled')));
      await engine.index({ collection: 'notes' });
      expect((await engine.status()).needsEmbedding).toBeGreaterThanOrEqual(4); // every chunk of the re-indexed file waits
      second = await embedAll(engine);
    });

    it('re-embeds only its changed chunks: the unchanged ones get their vectors back', async () => {
      const after = await vectorsOf(b, engine);
      const changed = [...after].filter(([k]) => k.startsWith('a.md')).filter(([, v]) => ![...before.values()].some((o) => o.text === v.text));
      const aChunks = [...after.keys()].filter((k) => k.startsWith('a.md')).length;
      expect(changed.length).toBeGreaterThanOrEqual(1);
      expect(second.done).toBe(aChunks);
      expect(second.reused).toBe(aChunks - changed.length);
      for (const [k, v] of after) {
        const old = [...before.values()].find((o) => o.text === v.text);
        if (old) expect(Array.from(v.vector), k).toEqual(Array.from(old.vector));
      }
      expect((await engine.status()).needsEmbedding).toBe(0);
    });

    it('searches answer exactly as an index embedded from scratch does', async () => {
      const fresh = await b.open(embedOpts);
      const freshRoot = tempDir('trove-root-');
      writeTree(freshRoot, { 'a.md': fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'b.md': files['b.md'] });
      await fresh.addCollection({ root: freshRoot, name: 'notes' });
      await fresh.index();
      await fresh.embed();
      // identical chunks tie: their order is the backend's, so hits are compared in (cosine, path) order
      const inOrder = (hits: Awaited<ReturnType<typeof ranked>>) =>
        hits.map((h) => ({ ...h, cosine: Math.round(h.cosine * 1e5) / 1e5 })).sort((x, y) => y.cosine - x.cosine || x.path.localeCompare(y.path) || x.line - y.line);
      for (const q of ['how long before a request is cancelled?', 'bread dough rising', 'installer defaults', 'may I redistribute this page?']) {
        const ours = inOrder(await ranked(engine, q));
        expect(ours.length, q).toBeGreaterThanOrEqual(2);
        expect(ours, q).toEqual(inOrder(await ranked(fresh, q)));
      }
    });
  });

  describe('several chunks per model run (runBatch)', () => {
    it('embeds every chunk, in runs of similar length, near the exact vectors', async () => {
      const one = await b.indexedFolder(files, 'notes', embedOpts);
      await embedAll(one.engine);
      const exact = await vectorsOf(b, one.engine);
      const batched = await b.indexedFolder(files, 'notes', { embeddings: { modelsDir, workers: 1, runBatch: 4 } });
      const p = await embedAll(batched.engine);
      const vecs = await vectorsOf(b, batched.engine);
      expect(p.done).toBe(vecs.size);
      expect(p.reused).toBe(vecs.size - new Set([...vecs.values()].map((v) => v.text)).size);
      const cosines = [...vecs].map(([k, v]) => v.vector.reduce((acc, x, i) => acc + x * exact.get(k)!.vector[i]!, 0));
      for (const c of cosines) expect(c).toBeGreaterThan(0.95);
      expect(Math.min(...cosines)).toBeLessThan(0.99999); // an int8 run is quantised as a whole: chunks did share runs
      expect((await ranked(batched.engine, 'how do I make failed requests retry?'))[0]!.path).toBe('a.md');
    });
  });
});
