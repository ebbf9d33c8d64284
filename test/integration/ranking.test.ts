// Keyword ranking with the native trove_bm25() (native/trove_rank.c): the same scores as FTS5's
// bm25() whether the planner passes each phrase's row count or not, the same search results as
// the bm25() fallback, and background merging of the index's segments changes no result — SQLite's
// own mechanics, on SQLite. The engine's term counts across index changes run on both backends
// (BM25 itself on both: test/storage/keyword-ranking.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, type SearchResponse } from '../../src-main/engine/index.js';
import { readEnvironment } from '../../src-main/engine/config.js';
import { openDatabase } from '../../src-main/engine/store/database.js';
import { FtsMerge } from '../../src-main/engine/store/fts-merge.js';
import { FtsTotalsReader, varints } from '../../src-main/engine/store/fts-totals.js';
import { hasRankFunction } from '../../src-main/engine/store/sqlite/rank.js';
import { indexTerm } from '../../src-main/engine/text/terms.js';
import { describeBackends } from '../helpers/backends.js';
import { openEngine } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

const words = ['retry', 'backoff', 'jitter', 'timeout', 'socket', 'cache', 'index', 'query', 'merge', 'segment', 'token', 'stream'];
/** 120 small pages with a deterministic mix of words, titles and headings. */
function corpus(): Record<string, string> {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = () => words[Math.floor(rand() * words.length)]!;
  return Object.fromEntries(
    Array.from({ length: 120 }, (_, i) => [
      `p${i}.md`,
      `# ${pick()} ${pick()}\n\n${Array.from({ length: 5 + (i % 40) }, pick).join(' ')}.\n\n## ${pick()}\n\n${Array.from({ length: 3 + (i % 7) }, pick).join(' ')}.\n`,
    ]),
  );
}

const built = path.resolve(import.meta.dirname, '../../native/build');
const queries = ['retry backoff', 'jitter', 'socket timeout cache', 'merge segment token stream', 'query index retry jitter socket', 'retr*'];
const view = (r: SearchResponse) => r.results.map((h) => `${h.path} ${h.score}`);

let root: string;
beforeAll(() => {
  root = tempDir('trove-rank-');
  writeTree(root, corpus());
});

describe('trove_bm25', () => {
  it('is built and loaded (npm run build:native; a C compiler is needed)', () => {
    expect(fs.readdirSync(built).some((f) => f.startsWith('trove_rank.'))).toBe(true);
    const db = openDatabase(':memory:');
    expect(hasRankFunction(db)).toBe(true);
    db.close();
  });

  it('scores every row exactly as bm25() does, with the phrase counts passed in or counted', async () => {
    const engine = await openEngine();
    await engine.addCollection({ root, name: 'r' });
    await engine.index();
    await engine.close();
    const db = openDatabase(path.join(engine.profileDir, 'index.sqlite'));
    const df = db.prepare<[string], { doc: number }>('SELECT doc FROM chunks_fts_vocab WHERE term = ?');
    const expressions = [['retry', 'backoff'], ['jitter'], ['socket', 'timeout', 'cache'], ['merge', 'segment']];
    let rows = 0;
    let pruned = 0;
    for (const terms of expressions) {
      for (const op of [' AND ', ' OR ']) {
        const expression = terms.map((t) => `"${t}"`).join(op);
        const counts = terms.map((t) => df.get(indexTerm({ text: t, cjk: false }))!.doc); // as the planner looks them up
        const ref = db.prepare('SELECT rowid, bm25(chunks_fts, 4.0, 2.0, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid').all(expression) as { rowid: number; s: number }[];
        const given = db.prepare(`SELECT rowid, trove_bm25(chunks_fts, 4.0, 2.0, 1.0, NULL, NULL, NULL${', ?'.repeat(terms.length)}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid`).all(...counts, expression) as typeof ref;
        const counted = db.prepare('SELECT rowid, trove_bm25(chunks_fts, 4.0, 2.0, 1.0, NULL, NULL, NULL, NULL) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid').all(expression) as typeof ref;
        expect(ref.length).toBeGreaterThan(0);
        for (const other of [given, counted]) {
          expect(other.map((r) => r.rowid)).toEqual(ref.map((r) => r.rowid));
          other.forEach((r, i) => expect(r.s).toBeCloseTo(ref[i]!.s, 9));
        }
        rows += ref.length;
        // with the LIMIT passed in, rows that cannot make it are not fully scored: the top k
        // are still bm25's, with its scores (ties may swap places)
        for (const k of [1, 3, 10]) {
          const top = db.prepare('SELECT bm25(chunks_fts, 4.0, 2.0, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?').all(expression, k) as { s: number }[];
          const best = db.prepare(`SELECT trove_bm25(chunks_fts, 4.0, 2.0, 1.0, ?, NULL, NULL${', ?'.repeat(terms.length)}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?`).all(k, ...counts, expression, k) as typeof top;
          expect(best.length).toBe(top.length);
          best.forEach((r, i) => expect(r.s, `${expression} k=${k}`).toBeCloseTo(top[i]!.s, 9));
        }
        const skipped = db.prepare(`SELECT count(*) AS n FROM (SELECT trove_bm25(chunks_fts, 4.0, 2.0, 1.0, 1, NULL, NULL${', ?'.repeat(terms.length)}) AS s FROM chunks_fts WHERE chunks_fts MATCH ?) WHERE s > 1e299`);
        pruned += (skipped.get(...counts, expression) as { n: number }).n;
      }
    }
    expect(rows).toBeGreaterThan(100);
    // a match's position bounds its row's length from below, so most rows of these everywhere-words
    // are left unscored at k = 1 (1,214 of 1,320; 926 when only the match counts bounded it)
    expect(pruned / rows, 'rows left unscored because they could not make the top k').toBeGreaterThan(0.85);
    // phrases of several tokens, counted by the function: a match's end bounds its column's length
    for (const expression of ['"retry backoff" OR jitter', '"socket timeout" AND cache', 'title:"merge segment" OR stream']) {
      for (const k of [1, 5]) {
        const top = db.prepare('SELECT bm25(chunks_fts, 4.0, 2.0, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?').all(expression, k) as { s: number }[];
        const best = db.prepare('SELECT trove_bm25(chunks_fts, 4.0, 2.0, 1.0, ?, NULL, NULL) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?').all(k, expression, k) as typeof top;
        expect(top.length).toBeGreaterThan(0);
        expect(best.map((r) => r.s.toFixed(9)), `${expression} k=${k}`).toEqual(top.map((r) => r.s.toFixed(9)));
      }
    }
    // a wrong count changes the score: the counts really are used
    const [a] = db.prepare('SELECT trove_bm25(chunks_fts, 4.0, 2.0, 1.0, NULL, NULL, NULL, 1) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid LIMIT 1').all('"jitter"') as { s: number }[];
    const [b] = db.prepare('SELECT bm25(chunks_fts, 4.0, 2.0, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid LIMIT 1').all('"jitter"') as { s: number }[];
    expect(a!.s).not.toBeCloseTo(b!.s, 3);
    db.close();
  });
});

describe('the true totals BM25 takes (store/fts-totals.ts)', () => {
  it('follow edits, deletes and a collection removed, and are measured again at open', async () => {
    const dir = tempDir('trove-totals-');
    writeTree(dir, corpus());
    const other = tempDir('trove-totals-other-');
    writeTree(other, { 'a.md': '# Other\n\nretry jitter socket.\n', 'b.md': '# More\n\ntoken stream cache.\n' });
    const engine = await openEngine();
    await engine.addCollection({ root: dir, name: 'r' });
    await engine.addCollection({ root: other, name: 'o' });
    await engine.index();
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `p${i}.md`), `# Edited ${i}\n\nretry ${'token '.repeat(i % 5)}stream.\n`);
    for (let i = 20; i < 40; i++) fs.rmSync(path.join(dir, `p${i}.md`));
    await engine.index();
    await engine.removeCollection('o');
    await engine.close();
    const file = path.join(engine.profileDir, 'index.sqlite');
    const truth = (db: ReturnType<typeof openDatabase>) =>
      db.prepare('SELECT count(*) AS rows, coalesce(sum(trove_docsize_tokens(sz)), 0) AS tokens FROM chunks_fts_docsize').get() as { rows: number; tokens: number };
    let db = openDatabase(file);
    const live = truth(db);
    expect(live.rows).toBeGreaterThan(50);
    // FTS5's own record still counts every row ever deleted: the reason for the correction
    const [recordedRows] = varints((db.prepare('SELECT block FROM chunks_fts_data WHERE id = 1').get() as { block: Buffer }).block);
    expect(recordedRows).toBeGreaterThan(live.rows);
    expect(new FtsTotalsReader(db, 'chunks_fts').read()).toEqual(live);
    // a database without the counts (written before them) is measured at open
    db.prepare('DELETE FROM fts_deleted').run();
    db.close();
    db = openDatabase(file);
    expect(new FtsTotalsReader(db, 'chunks_fts').read()).toEqual(live);
    db.close();
  });

  it('decodes SQLite varints of every length', () => {
    const enc = (v: number): number[] => {
      if (v < 2 ** 56) {
        const out = [v % 128];
        for (v = Math.floor(v / 128); v > 0; v = Math.floor(v / 128)) out.unshift(0x80 | (v % 128));
        return out;
      }
      return [];
    };
    const values = [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21, 2 ** 35 + 7, 2 ** 49 - 1];
    expect(varints(Uint8Array.from(values.flatMap(enc)))).toEqual(values);
    expect(varints(null)).toEqual([]);
  });
});

describe('keyword search', () => {
  let native: Engine;
  let fallback: Engine;
  beforeAll(async () => {
    native = await openEngine();
    await native.addCollection({ root, name: 'r' });
    await native.index();
    // what TROVE_NATIVE_RANK=0 gives the engine
    fallback = await openEngine({ profileDir: native.profileDir + '-fallback', nativeRank: readEnvironment({ TROVE_NATIVE_RANK: '0' }).engine.nativeRank });
    await fallback.addCollection({ root, name: 'r' });
    await fallback.index();
  });
  afterAll(() => fallback.close());

  it('finds the same documents with the same scores with trove_bm25() and with the bm25() fallback', async () => {
    for (const query of queries) {
      const syntax = query.endsWith('*') ? 'prefix' : 'match';
      const a = await native.search({ query, limit: 20, syntax });
      const b = await fallback.search({ query, limit: 20, syntax });
      expect(a.results.length, query).toBeGreaterThan(0);
      expect(view(a), query).toEqual(view(b));
    }
  });

  it('merges the index into one segment and answers exactly as before', async () => {
    // one write transaction per file: one segment each, until automerge folds them
    const engine = await openEngine({ indexing: { batchFiles: 1 } });
    await engine.addCollection({ root, name: 'r' });
    await engine.index();
    const merge = new FtsMerge(openDatabase(path.join(engine.profileDir, 'index.sqlite')));
    const before = merge.shape();
    expect(before.segments).toBeGreaterThan(1);
    expect(merge.worthMerging(before)).toBe(true);
    const answers = await Promise.all(queries.map(async (q) => view(await engine.search({ query: q, limit: 20, syntax: q.endsWith('*') ? 'prefix' : 'match' }))));
    await engine.compactIndex();
    expect(merge.shape().segments).toBe(1);
    expect(merge.worthMerging()).toBe(false);
    expect(await Promise.all(queries.map(async (q) => view(await engine.search({ query: q, limit: 20, syntax: q.endsWith('*') ? 'prefix' : 'match' }))))).toEqual(answers);
  });

  it('a watching host merges by itself once it is idle', async () => {
    const engine = await openEngine({ indexing: { batchFiles: 1 } });
    await engine.addCollection({ root, name: 'r' });
    await engine.index();
    const merge = new FtsMerge(openDatabase(path.join(engine.profileDir, 'index.sqlite')));
    expect(merge.shape().segments).toBeGreaterThan(1);
    await engine.startWatching();
    const deadline = Date.now() + 20_000;
    while (merge.shape().segments > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await engine.stopWatching();
    expect(merge.shape().segments).toBe(1);
    expect((await engine.search({ query: 'retry backoff' })).results.length).toBeGreaterThan(0);
  });
});

describeBackends('term counts across index changes', (b) => {
  it('finds a word that a later file brings in, and new files with words already counted', async () => {
    const dir = tempDir('trove-df-');
    writeTree(dir, corpus());
    const engine = await b.open();
    await engine.addCollection({ root: dir, name: 'r' });
    await engine.index();
    expect((await engine.search({ query: 'zebra' })).results).toEqual([]); // counted as absent
    const before = (await engine.search({ query: 'jitter', limit: 200 })).results.length;
    fs.writeFileSync(path.join(dir, 'new.md'), '# Zebra crossing\n\nA zebra and some jitter.\n');
    await engine.index();
    expect((await engine.search({ query: 'zebra' })).results.map((r) => r.path)).toEqual(['new.md']);
    // 'jitter' keeps its count from before (one chunk in 200 is within the drift), and still finds the new file
    const after = (await engine.search({ query: 'jitter', limit: 200 })).results;
    expect(after.length).toBe(before + 1);
    expect(after.map((r) => r.path)).toContain('new.md');
  });

  it('scores as a fresh index of the same folder does once files were edited and deleted', async () => {
    // BM25's row count and average length must follow the index: an edited file's old chunks and a
    // deleted file's chunks no longer count
    const dir = tempDir('trove-df-');
    writeTree(dir, corpus());
    const engine = await b.open();
    await engine.addCollection({ root: dir, name: 'r' });
    await engine.index();
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(dir, `p${i}.md`), `# Edited ${i}\n\nretry ${'token '.repeat(i % 5)}stream.\n`);
    for (let i = 30; i < 60; i++) fs.rmSync(path.join(dir, `p${i}.md`));
    await engine.index();
    const fresh = await b.open();
    await fresh.addCollection({ root: dir, name: 'r' });
    await fresh.index();
    for (const query of queries) {
      const syntax = query.endsWith('*') ? 'prefix' : 'match';
      expect(view(await engine.search({ query, limit: 20, syntax })), query).toEqual(view(await fresh.search({ query, limit: 20, syntax })));
    }
  });
});
