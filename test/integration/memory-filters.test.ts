// Memory filters on a real engine: every metadata operator (typed, case-insensitive by default,
// nested paths), simple equality, tags (any), source, thread, content type, every date form, and
// the same filters pushed into keyword search, so a page holds only matches and counts them.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, MemoryFilters, MemorySearchRequest, MemorySearchResponse, MetadataFilter } from '../../src-main/engine/index.js';
import { openEngine, troveError } from '../helpers/engine.js';

let engine: Engine;
const ids: Record<string, number> = {};

/** Entries with known metadata, stored with fixed creation times through import. */
const ENTRIES = [
  { key: 'a', thread_id: 'alpha', source: 'agent', text: 'Deploy the retry service with exponential backoff.', created_at: '2025-11-28T23:30:00Z',
    metadata: { status: 'Active', priority: 5, ratio: 0.5, done: false, owner: null, team: { name: 'Core', size: 4 }, langs: ['ts', 'Go'], ids: [1, 2], flag: true, due: '2025-12-01' }, tags: ['ops', 'retry'] },
  { key: 'b', thread_id: 'alpha', source: 'user', text: 'Is the backoff capped? Jitter matters too.', created_at: '2025-11-29T10:00:00Z',
    metadata: { status: 'pending', priority: 2, done: true, team: { name: 'platform' }, langs: ['py'], ids: [3] }, tags: ['question'] },
  { key: 'c', thread_id: 'beta', source: 'agent', text: 'Backoff notes for the crawler: cap at thirty seconds.', created_at: '2025-11-29T23:59:59Z',
    metadata: { status: 'done', priority: 9, team: { name: 'Crawl-Team' }, langs: 'ts', note: 'Capped' }, tags: ['OPS'] },
  { key: 'd', thread_id: 'beta', source: 'user', text: 'Unrelated: lunch order for Friday.', created_at: '2025-11-30T00:00:00Z', metadata: { priority: '5' }, tags: [],
    images: [{ data: Buffer.from('tiny image bytes').toString('base64'), mime_type: 'image/png' }] },
];

beforeAll(() => {
  engine = openEngine();
  expect(engine.memory.import(ENTRIES.map(({ key: _k, ...e }) => e))).toEqual({ imported: 4, skipped: 0 });
  const all = engine.memory.list({ limit: 100 }).entries;
  for (const e of ENTRIES) ids[e.key] = all.find((x) => x.text === e.text)!.id;
});

/** Keys of the entries a listing with these filters returns, in the listing's order (newest first). */
function listed(f: MemoryFilters): string {
  const page = engine.memory.list({ ...f, limit: 100 });
  expect(page.total).toBe(page.entries.length);
  return page.entries.map((e) => ENTRIES.find((x) => x.text === e.text)!.key).join('');
}

const op = (key: string, operator: MetadataFilter['operator'], value?: unknown, extra: Partial<MetadataFilter> = {}) => listed({ metadataFilters: [{ key, operator, value, ...extra }] });

describe('metadata operators', () => {
  it('eq: typed, strings case-insensitive unless case_sensitive, nested paths with dots', () => {
    expect(op('status', 'eq', 'active')).toBe('a');
    expect(op('status', 'eq', 'active', { case_sensitive: true })).toBe('');
    expect(op('status', 'eq', 'Active', { case_sensitive: true })).toBe('a');
    expect(op('priority', 'eq', 5)).toBe('a'); // not d's string "5"
    expect(op('priority', 'eq', '5')).toBe('d');
    expect(op('done', 'eq', false)).toBe('a');
    expect(op('flag', 'eq', true)).toBe('a');
    expect(op('owner', 'eq', null)).toBe('a');
    expect(op('team.name', 'eq', 'core')).toBe('a');
    expect(op('team.size', 'eq', 4)).toBe('a');
  });

  it('ne holds for entries without the key too', () => {
    expect(op('status', 'ne', 'done')).toBe('dba');
    expect(op('team.name', 'ne', 'CORE')).toBe('dcb');
  });

  it('gt, gte, lt, lte compare numbers with numbers and strings with strings', () => {
    expect(op('priority', 'gt', 5)).toBe('c');
    expect(op('priority', 'gte', 5)).toBe('ca');
    expect(op('priority', 'lt', 5)).toBe('b');
    expect(op('priority', 'lte', 2)).toBe('b');
    expect(op('ratio', 'lt', 1)).toBe('a');
    expect(op('due', 'gt', '2025-11-30')).toBe('a');
    expect(op('due', 'lte', '2025-11-30')).toBe('');
  });

  it('in and not_in take lists; not_in holds when the key is missing', () => {
    expect(op('status', 'in', ['ACTIVE', 'done'])).toBe('ca');
    expect(op('priority', 'in', [2, 9])).toBe('cb');
    expect(op('status', 'not_in', ['active', 'done'])).toBe('db');
  });

  it('exists, not_exists, is_null, is_not_null', () => {
    expect(op('owner', 'exists')).toBe('a'); // present even though null
    expect(op('team', 'exists')).toBe('cba');
    expect(op('team', 'not_exists')).toBe('d');
    expect(op('owner', 'is_null')).toBe('a');
    expect(op('status', 'is_not_null')).toBe('cba');
    expect(op('owner', 'is_not_null')).toBe('');
  });

  it('contains, starts_with, ends_with on strings, with case_sensitive', () => {
    expect(op('team.name', 'contains', 'TEAM')).toBe('c');
    expect(op('team.name', 'contains', 'TEAM', { case_sensitive: true })).toBe('');
    expect(op('team.name', 'starts_with', 'plat')).toBe('b');
    expect(op('team.name', 'ends_with', 'team')).toBe('c');
    expect(op('note', 'ends_with', 'ped', { case_sensitive: true })).toBe('c');
    expect(op('status', 'starts_with', 'a', { case_sensitive: true })).toBe('');
  });

  it('array_contains looks inside arrays only', () => {
    expect(op('langs', 'array_contains', 'go')).toBe('a');
    expect(op('langs', 'array_contains', 'ts')).toBe('a'); // c's langs is a string, not an array
    expect(op('ids', 'array_contains', 3)).toBe('b');
    expect(op('langs', 'array_contains', 'go', { case_sensitive: true })).toBe('');
  });

  it('several filters and simple equality all hold together', () => {
    expect(listed({ metadata: { status: 'done' } })).toBe('c');
    expect(listed({ metadata: { status: 'Active' } })).toBe('a'); // simple equality is exact
    expect(listed({ metadata: { status: 'active' } })).toBe('');
    expect(listed({ metadata: { 'team.name': 'platform' }, metadataFilters: [{ key: 'priority', operator: 'lt', value: 3 }] })).toBe('b');
  });

  it('refuses unknown operators, values of the wrong type and bad keys, naming them', () => {
    const bad = (f: MetadataFilter, pattern: RegExp) => expect(troveError(() => engine.memory.list({ metadataFilters: [f] })).message).toMatch(pattern);
    bad({ key: 'status', operator: 'between' as 'eq', value: 1 }, /metadata_filters\[0\]: unknown operator "between"/);
    bad({ key: 'priority', operator: 'gt', value: [1] }, /metadata_filters\[0\]: operator gt compares a number or a string, not a list/);
    bad({ key: 'status', operator: 'in', value: 'active' }, /operator in needs a non-empty list/);
    bad({ key: 'status', operator: 'in', value: [] }, /operator in needs a non-empty list/);
    bad({ key: 'status', operator: 'contains', value: 5 }, /operator contains needs a non-empty string, not a number/);
    bad({ key: 'langs', operator: 'array_contains', value: ['go'] }, /operator array_contains needs one string/);
    bad({ key: 'status', operator: 'eq' }, /operator eq needs a value/);
    bad({ key: 'status', operator: 'eq', value: { a: 1 } }, /operator eq compares one string, number, boolean or null, not a object/);
    bad({ key: "x') OR 1=1 --", operator: 'exists' }, /is not a metadata key/);
    bad({ key: 'a..b', operator: 'exists' }, /is not a metadata key/);
    expect(troveError(() => engine.memory.list({ metadata: { langs: ['ts'] as unknown as string } })).message).toMatch(/metadata\.langs: simple filters compare single values/);
  });
});

describe('entry filters', () => {
  it('thread, source, content type and tags (any of them, any case)', () => {
    expect(listed({ threadId: 'alpha' })).toBe('ba');
    expect(listed({ source: 'user' })).toBe('db');
    expect(listed({ contentType: 'multimodal' })).toBe('d');
    expect(listed({ tags: ['OPS'] })).toBe('ca');
    expect(listed({ tags: ['question', 'retry'] })).toBe('ba');
    expect(listed({ threadId: 'beta', tags: ['ops'], source: 'agent' })).toBe('c');
  });

  it('every date form: a date alone (an end date is the whole day), UTC times, Z, offsets, fractions', () => {
    expect(listed({ startDate: '2025-11-29', endDate: '2025-11-29' })).toBe('cb');
    expect(listed({ endDate: '2025-11-28' })).toBe('a');
    expect(listed({ startDate: '2025-11-29T10:00:00' })).toBe('dcb'); // naive: UTC
    expect(listed({ startDate: '2025-11-29T10:00:00.001Z' })).toBe('dc');
    expect(listed({ startDate: '2025-11-29T12:00:00+02:00', endDate: '2025-11-29T10:00:00Z' })).toBe('b');
    expect(listed({ endDate: '2025-11-29T01:30:00+02:00' })).toBe('a'); // 23:30 UTC the day before
    expect(listed({ endDate: '2025-11-29T01:29:59+02:00' })).toBe('');
    expect(listed({ startDate: '2025-11-29 23:59:58.999999', endDate: '2025-11-30T00:00' })).toBe('dc');
    expect(listed({ startDate: '2025-11-29T23:59:59.000001Z' })).toBe('d');
    expect(listed({ startDate: '2025-11-30T00:00:00-0000' })).toBe('d');
  });

  it('refuses dates that are not ISO 8601 or do not exist, and reversed ranges', () => {
    expect(troveError(() => engine.memory.list({ startDate: 'yesterday' })).message).toMatch(/start_date is not an ISO 8601 date/);
    expect(troveError(() => engine.memory.list({ endDate: '2025-02-30' })).message).toMatch(/end_date is not a real date/);
    expect(troveError(() => engine.memory.list({ startDate: '2025-11-29T25:00:00Z' })).message).toMatch(/start_date is not a real date/);
    expect(troveError(() => engine.memory.list({ startDate: '2025-12-01', endDate: '2025-11-01' })).message).toMatch(/after end_date/);
    expect(troveError(() => engine.memory.list({ source: 'robot' as 'user' })).message).toMatch(/source must be "user" or "agent"/);
  });
});

function keyword(req: MemorySearchRequest): MemorySearchResponse {
  const r = engine.memory.search(req);
  if (r instanceof Promise) throw new Error('keyword search answers synchronously');
  return r;
}

describe('filters pushed into search', () => {
  it('keyword search returns and counts only matching entries, page by page', () => {
    expect(keyword({ query: 'backoff', limit: 10 }).hits.map((h) => h.entry.id).sort()).toEqual([ids.a, ids.b, ids.c].sort());
    const first = keyword({ query: 'backoff', source: 'agent', limit: 1 });
    expect(first.hits).toHaveLength(1);
    expect(first.total).toBe(2);
    expect(first.hasMore).toBe(true);
    const second = keyword({ query: 'backoff', source: 'agent', limit: 1, offset: 1 });
    expect([...first.hits, ...second.hits].map((h) => h.entry.id).sort()).toEqual([ids.a, ids.c].sort());
    expect(second.hasMore).toBe(false);
    expect(keyword({ query: 'backoff', metadataFilters: [{ key: 'team.name', operator: 'contains', value: 'crawl' }] }).hits.map((h) => h.entry.id)).toEqual([ids.c]);
    expect(keyword({ query: 'backoff', threadId: 'beta', tags: ['question'] }).hits).toEqual([]);
  });
});

describe('snippets', () => {
  it('a search cuts snippets with highlights by default, and none when asked not to (same hits, same scores)', () => {
    const withSnippets = keyword({ query: 'backoff cap', limit: 10 });
    expect(withSnippets.hits.length).toBeGreaterThan(0);
    for (const h of withSnippets.hits) {
      expect(h.snippet.length).toBeGreaterThan(0);
      expect(h.highlights.length).toBeGreaterThan(0);
    }
    const bare = keyword({ query: 'backoff cap', limit: 10, snippets: false, highlight: true });
    expect(bare.hits.map((h) => [h.entry.id, h.score])).toEqual(withSnippets.hits.map((h) => [h.entry.id, h.score]));
    for (const h of bare.hits) {
      expect(h.snippet).toBe('');
      expect(h.highlights).toEqual([]);
      expect(h.highlighted).toMatch(/<mark>backoff<\/mark>/i); // highlight is its own option
    }
  });
});
