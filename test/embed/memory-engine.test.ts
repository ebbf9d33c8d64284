// The memory store through Engine.memory on a real engine with the real embedding model: writes
// (batches atomic or per entry, bad input writing nothing), merge-patch updates, images that
// round-trip and stay out of search text, cascading deletes down to FTS rows and vectors, keyword
// (CJK too), semantic and hybrid search, neighbours in a thread, export and an idempotent import,
// and memory kept apart from the documents' search. On SQLite and on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, MemoryExportLine, MemorySearchRequest, MemorySearchResponse } from '../../src-main/engine/index.js';
import type { Storage } from '../../src-main/engine/store/storage.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir } from '../helpers/tmp.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { modelsDir } from './models-dir.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describeBackends('memory', (b) => {
  let engine: Engine;
  /** The engine's storage opened apart from it, to prove what a write left in the tables. */
  let rows: Storage;

  beforeAll(async () => {
    // catchUpChunks 0: a search embeds nothing by itself, so "without vectors" lasts until the
    // explicit embed (a search's catch-up: the last describe)
    ({ engine } = await b.indexedFolder({ 'guide.md': '# Deployment guide\n\nRoll out the retry service region by region.\n' }, 'docs', {
      embeddings: { modelsDir, defaultModel: 'all-MiniLM-L6-v2', rerankModel: 'test-tiny-cross-encoder', workers: 1, catchUpChunks: 0 },
    }));
    rows = await b.peek(engine);
  });

  /** Rows of memory's keyword index. */
  const ftsRows = async () => (await rows.memory.counts()).ftsRows;

  function keyword(req: Omit<MemorySearchRequest, 'mode'>): Promise<MemorySearchResponse> {
    return engine.memory.search({ ...req, mode: 'keyword' });
  }

  /** Every line of a memory export (an async iterable on every backend). */
  async function exported(e: Engine): Promise<MemoryExportLine[]> {
    const lines: MemoryExportLine[] = [];
    for await (const line of e.memory.export()) lines.push(line);
    return lines;
  }


  describe('writing', () => {
    it('stores an entry: tags trimmed, lower-cased and deduplicated; metadata as given; content type from images; ISO times', async () => {
      const { id, threadId } = await engine.memory.store({ threadId: '  build ', source: 'agent', text: 'The build cache lives in /var/cache/ci.', metadata: { status: 'active', nested: { a: [1, 2] } }, tags: [' CI ', 'ci', 'Cache', ''] });
      expect(threadId).toBe('build');
      const [e] = await engine.memory.get([id]);
      expect(e).toMatchObject({ id, threadId: 'build', source: 'agent', contentType: 'text', text: 'The build cache lives in /var/cache/ci.', metadata: { status: 'active', nested: { a: [1, 2] } }, tags: ['ci', 'cache'], images: [] });
      expect(e!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(e!.createdAt).toBe(e!.updatedAt);
    });

    it('images round-trip byte for byte, are returned only when asked, and stay out of the searchable text', async () => {
      const data = PNG.toString('base64');
      const { id } = await engine.memory.store({ threadId: 'shots', source: 'user', text: 'Screenshot of the failing dashboard.', tags: ['screenshot'], images: [{ data, mime_type: 'image/png' }, { data: `data:image/jpeg;base64,${data}` }] });
      const [withData] = await engine.memory.get([id]);
      expect(withData!.contentType).toBe('multimodal');
      expect(withData!.images).toEqual([{ mime_type: 'image/png', bytes: PNG.length, data }, { mime_type: 'image/jpeg', bytes: PNG.length, data }]);
      expect((await engine.memory.get([id], { includeImages: false }))[0]!.images).toEqual([{ mime_type: 'image/png', bytes: PNG.length }, { mime_type: 'image/jpeg', bytes: PNG.length }]);
      expect((await keyword({ query: data.slice(0, 12) })).hits).toEqual([]);
      expect((await keyword({ query: 'png jpeg' })).hits).toEqual([]);
      expect((await keyword({ query: 'dashboard' })).hits.map((h) => h.entry.id)).toEqual([id]);
    });

    it('an atomic batch with one bad entry writes nothing and names the entry; per entry, the good ones are stored', async () => {
      const before = { entries: (await engine.memory.statistics()).entries, fts: await ftsRows() };
      const good = { threadId: 'batch', source: 'agent' as const, text: 'A good entry about gardening.' };
      const e = await troveErrorAsync(() => engine.memory.storeBatch([good, { ...good, text: '   ' }, good]));
      expect(e.code).toBe('INVALID_INPUT');
      expect(e.message).toMatch(/nothing was stored .*entries\[1\]\.text is required/);
      const oversize = await troveErrorAsync(() => engine.memory.storeBatch([good, { ...good, images: [{ data: Buffer.alloc(2 * 1024 * 1024 + 1).toString('base64') }] }]));
      expect(oversize.message).toMatch(/entries\[1\]\.images\[0\] is larger than the 2 MB/);
      expect((await troveErrorAsync(() => engine.memory.storeBatch(Array.from({ length: 101 }, () => good)))).message).toMatch(/at most 100/);
      expect((await troveErrorAsync(() => engine.memory.storeBatch([{ ...good, images: [{ data: 'not base64!!' }] }]))).message).toMatch(/images\[0\]\.data is not valid base64/);
      expect((await troveErrorAsync(() => engine.memory.storeBatch([{ ...good, images: [{ data: PNG.toString('base64'), mime_type: 'text/html' }] }]))).message).toMatch(/mime_type must be an image type/);
      expect({ entries: (await engine.memory.statistics()).entries, fts: await ftsRows() }).toEqual(before);

      const r = await engine.memory.storeBatch([good, { ...good, source: 'robot' as 'user' }, { ...good, text: 'Another good one about compost.' }], { atomic: false });
      expect(r.succeeded).toBe(2);
      expect(r.failed).toBe(1);
      expect(r.results[1]).toEqual({ index: 1, success: false, id: null, error: 'entries[1].source must be "user" or "agent" (got "robot")' });
      expect((await engine.memory.get([r.results[0]!.id!, r.results[2]!.id!])).map((x) => x.text)).toEqual(['A good entry about gardening.', 'Another good one about compost.']);
    });
  });

  describe('updating', () => {
    it('applies RFC 7396 merge patches: members added and replaced, null deletes, objects merge, arrays replace', async () => {
      const { id } = await engine.memory.store({ threadId: 'patch', source: 'agent', text: 'Patch me.', metadata: { status: 'draft', draft: true, team: { name: 'core', size: 3 }, langs: ['ts', 'go'] } });
      const created = (await engine.memory.get([id]))[0]!;
      const r = await engine.memory.update({ id, metadataPatch: { status: 'done', reviewer: 'alice', draft: null, team: { size: null, lead: 'bo' }, langs: ['py'] } });
      expect(r).toEqual({ id, updatedFields: ['metadata'] });
      const after = (await engine.memory.get([id]))[0]!;
      expect(after.metadata).toEqual({ status: 'done', team: { name: 'core', lead: 'bo' }, langs: ['py'], reviewer: 'alice' });
      expect((await engine.memory.list({ metadataFilters: [{ key: 'team.lead', operator: 'eq', value: 'BO' }] })).entries.map((e) => e.id)).toEqual([id]); // filters see the patched value
      expect(after.createdAt).toBe(created.createdAt);
      expect(after.threadId).toBe('patch');
      expect((await engine.memory.update({ id, metadata: { only: 1 } })).updatedFields).toEqual(['metadata']);
      expect((await engine.memory.get([id]))[0]!.metadata).toEqual({ only: 1 });
    });

    it('new text is searchable at once and the old text is gone; tags and images are replaced; content type follows', async () => {
      const { id } = await engine.memory.store({ threadId: 'edit', source: 'agent', text: 'Zebras graze at dawn.', tags: ['animals'] });
      const r = await engine.memory.update({ id, text: 'Walruses nap at noon.', tags: ['Sea'], images: [{ data: PNG.toString('base64') }] });
      expect(r.updatedFields).toEqual(['text_content', 'tags', 'images', 'content_type']);
      expect((await keyword({ query: 'zebras' })).hits).toEqual([]);
      expect((await keyword({ query: 'walruses' })).hits.map((h) => h.entry.id)).toEqual([id]);
      expect((await engine.memory.get([id]))[0]).toMatchObject({ tags: ['sea'], contentType: 'multimodal' });
      expect((await engine.memory.list({ tags: ['animals'] })).entries.map((e) => e.id)).not.toContain(id);
      expect((await engine.memory.update({ id, images: [] })).updatedFields).toEqual(['images', 'content_type']);
      expect((await engine.memory.get([id]))[0]!.contentType).toBe('text');
    });

    it('a title in metadata ranks like a document title and is re-indexed when it changes', async () => {
      const { id } = await engine.memory.store({ threadId: 'titles', source: 'agent', text: 'Body text without the special word.', metadata: { title: 'Quokka census' } });
      expect((await keyword({ query: 'quokka' })).hits.map((h) => h.entry.id)).toEqual([id]);
      await engine.memory.update({ id, metadataPatch: { title: 'Wombat census' } });
      expect((await keyword({ query: 'quokka' })).hits).toEqual([]);
      expect((await keyword({ query: 'wombat' })).hits.map((h) => h.entry.id)).toEqual([id]);
    });

    it('refuses a missing entry, no fields, and metadata with metadata_patch; an atomic batch with a missing id updates nothing', async () => {
      const { id } = await engine.memory.store({ threadId: 'edit', source: 'user', text: 'Keep me as I am.' });
      expect(await troveErrorAsync(() => engine.memory.update({ id: 987_654, text: 'x' }))).toMatchObject({ code: 'NOT_FOUND', message: 'context entry 987654 not found' });
      expect((await troveErrorAsync(() => engine.memory.update({ id }))).message).toMatch(/at least one field/);
      expect((await troveErrorAsync(() => engine.memory.update({ id, metadata: {}, metadataPatch: {} }))).message).toMatch(/cannot be used together/);
      const e = await troveErrorAsync(() => engine.memory.updateBatch([{ id, text: 'Changed!' }, { id: 987_654, text: 'x' }]));
      expect(e).toMatchObject({ code: 'NOT_FOUND' });
      expect(e.message).toMatch(/nothing was updated .*updates\[1\]: context entry 987654 not found/);
      expect((await engine.memory.get([id]))[0]!.text).toBe('Keep me as I am.');
      const r = await engine.memory.updateBatch([{ id, text: 'Changed!' }, { id: 987_654, text: 'x' }], { atomic: false });
      expect(r.results).toEqual([
        { index: 0, success: true, id, error: null, updatedFields: ['text_content'] },
        { index: 1, success: false, id: 987_654, error: 'updates[1]: context entry 987654 not found' },
      ]);
      expect((await engine.memory.get([id]))[0]!.text).toBe('Changed!');
    });
  });

  describe('searching', () => {
    it('finds CJK text by words and by a lone character', async () => {
      const { id } = await engine.memory.store({ threadId: 'ja', source: 'user', text: '東京の天気は晴れです。傘は要りません。' });
      expect((await keyword({ query: '天気' })).hits.map((h) => h.entry.id)).toEqual([id]);
      expect((await keyword({ query: '傘' })).hits.map((h) => h.entry.id)).toEqual([id]);
      expect((await keyword({ query: '天気', highlight: true })).hits[0]!.highlighted).toBe('東京の<mark>天気</mark>は晴れです。傘は要りません。');
    });

    it('keeps memory and documents apart: neither search returns the other, get does not serve an entry', async () => {
      await engine.memory.store({ threadId: 'apart', source: 'agent', text: 'Roll out the retry service carefully.' });
      const docs = await engine.search({ query: 'retry service', mode: 'keyword' });
      expect(docs.results.map((r) => r.collection)).toEqual(['docs']);
      expect((await keyword({ query: 'region by region' })).hits).toEqual([]);
      expect((await troveErrorAsync(() => engine.get('#m1'))).code).toBe('INVALID_INPUT'); // not a file's docid
      expect((await troveErrorAsync(() => engine.get('trove://~memory/1'))).code).toBe('NOT_FOUND');
      expect((await troveErrorAsync(() => engine.get('~memory/1'))).code).toBe('INVALID_INPUT'); // a home-relative path
      expect((await engine.listCollections()).map((c) => c.name)).toEqual(['docs']);
    });

    it('without vectors: semantic search says why, hybrid falls back to keyword and says so', async () => {
      const e = await troveErrorAsync(() => engine.memory.search({ query: 'rain gear', mode: 'vector' }));
      expect(e).toMatchObject({ code: 'UNAVAILABLE' });
      expect(e.message).toMatch(/no vectors yet for memory/);
      const h = await engine.memory.search({ query: 'walruses', mode: 'hybrid' });
      expect(h.hits.length).toBe(1);
      expect(h.legs.vector).toBeNull();
      expect(h.notices.join(' ')).toMatch(/vector leg skipped/);
      expect((await engine.memory.statistics()).semantic.pendingChunks).toBeGreaterThan(0);
    });

    it('once embedded: semantic search finds meaning without shared words; hybrid fuses both legs with 0..1 scores', { timeout: 120_000 }, async () => {
      const { id } = await engine.memory.store({ threadId: 'weather', source: 'agent', text: 'Pack an umbrella: showers are expected all afternoon.' });
      await engine.embed();
      const s = (await engine.memory.statistics()).semantic;
      expect(s).toMatchObject({ model: 'all-MiniLM-L6-v2', dimensions: 384, pendingChunks: 0 });
      expect(s.vectors).toBe(s.chunks);
      const v = await engine.memory.search({ query: 'will it rain later today?', mode: 'vector', limit: 3 });
      expect(v.hits[0]!.entry.id).toBe(id);
      expect(v.model).toBe('all-MiniLM-L6-v2');
      expect(v.hits[0]!.vector!.cosine).toBeGreaterThan(0.3);
      const h = await engine.memory.search({ query: 'umbrella rain', mode: 'hybrid', limit: 5 });
      expect(h.hits[0]!.entry.id).toBe(id);
      expect(h.hits[0]).toMatchObject({ keyword: { rank: 1 }, vector: { rank: 1 } });
      expect(h.hits[0]!.score).toBe(1);
      for (const hit of h.hits) expect(hit.score).toBeGreaterThanOrEqual(0);
      const w = await engine.memory.search({ query: 'umbrella rain', mode: 'hybrid', fusion: { method: 'weighted', keyword: 0.3, semantic: 0.7 } });
      expect(w.fusion).toEqual({ method: 'weighted', keyword: 0.3, semantic: 0.7 });
      expect(w.hits[0]!.entry.id).toBe(id);
      const filtered = await engine.memory.search({ query: 'umbrella rain', mode: 'vector', threadId: 'edit' });
      expect(filtered.hits.length).toBeGreaterThan(0);
      expect(filtered.hits.every((x) => x.entry.threadId === 'edit')).toBe(true);
      expect((await troveErrorAsync(() => engine.memory.search({ query: 'x', mode: 'hybrid', fusion: { method: 'weighted', keyword: 0.5, semantic: 0.6 } }))).message).toMatch(/weights must add up to 1/);
      // every search is counted for the persistence server's metrics, by kind
      const metrics = Object.fromEntries((await engine.memory.statistics()).searches.map((m) => [m.type, m.count]));
      expect(metrics).toEqual({ fts: expect.any(Number), semantic: 2, hybrid: 3 }); // a search that failed (no vectors yet) is not counted
      expect(metrics.fts).toBeGreaterThan(5);
      // a floor on the cosine; filters inside both hybrid legs; the cross-encoder over the fused list
      const every = await engine.memory.search({ query: 'will it rain later today?', mode: 'vector', limit: 50 });
      const floor = await engine.memory.search({ query: 'will it rain later today?', mode: 'vector', limit: 50, minSimilarity: 0.3 });
      expect(floor.hits[0]!.entry.id).toBe(id);
      expect(floor.hits.length).toBeLessThan(every.hits.length);
      expect(floor.hits.map((x) => x.entry.id)).toEqual(every.hits.filter((x) => x.vector!.cosine >= 0.3).map((x) => x.entry.id));
      expect((await engine.memory.search({ query: 'umbrella rain', mode: 'hybrid', threadId: 'weather' })).hits.map((x) => x.entry.id)).toEqual([id]);
      expect((await engine.memory.search({ query: 'umbrella rain', mode: 'hybrid', threadId: 'weather', metadata: { status: 'active' } })).hits).toEqual([]);
      const reranked = await engine.memory.search({ query: 'umbrella rain', mode: 'rerank', limit: 3 });
      expect(reranked.hits[0]!.entry.id).toBe(id);
      for (const x of reranked.hits) expect(x.rerank).toEqual({ score: expect.any(Number) });
    });

    it("deleting cascades to tags, images, keyword rows, vectors and the entries' documents", async () => {
      const before = { vectors: (await engine.memory.statistics()).semantic.vectors, fts: await ftsRows(), tags: (await rows.memory.counts()).uniqueTags };
      const shots = (await engine.memory.list({ threadId: 'shots' })).entries;
      expect(shots.length).toBe(1);
      const gone = await rows.memory.byIds([shots[0]!.id, ...(await engine.memory.list({ threadId: 'weather' })).entries.map((e) => e.id)]);
      expect(gone.length).toBe(2);
      const r = await engine.memory.delete({ threadIds: ['shots', 'weather'] });
      expect(r).toEqual({ deleted: 2, criteria: ['thread_ids'] });
      expect((await engine.memory.get([shots[0]!.id])).length).toBe(0);
      const after = await rows.memory.counts();
      expect(after.images).toBe(0);
      expect(after.uniqueTags).toBe(before.tags - 1); // "screenshot" was the shot's alone
      expect((await engine.memory.list({ tags: ['screenshot'] })).total).toBe(0);
      expect(after.ftsRows).toBe(before.fts - 2);
      expect((await engine.memory.statistics()).semantic.vectors).toBe(before.vectors - 2);
      // the entries' documents and chunks went with them, and every entry left has its document
      expect((await rows.documents.forHits(gone.map((e) => e.document_id))).size).toBe(0);
      for (const e of gone) expect(await rows.chunks.forDocument(e.document_id)).toEqual([]);
      const memory = (await rows.collections.get('~memory', ['memory']))!;
      expect((await rows.stats.counts()).get(memory.id)?.documents).toBe(after.entries);
    });

    it('deleting by criteria: source needs a companion, all criteria must hold', async () => {
      expect((await troveErrorAsync(() => engine.memory.delete({ source: 'user' }))).message).toMatch(/source must be combined/);
      expect((await troveErrorAsync(() => engine.memory.delete({}))).message).toMatch(/at least one criterion/);
      const users = (await engine.memory.list({ threadId: 'batch', source: 'user' })).total;
      expect((await engine.memory.delete({ threadIds: ['batch'], source: 'user' })).deleted).toBe(users);
      expect((await engine.memory.delete({ olderThanDays: 365 })).deleted).toBe(0);
      expect((await engine.memory.list({ threadId: 'batch' })).total).toBeGreaterThan(0);
    });
  });

  describe('threads, neighbours, export and import', () => {
    it('context: the entries before and after one in its thread', async () => {
      const ids = (await engine.memory.storeBatch(['one', 'two', 'three', 'four', 'five'].map((text) => ({ threadId: 'story', source: 'user' as const, text: `Part ${text}.` })))).results.map((r) => r.id!);
      const c = await engine.memory.context(ids[2]!, { before: 1, after: 5 });
      expect(c.entry.text).toBe('Part three.');
      expect(c.before.map((e) => e.text)).toEqual(['Part two.']);
      expect(c.after.map((e) => e.text)).toEqual(['Part four.', 'Part five.']);
      expect((await engine.memory.threads()).find((t) => t.threadId === 'story')).toMatchObject({ entries: 5, sourceTypes: 1, multimodal: 0, lastId: ids[4] });
    });

    it('export and import move memory to another profile; importing twice skips everything; a bad line imports nothing', async () => {
      await engine.memory.store({ threadId: 'story', source: 'agent', text: 'With a picture.', images: [{ data: PNG.toString('base64') }], tags: ['pic'], metadata: { k: 'v' } });
      const lines = await exported(engine);
      expect(lines.length).toBe((await engine.memory.statistics()).entries);
      const file = path.join(tempDir('trove-export-'), 'memory.jsonl');
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
      const other = await b.open();
      try {
        const parsed = fs.readFileSync(file, 'utf8').split('\n').map((l) => JSON.parse(l) as unknown);
        expect(await other.memory.import(parsed)).toEqual({ imported: lines.length, skipped: 0 });
        expect(await other.memory.import(parsed)).toEqual({ imported: 0, skipped: lines.length });
        const strip = (l: (typeof lines)[number]) => ({ ...l, id: 0 });
        expect((await exported(other)).map(strip)).toEqual(lines.map(strip));
        const bad = await troveErrorAsync(() => other.memory.import([{ thread_id: 't', source: 'agent', text: 'ok' }, { thread_id: 't', source: 'agent' }, 'nope']));
        expect(bad.message).toMatch(/nothing was imported: 2 lines cannot be read\nline 2\.text is required.*\nline 3: not a JSON object/s);
        expect((await other.memory.statistics()).entries).toBe(lines.length);
      } finally {
        await other.close();
      }
    });
  });

  describe('a search that embeds first', () => {
    it('finds an entry stored a moment ago by meaning, with no embed run and no background stage', async () => {
      const fresh = await b.open({ embeddings: { modelsDir, defaultModel: 'all-MiniLM-L6-v2', workers: 1 } });
      const { id } = await fresh.memory.store({ threadId: 'now', source: 'agent', text: 'Pack an umbrella: showers are expected all afternoon.' });
      await fresh.memory.store({ threadId: 'now', source: 'agent', text: 'The quarterly report is due on Friday.' });
      expect((await fresh.memory.statistics()).semantic).toMatchObject({ pendingChunks: 2, vectors: 0 });
      const v = await fresh.memory.search({ query: 'will it rain later today?', mode: 'vector', limit: 1 });
      expect(v.hits.map((h) => h.entry.id)).toEqual([id]);
      expect((await fresh.memory.statistics()).semantic).toMatchObject({ pendingChunks: 0, vectors: 2 });
    });
  });
});
