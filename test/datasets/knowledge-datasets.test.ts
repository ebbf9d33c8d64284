// Datasets as knowledge sources (Engine.knowledge over Engine.datasets): the committed FAISS
// fixtures and the folder dataset, with the real model. A FAISS hit scores its cosine; a folder
// dataset's hits are calibrated from their raw BM25 like documents'; datasets merge with
// collections by one scale; broken datasets are listed with their reason and skipped, never
// silently; items read back under the budget, chunked on the fly where FAISS has no chunks. On
// SQLite and on PostgreSQL (the documents' and the folder dataset's evidence come from the index).
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, KnowledgeSearchResponse } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { modelsDir } from '../embed/models-dir.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

const QUESTION = 'how do I fix a flat tire on my bike';

/** Every fixture but model-mismatch (its check loads a second model; the registry's test covers it). */
function fixtures(): string {
  const holder = tempDir('trove-knowledge-datasets-');
  for (const id of fs.readdirSync(path.join(FIXTURES, 'datasets'))) {
    if (id !== 'model-mismatch') fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
  }
  return holder;
}

const uris = (r: KnowledgeSearchResponse) => r.results.map((x) => x.uri);

describeBackends('datasets as knowledge sources', (b) => {
  let engine: Engine;

  beforeAll(async () => {
    engine = await b.open({ embeddings: { modelsDir, workers: 1 } });
    await engine.datasets.addFolder(fixtures());
    const notes = tempDir('trove-root-');
    writeTree(notes, { 'bikes.md': '# My bikes\n\nThe road bike needs a new chain; the tire on the old one goes flat every week.\n' });
    await engine.addCollection({ root: notes, name: 'notes' });
    await engine.index(); // indexes the folder dataset too
    await engine.datasets.settled();
  }, 120_000);


  describe('datasets as sources', () => {
    it('lists every dataset with its state: ready ones searchable, broken ones with the reason', async () => {
      const sources = new Map((await engine.knowledge.sources()).map((s) => [s.source, s]));
      expect(sources.get('datasets:ip')).toMatchObject({ kind: 'datasets', name: 'ip', items: 24, defaultMode: 'semantic', modes: ['semantic'], unavailable: null, defaultLimit: 3 });
      expect(sources.get('datasets:handbook')).toMatchObject({ defaultMode: 'hybrid', unavailable: null, items: 4 });
      expect(sources.get('datasets:truncated')!.unavailable).toMatch(/^dataset "truncated" is error: index\.faiss cannot be read/);
      expect(sources.get('documents:notes')).toBeDefined();
    });

    it('a FAISS dataset: semantic hits scored by their cosine, with dataset ids and URIs', async () => {
      const r = await engine.knowledge.search({ query: QUESTION, sources: ['datasets:ip'], limit: 3 });
      expect(r.mode).toBe('semantic');
      const own = await engine.datasets.search('ip', QUESTION, { topK: 3 });
      expect(r.results.map((x) => x.path)).toEqual(own.results.map((h) => h.path));
      const first = r.results[0]!;
      expect(first).toMatchObject({ source: 'datasets', dataset: 'ip', path: 'repairs/bike-tire.md', title: 'Fixing a flat bicycle tire', score_type: 'semantic', loc: null, tags: null });
      expect(first.id).toBe(`ip:${own.results[0]!.ref}`);
      expect(first.uri).toBe(`trove://~datasets/ip/${own.results[0]!.ref}`);
      expect(first.score).toBeCloseTo(own.results[0]!.similarity!, 3);
    });

    it('a folder dataset: calibrated from its raw evidence, not its own result set', async () => {
      const r = await engine.knowledge.search({ query: 'lost badge', sources: ['datasets:handbook'], mode: 'keyword' });
      expect(r.results[0]).toMatchObject({ dataset: 'handbook', path: 'security.md', uri: 'trove://~datasets/handbook/security.md', score_type: 'fts' });
      expect(r.results[0]!.score).toBeLessThan(1); // the registry's own keyword score is 1.0 for its best hit
      expect((await engine.datasets.search('handbook', 'lost badge', { mode: 'keyword' })).results[0]!.score).toBe(1);
    });

    it('merges datasets and collections on one scale; only ready datasets by default', async () => {
      const r = await engine.knowledge.search({ query: QUESTION, limit: 10 });
      expect(r.mode).toBe('mixed');
      const ran = r.sources.map((s) => s.source);
      expect(ran).toEqual(expect.arrayContaining(['documents:notes', 'datasets:ip', 'datasets:l2', 'datasets:handbook']));
      expect(ran.some((s) => /truncated|dims-mismatch|unsupported|missing-metadata/.test(s))).toBe(false);
      const scores = r.results.map((x) => x.score!);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      // the note about a flat bike tire (hybrid: its few chunks are embedded by the search itself)
      // and the datasets' repair guide (cosine; one hit per dataset that holds it) lead, above the
      // datasets' other guides: one scale, whichever evidence found them
      expect(r.sources.find((s) => s.source === 'documents:notes')!.mode).toBe('hybrid');
      expect(new Set([...new Set(r.results.map((x) => x.path))].slice(0, 2))).toEqual(new Set(['bikes.md', 'repairs/bike-tire.md']));
      const deep = await engine.knowledge.search({ query: QUESTION, limit: 100 });
      const unrelated = deep.results.filter((x) => x.path === 'kitchen/sourdough.md');
      expect(unrelated.every((x) => x.score! < r.results.find((y) => y.path === 'bikes.md')!.score! - 0.1)).toBe(true);
    });

    it('a broken dataset asked for by name is skipped with its reason; alone it is UNAVAILABLE', async () => {
      const r = await engine.knowledge.search({ query: QUESTION, sources: ['datasets:ip', 'datasets:truncated'] });
      expect(r.notices.join('\n')).toMatch(/datasets:truncated skipped: dataset "truncated" is error: index\.faiss cannot be read/);
      expect(uris(r).every((u) => u.startsWith('trove://~datasets/ip/'))).toBe(true);
      const alone = await engine.knowledge.search({ query: QUESTION, sources: ['datasets:truncated'] }).catch((e: unknown) => e);
      expect((alone as TroveError).code).toBe('UNAVAILABLE');
      await expect(engine.knowledge.search({ query: 'x', sources: ['datasets:nope'] })).rejects.toThrow(/no source named "datasets:nope" \(sources: datasets:chunked, /);
    });

    it('filters: a path glob applies to dataset items; tags and kinds leave datasets out, saying so', async () => {
      const r = await engine.knowledge.search({ query: QUESTION, sources: ['datasets:ip'], filters: { path: 'kitchen/*' } });
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.results.every((x) => x.path.startsWith('kitchen/'))).toBe(true);
      const tagged = await engine.knowledge.search({ query: QUESTION, filters: { tags: ['x'] } });
      expect(tagged.sources.find((s) => s.source === 'datasets:ip')!.notices.join(' ')).toMatch(/no kinds or tags to filter on/);
    });
  });

  describe('reading dataset items', () => {
    it('a FAISS entry: its metadata text, chunked on the fly, within the budget, by id or URI', async () => {
      const hit = (await engine.knowledge.search({ query: QUESTION, sources: ['datasets:ip'], limit: 1 })).results[0]!;
      const doc = await engine.datasets.document('ip', hit.id.slice('ip:'.length));
      const full = await engine.knowledge.get({ uri: hit.uri, retrieval: { mode: 'full' } });
      expect(full.content).toBe(doc.text);
      expect(full.meta).toMatchObject({ source: 'datasets', dataset: 'ip', path: 'repairs/bike-tire.md' });
      for (const mode of ['snippet', 'chunk', 'chunk_with_siblings'] as const) {
        const g = await engine.knowledge.get({ source: 'datasets', id: hit.id, query: 'puncture', retrieval: { mode, max_tokens: 30, chunk_size_tokens: 16 } });
        expect(g.retrieval.chunking).toBe('on_the_fly');
        expect(g.retrieval.tokens).toBeLessThanOrEqual(30);
        if (mode !== 'snippet') expect(g.retrieval.anchored_by).toBe('query');
      }
    });

    it('a folder dataset document: its own chunks, anchored by the hit loc', async () => {
      const hit = (await engine.knowledge.search({ query: 'lost badge', sources: ['datasets:handbook'], mode: 'keyword' })).results[0]!;
      const g = await engine.knowledge.get({ source: 'datasets', id: hit.id, loc: hit.loc!, retrieval: { mode: 'chunk' } });
      expect(g.retrieval).toMatchObject({ chunking: 'prechunked', anchored_by: 'loc', anchor: 0 });
      expect(g.content).toMatch(/Report a lost laptop or badge/);
    });

    it('unknown datasets and refs are NOT_FOUND; a scope without datasets reaches none', async () => {
      await expect(engine.knowledge.get({ source: 'datasets', id: 'ip:999' })).rejects.toThrow(TroveError);
      await expect(engine.knowledge.get({ uri: 'trove://~datasets/nope/1' })).rejects.toThrow(/no dataset "nope"/);
      await expect(engine.knowledge.get({ source: 'datasets', id: 'no-colon' })).rejects.toThrow(/<dataset id>:<ref>/);
      const scope = { collections: ['notes'], datasets: [], memory: false };
      expect((await engine.knowledge.sources(scope)).map((s) => s.source)).toEqual(['documents:notes']);
      const hidden = await engine.knowledge.get({ uri: 'trove://~datasets/ip/0' }, scope).catch((e: unknown) => e);
      expect((hidden as TroveError).code).toBe('NOT_FOUND');
      expect((await engine.knowledge.search({ query: QUESTION }, scope)).results.every((x) => x.source === 'documents')).toBe(true);
    });
  });
});
