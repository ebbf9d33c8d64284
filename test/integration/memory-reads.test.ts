// Agent memory's keyword search in every syntax (ties in entry order), its reads (get, threads,
// context, summary, statistics) and the edges of its batch writes, on SQLite and on PostgreSQL:
// each backend has its own keyword index and its own SQL for threads and counts, so each answer is
// spelled out here and a drift between them fails.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, MemorySearchRequest } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';

const IMAGE = Buffer.from('tiny image bytes').toString('base64');

/** Entries with known times (through import), keyed a..e in the order they are written. */
const ENTRIES = {
  a: { thread_id: 'alpha', source: 'agent', text: 'Deploy the retry service with exponential backoff.', created_at: '2025-11-28T23:30:00Z', metadata: { status: 'Active', team: { name: 'Core' } }, tags: ['ops', 'retry'] },
  b: { thread_id: 'alpha', source: 'user', text: 'Is the backoff capped? Jitter matters too.', created_at: '2025-11-29T10:00:00Z', metadata: { status: 'pending', team: { name: 'platform' } }, tags: ['question'] },
  c: { thread_id: 'beta', source: 'agent', text: 'Backoff notes for the crawler: cap at thirty seconds.', created_at: '2025-11-29T23:59:59Z', metadata: { status: 'done', team: { name: 'Crawl-Team' } }, tags: ['OPS'] },
  d: { thread_id: 'beta', source: 'user', text: 'Unrelated: lunch order for Friday.', created_at: '2025-11-30T00:00:00Z', metadata: {}, tags: [], images: [{ data: IMAGE, mime_type: 'image/png' }] },
  e: { thread_id: 'gamma', source: 'agent', text: '東京の天気は晴れです。東京タワーは赤い。', created_at: '2025-12-01T08:00:00Z', metadata: { title: 'Tokyo weather' }, tags: ['travel'] },
};
type Key = keyof typeof ENTRIES;

describeBackends('memory reads and keyword syntaxes', (b) => {
  let engine: Engine;
  const id = {} as Record<Key, number>;
  const keyOf = (entryId: number) => (Object.keys(id) as Key[]).find((k) => id[k] === entryId) ?? `#${entryId}`;

  beforeAll(async () => {
    engine = await b.open();
    expect(await engine.memory.import(Object.values(ENTRIES))).toEqual({ imported: 5, skipped: 0 });
    for (const e of (await engine.memory.list({ limit: 10 })).entries) id[(Object.keys(ENTRIES) as Key[]).find((k) => ENTRIES[k].text === e.text)!] = e.id;
  });

  /** The keys of a keyword search's hits, in order. */
  async function found(req: Omit<MemorySearchRequest, 'mode'>): Promise<string> {
    return (await engine.memory.search({ ...req, mode: 'keyword' })).hits.map((h) => keyOf(h.entry.id)).join('');
  }

  describe('keyword search', () => {
    it('in every syntax; a word in most entries ranks them all alike, in the order they were written', async () => {
      expect(await found({ query: 'backoff', limit: 10 })).toBe('abc');
      expect(await found({ query: 'back', syntax: 'prefix' })).toBe('abc');
      expect(await found({ query: 'exponential backoff', syntax: 'phrase' })).toBe('a');
      expect(await found({ query: 'backoff AND NOT jitter', syntax: 'boolean' })).toBe('ac');
      expect(await found({ query: 'backoff OR lunch', syntax: 'boolean' })).toBe('dabc');
      expect(await found({ query: '東京の天気' })).toBe('e');
      expect(await found({ query: 'tokyo' })).toBe('e'); // the title in metadata is indexed
    });

    it('ranks by the same BM25 and highlights the same words', async () => {
      const r = await engine.memory.search({ query: 'backoff cap', limit: 10, highlight: true });
      expect(r.hits.map((h) => [keyOf(h.entry.id), h.score, h.keyword?.bm25, h.highlighted])).toEqual([
        ['b', 1, 0.373, 'Is the <mark>backoff</mark> <mark>capped</mark>? Jitter matters too.'],
        ['c', 0, 0.3395, '<mark>Backoff</mark> notes for the crawler: <mark>cap</mark> at thirty seconds.'],
      ]);
    });

    it('pages and counts under filters; refuses an empty query and a page over 100', async () => {
      const first = await engine.memory.search({ query: 'backoff', source: 'agent', limit: 1 });
      expect([first.hits.map((h) => keyOf(h.entry.id)), first.total, first.hasMore]).toEqual([['a'], 2, true]);
      const second = await engine.memory.search({ query: 'backoff', source: 'agent', limit: 1, offset: 1 });
      expect([second.hits.map((h) => keyOf(h.entry.id)), second.total, second.hasMore]).toEqual([['c'], 2, false]);
      expect(await found({ query: 'backoff', threadId: 'alpha', startDate: '2025-11-29' })).toBe('b');
      expect(await found({ query: 'backoff', metadataFilters: [{ key: 'team.name', operator: 'contains', value: 'crawl' }] })).toBe('c');
      expect(await found({ query: 'backoff', threadId: 'beta', tags: ['question'] })).toBe('');
      expect(await troveErrorAsync(() => engine.memory.search({ query: '   ' }))).toMatchObject({ code: 'INVALID_INPUT', message: 'invalid memory search: query: query is empty' });
      expect((await troveErrorAsync(() => engine.memory.search({ query: 'backoff', limit: 101 }))).message).toMatch(/^invalid memory search: limit: /);
    });
  });

  describe('reads', () => {
    it('get: the entries there are, in the order asked, images with their bytes unless left out', async () => {
      const got = await engine.memory.get([id.a, id.d, 999]);
      expect(got.map((e) => keyOf(e.id))).toEqual(['a', 'd']);
      expect(got[0]).toMatchObject({ threadId: 'alpha', source: 'agent', contentType: 'text', metadata: ENTRIES.a.metadata, tags: ['ops', 'retry'], createdAt: '2025-11-28T23:30:00.000Z', images: [] });
      expect(got[1]).toMatchObject({ contentType: 'multimodal', images: [{ mime_type: 'image/png', bytes: 16, data: IMAGE }] });
      expect((await engine.memory.get([id.d], { includeImages: false }))[0]!.images).toEqual([{ mime_type: 'image/png', bytes: 16 }]);
    });

    it('threads, newest first, with their counts and times', async () => {
      expect(await engine.memory.threads()).toEqual([
        { threadId: 'gamma', entries: 1, sourceTypes: 1, multimodal: 0, firstEntry: '2025-12-01T08:00:00.000Z', lastEntry: '2025-12-01T08:00:00.000Z', lastId: id.e },
        { threadId: 'beta', entries: 2, sourceTypes: 2, multimodal: 1, firstEntry: '2025-11-29T23:59:59.000Z', lastEntry: '2025-11-30T00:00:00.000Z', lastId: id.d },
        { threadId: 'alpha', entries: 2, sourceTypes: 2, multimodal: 0, firstEntry: '2025-11-28T23:30:00.000Z', lastEntry: '2025-11-29T10:00:00.000Z', lastId: id.b },
      ]);
    });

    it('context: the neighbours in the thread; an unknown entry is NOT_FOUND', async () => {
      const c = await engine.memory.context(id.b, { before: 1, after: 3 });
      expect([keyOf(c.entry.id), c.before.map((e) => keyOf(e.id)), c.after.map((e) => keyOf(e.id))]).toEqual(['b', ['a'], []]);
      expect(await troveErrorAsync(() => engine.memory.context(999))).toMatchObject({ code: 'NOT_FOUND', message: 'context entry 999 not found' });
    });

    it('summary and statistics count entries, threads, sources, content types, images, tags and keyword rows', async () => {
      expect(await engine.memory.summary()).toEqual({ entries: 5, threads: 3, needsEmbedding: 5 });
      const s = await engine.memory.statistics();
      expect(s).toMatchObject({ entries: 5, threads: 3, bySource: { agent: 3, user: 2 }, byContentType: { text: 4, multimodal: 1 }, images: 1, uniqueTags: 4 });
      expect(s.keyword).toMatchObject({ indexedEntries: 5, chunks: 5 });
      expect(s.semantic).toMatchObject({ model: null, chunks: 5, vectors: 0, pendingChunks: 5, problem: expect.stringMatching(/^no vectors yet for memory/) });
      expect(s.searches.find((m) => m.type === 'fts')!.count).toBeGreaterThan(10);
    });
  });

  describe('batch edges', () => {
    it('an empty batch is refused; a delete whose criteria do not all hold deletes nothing', async () => {
      expect(await troveErrorAsync(() => engine.memory.storeBatch([]))).toMatchObject({ code: 'INVALID_INPUT', message: 'entries must be a non-empty list' });
      expect(await engine.memory.delete({ ids: [id.a], source: 'user' })).toEqual({ deleted: 0, criteria: ['context_ids', 'source'] });
      expect((await engine.memory.get([id.a])).length).toBe(1);
    });

    it('one entry twice in a batch: the second update starts from the first', async () => {
      const r = await engine.memory.updateBatch([{ id: id.c, metadataPatch: { a: 1 } }, { id: id.c, metadataPatch: { b: 2 }, tags: ['twice'] }]);
      expect(r.results.map((x) => [x.success, x.updatedFields])).toEqual([
        [true, ['metadata']],
        [true, ['metadata', 'tags']],
      ]);
      expect((await engine.memory.get([id.c]))[0]).toMatchObject({ metadata: { ...ENTRIES.c.metadata, a: 1, b: 2 }, tags: ['twice'] });
    });
  });
});
