// The PostgreSQL keyword index ranks as SQLite's FTS5 does: the same chunks (real fixture files in
// English, Japanese, Chinese and mixed text, prepared by the indexer's own code) written to both
// backends give the same document frequencies, the same matching rows and the same BM25 scores
// (FTS5's bm25() with column weights 4/2/1) for AND, OR and prefix steps, filters included.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import { parseQuery, termExpression } from '../../src-main/engine/search/query.js';
import { indexTerm } from '../../src-main/engine/text/terms.js';
import { ChunkStore, type FtsRow } from '../../src-main/engine/store/chunks.js';
import { CollectionStore } from '../../src-main/engine/store/collections.js';
import { openDatabase, type Db } from '../../src-main/engine/store/database.js';
import { DocumentStore } from '../../src-main/engine/store/documents.js';
import { PostgresDatabase } from '../../src-main/engine/store/postgres/connection.js';
import { PostgresKeywordIndex } from '../../src-main/engine/store/postgres/keyword-index.js';
import type { PlannedKeywordTerm } from '../../src-main/engine/store/storage.js';
import { freshDatabase } from '../helpers/postgres.js';

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

let sqlite: Db;
let pg: PostgresDatabase;
let keyword: PostgresKeywordIndex;
const docOfChunk = new Map<number, number>();
const docsByPrefix = new Map<string, number[]>();

beforeAll(async () => {
  sqlite = openDatabase(':memory:', { nativeRank: { enabled: false } });
  const collections = new CollectionStore(sqlite);
  const documents = new DocumentStore(sqlite);
  const chunks = new ChunkStore(sqlite);
  const c = collections.insert({ name: 'parity', root: '/parity', include: ['**/*'], exclude: [], context: '' });
  pg = await PostgresDatabase.open(await freshDatabase('parity'));
  keyword = new PostgresKeywordIndex(pg, 'chunks_fts');
  await pg.query(`INSERT INTO collections (id, name, root, include_globs, exclude_globs, created_at, updated_at) VALUES ($1, 'parity', '/parity', '[]', '[]', 0, 0)`, [c.id]);
  const fts: FtsRow[] = [];
  let n = 0;
  for (const [p, text] of Object.entries(fixtureFiles())) {
    const prepared = prepareDocument(Buffer.from(text), p, DEFAULT_CHUNKING);
    if (!prepared.ok) throw new Error(`${p}: ${prepared.reason}`);
    const docid = `d${n++}`;
    const id = sqlite.transaction(() => {
      const id = documents.upsert(
        { collectionId: c.id, path: p, docid, title: prepared.title, kind: prepared.kind, size: text.length, mtimeMs: n, hash: null, status: 'indexed', error: null, tags: [], metadata: {} },
        0,
      );
      documents.putContent(id, prepared.text);
      const rows = chunks.replaceFor(id, prepared.chunks, true);
      chunks.indexText(rows);
      fts.push(...rows);
      for (const r of rows) docOfChunk.set(r.id, id);
      return id;
    })();
    const prefix = p.split('/')[0]!;
    docsByPrefix.set(prefix, [...(docsByPrefix.get(prefix) ?? []), id]);
    await pg.query(
      `INSERT INTO documents (id, collection_id, path, docid, title, kind, size, mtime_ms, indexed_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 'indexed')`,
      [id, c.id, p, docid, prepared.title, prepared.kind, text.length, n],
    );
  }
  const chunkRows = sqlite.prepare('SELECT id, document_id, ordinal, char_start, char_end, line_start, line_end, heading_path, tokens FROM chunks ORDER BY id').all() as Record<string, unknown>[];
  for (const r of chunkRows) {
    await pg.query(
      `INSERT INTO chunks (id, document_id, ordinal, char_start, char_end, line_start, line_end, heading_path, tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [r.id, r.document_id, r.ordinal, r.char_start, r.char_end, r.line_start, r.line_end, r.heading_path, r.tokens],
    );
  }
  await pg.transaction((client) => keyword.write(fts, client));
});

afterAll(async () => {
  sqlite?.close();
  await pg?.close();
});

const QUERIES = [
  'retry backoff jitter',
  'process processes', // two words, one term: each counts, as in FTS5
  'cmdlet attaches debugger running processes local computer', // an AND step of seven terms (one fenced step per term)
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

/** The query's terms as the planner will pass them (counted by the PostgreSQL index), and as FTS5 expressions. */
async function termsOf(query: string): Promise<{ kw: PlannedKeywordTerm[]; fts5: string[] }> {
  const parsed = parseQuery(query.replace(/\*/g, ''), query.includes('*') ? 'prefix' : 'match');
  if (parsed.kind !== 'terms') throw new Error('terms expected');
  const kw = await Promise.all(
    parsed.terms.map(async (t) => {
      const term = { text: t.token.text, term: t.prefix ? t.token.text : indexTerm(t.token), prefix: t.prefix };
      return { ...term, df: await keyword.documentFrequency(term) };
    }),
  );
  return { kw, fts5: parsed.terms.map(termExpression) };
}

function sqliteRanks(expression: string, collectionFilter?: number[]): { id: number; rank: number }[] {
  const rows = sqlite
    .prepare(`SELECT rowid AS id, bm25(chunks_fts, 4.0, 2.0, 1.0) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid`)
    .all(expression) as { id: number; rank: number }[];
  return collectionFilter ? rows.filter((r) => collectionFilter.includes(docOfChunk.get(r.id)!)) : rows;
}

describe('keyword ranking: PostgreSQL against SQLite FTS5', () => {
  it('counts each term in as many chunks as fts5vocab does', async () => {
    for (const q of QUERIES) {
      const { kw, fts5 } = await termsOf(q);
      for (const [i, t] of kw.entries()) {
        const fts5Count = (sqlite.prepare('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?').get(fts5[i]!) as { n: number }).n;
        expect(t.df, `${q}: ${t.term}`).toBe(fts5Count);
      }
    }
    const stats = await keyword.counts();
    expect(stats.rows).toBe((sqlite.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n);
  });

  it('ranks AND and OR steps with the same BM25 scores, in the same order', async () => {
    const stats = await keyword.counts();
    let compared = 0;
    for (const q of QUERIES) {
      const { kw, fts5 } = await termsOf(q);
      for (const op of ['and', 'or'] as const) {
        const expected = sqliteRanks(fts5.join(op === 'and' ? ' AND ' : ' OR '));
        const got = await keyword.candidates({ op, terms: kw }, {}, 1000, stats);
        expect(got.map((r) => r.chunkId), `${op}: ${q}`).toEqual(expected.map((r) => r.id));
        for (const [i, r] of got.entries()) expect(r.rank, `${op}: ${q} #${i}`).toBeCloseTo(expected[i]!.rank, 5);
        for (const r of got) expect(r.documentId).toBe(docOfChunk.get(r.chunkId));
        compared += got.length;
      }
    }
    expect(compared).toBeGreaterThan(100); // the cases found something to compare
  });

  it('pushes filters into the ranking query and honours the limit', async () => {
    const stats = await keyword.counts();
    const { kw, fts5 } = await termsOf('process debug module');
    const expected = sqliteRanks(fts5.join(' OR ')).filter((r) => docsByPrefix.get('powershell')!.includes(docOfChunk.get(r.id)!));
    expect(expected.length).toBeGreaterThan(2);
    const got = await keyword.candidates({ op: 'or', terms: kw }, { pathGlob: 'powershell/**' }, 1000, stats);
    expect(got.map((r) => r.chunkId)).toEqual(expected.map((r) => r.id));
    const top2 = await keyword.candidates({ op: 'or', terms: kw }, { pathGlob: 'powershell/**' }, 2, stats);
    expect(top2.map((r) => r.chunkId)).toEqual(expected.slice(0, 2).map((r) => r.id));
    expect(await keyword.candidates({ op: 'or', terms: kw }, { collectionIds: [] }, 10, stats)).toEqual([]);
    // an AND step with a filter
    const both = await termsOf('process module');
    const expectedAnd = sqliteRanks(both.fts5.join(' AND ')).filter((r) => docsByPrefix.get('powershell')!.includes(docOfChunk.get(r.id)!));
    expect(expectedAnd.length).toBeGreaterThan(1);
    const gotAnd = await keyword.candidates({ op: 'and', terms: both.kw }, { pathGlob: 'powershell/**' }, 1000, stats);
    expect(gotAnd.map((r) => r.chunkId)).toEqual(expectedAnd.map((r) => r.id));
    for (const [i, r] of gotAnd.entries()) expect(r.rank).toBeCloseTo(expectedAnd[i]!.rank, 5);
  });

  it('matches expressions (phrases, NOT) through the GIN index', async () => {
    const [debug, process] = (await termsOf('debug process')).kw;
    const [retry, , jitter] = (await termsOf('retry backoff jitter')).kw;
    const docs = await keyword.documentsMatching({ t: 'phrase', terms: [debug!, process!] });
    const expected = new Set(sqliteRanks('"debug process"').map((r) => docOfChunk.get(r.id)!));
    expect(docs).toEqual(expected);
    expect(expected.size).toBeGreaterThan(0);
    const stats = await keyword.counts();
    const got = await keyword.candidates(
      { op: 'expression', expression: { t: 'and', items: [{ t: 'term', term: retry! }], not: [{ t: 'term', term: jitter! }] }, terms: [retry!] },
      {},
      1000,
      stats,
    );
    const notJitter = sqliteRanks('"retry" NOT "jitter"').map((r) => r.id).sort();
    expect(notJitter.length).toBeGreaterThan(0);
    expect(got.map((r) => r.chunkId).sort()).toEqual(notJitter);
  });
});
