// BM25 as FTS5's bm25() defines it (column weights 4/2/1), on both backends: real fixture files in
// English, Japanese, Chinese and mixed text, prepared by the indexer's own code and written through
// a claimed batch, give each term the document frequency fts5vocab gives it, the same matching chunks
// and the same scores, in the same order, for AND, OR and prefix steps (filters and limits pushed
// down), and match phrases and NOT as FTS5 does. The reference is FTS5 itself: an in-memory table of
// Trove's schema holding the same rows, ranked by the built-in bm25() (SQLite's own native
// trove_bm25() is held to it in test/integration/ranking.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import { parseQuery, termExpression } from '../../src-main/engine/search/query.js';
import { openDatabase, type Db } from '../../src-main/engine/store/database.js';
import type { DocumentWrite } from '../../src-main/engine/store/documents.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { IndexWrite, KeywordIndexRepository, PlannedKeywordTerm, Storage } from '../../src-main/engine/store/storage.js';
import { indexTerm } from '../../src-main/engine/text/terms.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

/** Generated pages: accents, common words, a word in titles and headings, code-like tokens. */
function generated(): Record<string, string> {
  const words = ['retry', 'backoff', 'jitter', 'timeout', 'socket', 'café', 'naïve', 'the', 'index', 'query_plan', 'v2.1', 'résumé'];
  let seed = 11;
  const pick = () => words[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % words.length]!;
  return Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [
      `gen/p${i}.md`,
      `# ${pick()} ${pick()}\n\n${Array.from({ length: 4 + (i % 30) }, pick).join(' ')}.\n\n## ${pick()} notes\n\n${Array.from({ length: 2 + (i % 9) }, pick).join(' ')}.\n`,
    ]),
  );
}

function fixtureFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dir of ['cjk', 'powershell']) {
    for (const f of fs.readdirSync(path.join(FIXTURES, dir))) out[`${dir}/${f}`] = fs.readFileSync(path.join(FIXTURES, dir, f), 'utf8');
  }
  return { ...out, ...generated() };
}

const QUERIES = [
  'retry backoff jitter',
  'process processes', // two words, one term: each counts, as in FTS5
  'cmdlet attaches debugger running processes local computer', // an AND step of seven terms
  'socket timeout the',
  'café résumé',
  'naive cafe', // accents folded on both sides
  'query_plan v2.1',
  'Get-Process parameter module',
  'Debug process attach debugger',
  '全文检索',
  '東京の天気',
  '炒菜 做饭',
  'search 検索 mixed',
  'retr* back*',
];

/** The files' chunks in FTS5 (the reference), keyed `path#ordinal` by rowid; and the writes for a backend. */
const reference: { db: Db; key: Map<number, string>; writes: IndexWrite[] } = { db: null!, key: new Map(), writes: [] };

beforeAll(() => {
  reference.db = openDatabase(':memory:', { nativeRank: { enabled: false } });
  const insert = reference.db.prepare('INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
  let rowid = 0;
  for (const [i, [p, text]] of Object.entries(fixtureFiles()).entries()) {
    const prepared = prepareDocument(Buffer.from(text), p, DEFAULT_CHUNKING);
    if (!prepared.ok) throw new Error(`${p}: ${prepared.reason}`);
    for (const c of prepared.chunks) {
      insert.run(++rowid, c.ftsTitle, c.ftsHeadings, c.ftsBody);
      reference.key.set(rowid, `${p}#${c.ordinal}`);
    }
    const document: Omit<DocumentWrite, 'collectionId'> = {
      path: p, docid: `d${i}abc`, title: prepared.title, kind: prepared.kind, size: text.length, mtimeMs: i, hash: null, status: 'indexed', error: null, tags: [], metadata: {},
    };
    reference.writes.push({ op: 'index', document: document as DocumentWrite, text: prepared.text, chunks: prepared.chunks });
  }
});

const opened: Storage[] = [];
afterAll(async () => {
  reference.db?.close();
  while (opened.length) await opened.pop()!.close();
  removeTempDirs();
});

/** FTS5's matches of an expression, best first (ties by rowid), as `path#ordinal` with bm25's rank. */
function fts5(expression: string): { key: string; rank: number }[] {
  const rows = reference.db
    .prepare('SELECT rowid AS id, bm25(chunks_fts, 4.0, 2.0, 1.0) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid')
    .all(expression) as { id: number; rank: number }[];
  return rows.map((r) => ({ key: reference.key.get(r.id)!, rank: r.rank }));
}

const backends: [string, () => Promise<Storage>][] = [
  ['sqlite', async () => SqliteStorage.open(`${tempDir('trove-ranking-')}/index.sqlite`)],
  ['postgres', async () => PostgresStorage.open(await freshDatabase('ranking', { migrated: true }))],
];

describe.each(backends)('keyword ranking: %s against FTS5', (_name, make) => {
  let s: Storage;
  let kw: KeywordIndexRepository;

  beforeAll(async () => {
    s = await make();
    opened.push(s);
    const c = await s.collections.insert({ name: 'ranking', root: '/ranking', include: ['**/*'], exclude: [], context: '' });
    const writes = reference.writes.map((w) => (w.op === 'index' ? { ...w, document: { ...w.document, collectionId: c.id } } : w));
    await s.jobs.recordEvents(writes.map((w) => ({ collectionId: c.id, kind: 'file' as const, path: (w as { document: DocumentWrite }).document.path, priority: 0, changedAt: 1, gone: false, runAt: 0 })));
    const claim = (await s.jobs.claim(Date.now(), 1000))!;
    expect(await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 1, writes }, retire: claim.jobs })).toEqual(writes.map(() => true));
    kw = s.keyword('chunks_fts');
  });

  /** Chunk ids as `path#ordinal`. */
  async function keys(chunkIds: readonly number[]): Promise<string[]> {
    const chunks = await s.chunks.byIds(chunkIds);
    const docs = await s.documents.forHits([...chunks.values()].map((c) => c.documentId));
    return chunkIds.map((id) => `${docs.get(chunks.get(id)!.documentId)!.path}#${chunks.get(id)!.ordinal}`);
  }

  /** The query's terms as the planner passes them (counted by the backend), and as FTS5 expressions. */
  async function termsOf(query: string): Promise<{ kw: PlannedKeywordTerm[]; fts5: string[] }> {
    const parsed = parseQuery(query.replace(/\*/g, ''), query.includes('*') ? 'prefix' : 'match');
    if (parsed.kind !== 'terms') throw new Error('terms expected');
    const planned = await Promise.all(
      parsed.terms.map(async (t) => {
        const term = { text: t.token.text, term: t.prefix ? t.token.text : indexTerm(t.token), prefix: t.prefix };
        return { ...term, df: await kw.documentFrequency(term) };
      }),
    );
    return { kw: planned, fts5: parsed.terms.map(termExpression) };
  }

  it('counts each term in as many chunks as FTS5 matches, and the rows FTS5 holds', async () => {
    for (const q of QUERIES) {
      const { kw: planned, fts5: expressions } = await termsOf(q);
      for (const [i, t] of planned.entries()) expect(t.df, `${q}: ${t.term}`).toBe(fts5(expressions[i]!).length);
    }
    expect((await kw.counts()).rows).toBe(reference.key.size);
  });

  it('ranks AND and OR steps with the same BM25 scores, in the same order', async () => {
    const counts = await kw.counts();
    let compared = 0;
    for (const q of QUERIES) {
      const { kw: planned, fts5: expressions } = await termsOf(q);
      for (const op of ['and', 'or'] as const) {
        const expected = fts5(expressions.join(op === 'and' ? ' AND ' : ' OR '));
        const got = await kw.candidates({ op, terms: planned }, {}, 1000, counts);
        expect(await keys(got.map((r) => r.chunkId)), `${op}: ${q}`).toEqual(expected.map((r) => r.key));
        for (const [i, r] of got.entries()) expect(r.rank, `${op}: ${q} #${i}`).toBeCloseTo(expected[i]!.rank, 5);
        compared += got.length;
      }
    }
    expect(compared).toBeGreaterThan(100); // the cases found something to compare
  });

  it('pushes filters into the ranking and honours the limit', async () => {
    const counts = await kw.counts();
    const inPowershell = (r: { key: string }) => r.key.startsWith('powershell/');
    const any = await termsOf('process debug module');
    const expected = fts5(any.fts5.join(' OR ')).filter(inPowershell);
    expect(expected.length).toBeGreaterThan(2);
    const got = await kw.candidates({ op: 'or', terms: any.kw }, { pathGlob: 'powershell/**' }, 1000, counts);
    expect(await keys(got.map((r) => r.chunkId))).toEqual(expected.map((r) => r.key));
    const top2 = await kw.candidates({ op: 'or', terms: any.kw }, { pathGlob: 'powershell/**' }, 2, counts);
    expect(await keys(top2.map((r) => r.chunkId))).toEqual(expected.slice(0, 2).map((r) => r.key));
    expect(await kw.candidates({ op: 'or', terms: any.kw }, { collectionIds: [] }, 10, counts)).toEqual([]);
    const both = await termsOf('process module');
    const expectedAnd = fts5(both.fts5.join(' AND ')).filter(inPowershell);
    expect(expectedAnd.length).toBeGreaterThan(1);
    const gotAnd = await kw.candidates({ op: 'and', terms: both.kw }, { pathGlob: 'powershell/**' }, 1000, counts);
    expect(await keys(gotAnd.map((r) => r.chunkId))).toEqual(expectedAnd.map((r) => r.key));
    for (const [i, r] of gotAnd.entries()) expect(r.rank).toBeCloseTo(expectedAnd[i]!.rank, 5);
  });

  it('matches phrases and NOT as FTS5 does', async () => {
    const [debug, process] = (await termsOf('debug process')).kw;
    const [retry, , jitter] = (await termsOf('retry backoff jitter')).kw;
    const docsOf = async (documentIds: Set<number>) => [...(await s.documents.forHits([...documentIds])).values()].map((d) => d.path).sort();
    const phrase = await docsOf(await kw.documentsMatching({ t: 'phrase', terms: [debug!, process!] }));
    const expectedPhrase = [...new Set(fts5('"debug process"').map((r) => r.key.split('#')[0]!))].sort();
    expect(expectedPhrase.length).toBeGreaterThan(0);
    expect(phrase).toEqual(expectedPhrase);
    const not = await kw.candidates(
      { op: 'expression', expression: { t: 'and', items: [{ t: 'term', term: retry! }], not: [{ t: 'term', term: jitter! }] }, terms: [retry!] },
      {},
      1000,
      await kw.counts(),
    );
    const expectedNot = fts5('"retry" NOT "jitter"').map((r) => r.key).sort();
    expect(expectedNot.length).toBeGreaterThan(0);
    expect((await keys(not.map((r) => r.chunkId))).sort()).toEqual(expectedNot);
  });
});
