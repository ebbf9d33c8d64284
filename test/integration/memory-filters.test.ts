// Memory filters on a real engine, on SQLite and on PostgreSQL (each backend renders the filters
// as its own SQL): every metadata operator (typed, case-insensitive by default, folded beyond
// ASCII, nested paths, integer-looking segments), simple equality, tags (any), source, thread,
// content type, every date form, and the same filters pushed into keyword search, so a page holds
// only matches and counts them.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, MemoryFilters, MemorySearchRequest, MemorySearchResponse, MetadataFilter } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';

/** Entries with known metadata, stored with fixed creation times through import. */
const ENTRIES = [
  { key: 'a', thread_id: 'alpha', source: 'agent', text: 'Deploy the retry service with exponential backoff.', created_at: '2025-11-28T23:30:00Z',
    metadata: { status: 'Active', priority: 5, ratio: 0.5, done: false, owner: null, team: { name: 'Core', size: 4 }, langs: ['ts', 'Go'], ids: [1, 2], flag: true, due: '2025-12-01' }, tags: ['ops', 'retry'] },
  { key: 'b', thread_id: 'alpha', source: 'user', text: 'Is the backoff capped? Jitter matters too.', created_at: '2025-11-29T10:00:00Z',
    metadata: { status: 'pending', priority: 2, done: true, team: { name: 'platform' }, langs: ['py'], ids: [3] }, tags: ['question'] },
  { key: 'c', thread_id: 'beta', source: 'agent', text: 'Backoff notes for the crawler: cap at thirty seconds.', created_at: '2025-11-29T23:59:59Z',
    metadata: { status: 'done', priority: 9, team: { name: 'Crawl-Team' }, langs: 'ts', note: 'Capped', city: 'ÉCOLE Straße', ids: { '0': 1, '1': 'two', '-1': 3 } }, tags: ['OPS'] },
  { key: 'd', thread_id: 'beta', source: 'user', text: 'Unrelated: lunch order for Friday.', created_at: '2025-11-30T00:00:00Z', metadata: { priority: '5' }, tags: [],
    images: [{ data: Buffer.from('tiny image bytes').toString('base64'), mime_type: 'image/png' }] },
];

describeBackends('memory filters', (b) => {
  let engine: Engine;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    engine = await b.open();
    expect(await engine.memory.import(ENTRIES.map(({ key: _k, ...e }) => e))).toEqual({ imported: 4, skipped: 0 });
    const all = (await engine.memory.list({ limit: 100 })).entries;
    for (const e of ENTRIES) ids[e.key] = all.find((x) => x.text === e.text)!.id;
  });

  /** Keys of the entries a listing with these filters returns, in the listing's order (newest first). */
  async function listed(f: MemoryFilters): Promise<string> {
    const page = await engine.memory.list({ ...f, limit: 100 });
    expect(page.total).toBe(page.entries.length);
    return page.entries.map((e) => ENTRIES.find((x) => x.text === e.text)!.key).join('');
  }

  const op = (key: string, operator: MetadataFilter['operator'], value?: unknown, extra: Partial<MetadataFilter> = {}) => listed({ metadataFilters: [{ key, operator, value, ...extra }] });

  describe('metadata operators', () => {
    it('eq: typed, strings case-insensitive unless case_sensitive, nested paths with dots', async () => {
      expect(await op('status', 'eq', 'active')).toBe('a');
      expect(await op('status', 'eq', 'active', { case_sensitive: true })).toBe('');
      expect(await op('status', 'eq', 'Active', { case_sensitive: true })).toBe('a');
      expect(await op('priority', 'eq', 5)).toBe('a'); // not d's string "5"
      expect(await op('priority', 'eq', '5')).toBe('d');
      expect(await op('done', 'eq', false)).toBe('a');
      expect(await op('flag', 'eq', true)).toBe('a');
      expect(await op('owner', 'eq', null)).toBe('a');
      expect(await op('team.name', 'eq', 'core')).toBe('a');
      expect(await op('team.size', 'eq', 4)).toBe('a');
    });

    it('ne holds for entries without the key too', async () => {
      expect(await op('status', 'ne', 'done')).toBe('dba');
      expect(await op('team.name', 'ne', 'CORE')).toBe('dcb');
    });

    it('gt, gte, lt, lte compare numbers with numbers and strings with strings', async () => {
      expect(await op('priority', 'gt', 5)).toBe('c');
      expect(await op('priority', 'gte', 5)).toBe('ca');
      expect(await op('priority', 'lt', 5)).toBe('b');
      expect(await op('priority', 'lte', 2)).toBe('b');
      expect(await op('ratio', 'lt', 1)).toBe('a');
      expect(await op('due', 'gt', '2025-11-30')).toBe('a');
      expect(await op('due', 'lte', '2025-11-30')).toBe('');
    });

    it('compares strings case-insensitively unless case_sensitive (then by code point), and never a number with a string', async () => {
      const by = async (key: string, value: unknown, extra: Partial<MetadataFilter> = {}) =>
        Object.fromEntries(await Promise.all((['gt', 'gte', 'lt', 'lte'] as const).map(async (o) => [o, await op(key, o, value, extra)])));
      expect(await by('status', 'Done')).toEqual({ gt: 'b', gte: 'cb', lt: 'a', lte: 'ca' });
      expect(await by('status', 'Done', { case_sensitive: true })).toEqual({ gt: 'cb', gte: 'cb', lt: 'a', lte: 'a' });
      expect(await by('priority', 5)).toEqual({ gt: 'c', gte: 'ca', lt: 'b', lte: 'ba' }); // d's "5" is a string
      expect(await by('ratio', 0.5)).toEqual({ gt: '', gte: 'a', lt: '', lte: 'a' });
      expect(await by('due', '2025-11-30')).toEqual({ gt: 'a', gte: 'a', lt: '', lte: '' });
    });

    it('folds case beyond ASCII as JavaScript does; a segment that reads as an integer names an object key, never an array element', async () => {
      expect(await op('city', 'eq', 'école strasse')).toBe(''); // ß is not "ss"
      expect(await op('city', 'eq', 'école straße')).toBe('c');
      expect(await op('city', 'starts_with', 'ÉCO', { case_sensitive: true })).toBe('c');
      expect(await op('city', 'starts_with', 'éco', { case_sensitive: true })).toBe('');
      expect(await op('ids.0', 'eq', 1)).toBe('c'); // a's ids is [1, 2]: not an element
      expect(await op('ids.1', 'eq', 'TWO')).toBe('c');
      expect(await op('ids.-1', 'gte', 3)).toBe('c');
      expect(await op('ids.0', 'exists')).toBe('c');
      expect(await op('ids.0', 'ne', 1)).toBe('dba');
      expect(await op('ids.1', 'is_not_null')).toBe('c');
      expect(await listed({ metadata: { 'ids.0': 1 } })).toBe('c');
    });

    it('in and not_in take lists; not_in holds when the key is missing', async () => {
      expect(await op('status', 'in', ['ACTIVE', 'done'])).toBe('ca');
      expect(await op('priority', 'in', [2, 9])).toBe('cb');
      expect(await op('status', 'not_in', ['active', 'done'])).toBe('db');
      expect(await op('done', 'in', [true])).toBe('b');
    });

    it('exists, not_exists, is_null, is_not_null', async () => {
      expect(await op('owner', 'exists')).toBe('a'); // present even though null
      expect(await op('team', 'exists')).toBe('cba');
      expect(await op('team', 'not_exists')).toBe('d');
      expect(await op('owner', 'is_null')).toBe('a');
      expect(await op('status', 'is_not_null')).toBe('cba');
      expect(await op('owner', 'is_not_null')).toBe('');
      expect(await op('owner', 'not_exists')).toBe('dcb');
      expect(await op('team.name', 'exists')).toBe('cba');
      expect(await op('team.name', 'not_exists')).toBe('d');
      expect(await op('team.name', 'is_null')).toBe('');
      expect(await op('team', 'is_not_null')).toBe('cba');
    });

    it('contains, starts_with, ends_with on strings, with case_sensitive', async () => {
      expect(await op('team.name', 'contains', 'TEAM')).toBe('c');
      expect(await op('team.name', 'contains', 'TEAM', { case_sensitive: true })).toBe('');
      expect(await op('team.name', 'starts_with', 'plat')).toBe('b');
      expect(await op('team.name', 'ends_with', 'team')).toBe('c');
      expect(await op('note', 'ends_with', 'ped', { case_sensitive: true })).toBe('c');
      expect(await op('status', 'starts_with', 'a', { case_sensitive: true })).toBe('');
    });

    it('array_contains looks inside arrays only', async () => {
      expect(await op('langs', 'array_contains', 'go')).toBe('a');
      expect(await op('langs', 'array_contains', 'ts')).toBe('a'); // c's langs is a string, not an array
      expect(await op('ids', 'array_contains', 3)).toBe('b');
      expect(await op('langs', 'array_contains', 'go', { case_sensitive: true })).toBe('');
      expect(await op('langs', 'array_contains', 'Go', { case_sensitive: true })).toBe('a');
    });

    it('several filters and simple equality all hold together', async () => {
      expect(await listed({ metadata: { status: 'done' } })).toBe('c');
      expect(await listed({ metadata: { status: 'Active' } })).toBe('a'); // simple equality is exact
      expect(await listed({ metadata: { status: 'active' } })).toBe('');
      expect(await listed({ metadata: { 'team.name': 'platform' }, metadataFilters: [{ key: 'priority', operator: 'lt', value: 3 }] })).toBe('b');
    });

    it('refuses unknown operators, values of the wrong type and bad keys, naming them', async () => {
      const bad = async (f: MetadataFilter, pattern: RegExp) => expect((await troveErrorAsync(() => engine.memory.list({ metadataFilters: [f] }))).message).toMatch(pattern);
      await bad({ key: 'status', operator: 'between' as 'eq', value: 1 }, /metadata_filters\[0\]: unknown operator "between"/);
      await bad({ key: 'priority', operator: 'gt', value: [1] }, /metadata_filters\[0\]: operator gt compares a number or a string, not a list/);
      await bad({ key: 'status', operator: 'in', value: 'active' }, /operator in needs a non-empty list/);
      await bad({ key: 'status', operator: 'in', value: [] }, /operator in needs a non-empty list/);
      await bad({ key: 'status', operator: 'contains', value: 5 }, /operator contains needs a non-empty string, not a number/);
      await bad({ key: 'langs', operator: 'array_contains', value: ['go'] }, /operator array_contains needs one string/);
      await bad({ key: 'status', operator: 'eq' }, /operator eq needs a value/);
      await bad({ key: 'status', operator: 'eq', value: { a: 1 } }, /operator eq compares one string, number, boolean or null, not a object/);
      await bad({ key: "x') OR 1=1 --", operator: 'exists' }, /is not a metadata key/);
      await bad({ key: 'a..b', operator: 'exists' }, /is not a metadata key/);
      expect((await troveErrorAsync(() => engine.memory.list({ metadata: { langs: ['ts'] as unknown as string } }))).message).toMatch(/metadata\.langs: simple filters compare single values/);
    });
  });

  describe('entry filters', () => {
    it('thread, source, content type and tags (any of them, any case)', async () => {
      expect(await listed({ threadId: 'alpha' })).toBe('ba');
      expect(await listed({ source: 'user' })).toBe('db');
      expect(await listed({ contentType: 'multimodal' })).toBe('d');
      expect(await listed({ tags: ['OPS'] })).toBe('ca');
      expect(await listed({ tags: ['question', 'retry'] })).toBe('ba');
      expect(await listed({ threadId: 'beta', tags: ['ops'], source: 'agent' })).toBe('c');
      const page = await engine.memory.list({ limit: 2, offset: 1 });
      expect(page).toMatchObject({ total: 4, hasMore: true });
      expect(page.entries.map((e) => ENTRIES.find((x) => x.text === e.text)!.key).join('')).toBe('cb');
    });

    it('every date form: a date alone (an end date is the whole day), UTC times, Z, offsets, fractions', async () => {
      expect(await listed({ startDate: '2025-11-29', endDate: '2025-11-29' })).toBe('cb');
      expect(await listed({ endDate: '2025-11-28' })).toBe('a');
      expect(await listed({ startDate: '2025-11-29T10:00:00' })).toBe('dcb'); // naive: UTC
      expect(await listed({ startDate: '2025-11-29T10:00:00.001Z' })).toBe('dc');
      expect(await listed({ startDate: '2025-11-29T12:00:00+02:00', endDate: '2025-11-29T10:00:00Z' })).toBe('b');
      expect(await listed({ endDate: '2025-11-29T01:30:00+02:00' })).toBe('a'); // 23:30 UTC the day before
      expect(await listed({ endDate: '2025-11-29T01:29:59+02:00' })).toBe('');
      expect(await listed({ startDate: '2025-11-29 23:59:58.999999', endDate: '2025-11-30T00:00' })).toBe('dc');
      expect(await listed({ startDate: '2025-11-29T23:59:59.000001Z' })).toBe('d');
      expect(await listed({ startDate: '2025-11-30T00:00:00-0000' })).toBe('d');
    });

    it('refuses dates that are not ISO 8601 or do not exist, and reversed ranges', async () => {
      expect((await troveErrorAsync(() => engine.memory.list({ startDate: 'yesterday' }))).message).toMatch(/start_date is not an ISO 8601 date/);
      expect((await troveErrorAsync(() => engine.memory.list({ endDate: '2025-02-30' }))).message).toMatch(/end_date is not a real date/);
      expect((await troveErrorAsync(() => engine.memory.list({ startDate: '2025-11-29T25:00:00Z' }))).message).toMatch(/start_date is not a real date/);
      expect((await troveErrorAsync(() => engine.memory.list({ startDate: '2025-12-01', endDate: '2025-11-01' }))).message).toMatch(/after end_date/);
      expect((await troveErrorAsync(() => engine.memory.list({ source: 'robot' as 'user' }))).message).toMatch(/source must be "user" or "agent"/);
    });
  });

  function keyword(req: MemorySearchRequest): Promise<MemorySearchResponse> {
    return engine.memory.search(req);
  }

  describe('filters pushed into search', () => {
    it('keyword search returns and counts only matching entries, page by page', async () => {
      expect((await keyword({ query: 'backoff', limit: 10 })).hits.map((h) => h.entry.id).sort()).toEqual([ids.a, ids.b, ids.c].sort());
      const first = await keyword({ query: 'backoff', source: 'agent', limit: 1 });
      expect(first.hits).toHaveLength(1);
      expect(first.total).toBe(2);
      expect(first.hasMore).toBe(true);
      const second = await keyword({ query: 'backoff', source: 'agent', limit: 1, offset: 1 });
      expect([...first.hits, ...second.hits].map((h) => h.entry.id).sort()).toEqual([ids.a, ids.c].sort());
      expect(second.hasMore).toBe(false);
      expect((await keyword({ query: 'backoff', metadataFilters: [{ key: 'team.name', operator: 'contains', value: 'crawl' }] })).hits.map((h) => h.entry.id)).toEqual([ids.c]);
      expect((await keyword({ query: 'backoff', threadId: 'beta', tags: ['question'] })).hits).toEqual([]);
    });
  });

  describe('snippets', () => {
    it('a search cuts snippets with highlights by default, and none when asked not to (same hits, same scores)', async () => {
      const withSnippets = await keyword({ query: 'backoff cap', limit: 10 });
      expect(withSnippets.hits.length).toBeGreaterThan(0);
      for (const h of withSnippets.hits) {
        expect(h.snippet.length).toBeGreaterThan(0);
        expect(h.highlights.length).toBeGreaterThan(0);
      }
      const bare = await keyword({ query: 'backoff cap', limit: 10, snippets: false, highlight: true });
      expect(bare.hits.map((h) => [h.entry.id, h.score])).toEqual(withSnippets.hits.map((h) => [h.entry.id, h.score]));
      for (const h of bare.hits) {
        expect(h.snippet).toBe('');
        expect(h.highlights).toEqual([]);
        expect(h.highlighted).toMatch(/<mark>backoff<\/mark>/i); // highlight is its own option
      }
    });
  });
});
