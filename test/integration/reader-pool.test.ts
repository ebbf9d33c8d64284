// SQLite reader threads (store/sqlite/reader-pool.ts): the heavy reads of a host — keyword
// candidates, prefix counts, document texts — on threads with read-only connections to the same
// file. The answers are the same with the threads on and off; searches running while indexing
// writes batches answer without errors from committed data only; close() waits for reads in flight;
// a thread that dies costs its reads time, never an answer. Real files, real SQLite.
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, type SearchRequest } from '../../src-main/engine/index.js';
import { KeywordSearch } from '../../src-main/engine/search/keyword-search.js';
import { PageAnchors } from '../../src-main/engine/search/page-anchors.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { ReaderStoppedError } from '../../src-main/engine/store/sqlite/reader-pool.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

afterAll(removeTempDirs);

const WORDS = ['heron', 'marsh', 'reed', 'tide', 'willow', 'estuary', 'plover', 'sediment', 'brackish', 'lagoon', 'kingfisher', 'delta'];

/** `n` notes of a few paragraphs each, words drawn by a fixed rule (the same corpus every run). */
function notes(n: number, offset = 0): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = offset; i < offset + n; i++) {
    const w = (k: number) => WORDS[(i * 7 + k * 5) % WORDS.length]!;
    const dir = i % 3 === 0 ? 'field' : 'desk';
    files[`${dir}/note-${i}.md`] =
      `---\ntags: [${i % 2 ? 'odd' : 'even'}]\n---\n# ${w(0)} ${w(1)} ${i}\n\n` +
      Array.from({ length: 6 }, (_, p) => `The ${w(p)} by the ${w(p + 1)} near the ${w(p + 2)}, entry ${i}.${p}.`).join('\n\n') +
      '\n';
  }
  return files;
}

/** An answer without its timings, to compare. */
function answer(r: unknown): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (/^(took_?ms|tookMs|totalMs|timings?)$/i.test(k) ? undefined : v)));
}

const SEARCHES: SearchRequest[] = [
  { query: 'heron marsh', limit: 8 },
  { query: 'kingfisher lagoon delta', limit: 5, offset: 3 },
  { query: 'est', syntax: 'prefix', limit: 10 },
  { query: '"heron by the estuary"', syntax: 'phrase', limit: 6 },
  { query: 'plover AND NOT reed', syntax: 'boolean', limit: 10 },
  { query: 'willow tide', path: 'field/*.md', limit: 10 },
  { query: 'sediment', tags: ['odd'], limit: 10 },
  { query: 'brackish', explain: true, snippetChars: 60, limit: 20 },
];

async function everyAnswer(engine: Engine): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const s of SEARCHES) out.push(answer(await engine.search(s)));
  out.push(answer(await engine.get('notes/desk/note-1.md')));
  out.push(answer(await engine.multiGet('notes/field/note-1*.md')));
  out.push(answer(await engine.memory.search({ query: 'heron', threadId: 'walk' })));
  out.push(answer(await engine.memory.search({ query: 'marsh', metadataFilters: [{ key: 'place', value: 'ÉTANG' }] })));
  const status = await engine.status();
  out.push(answer({ totals: status.totals, collections: status.collections }));
  return out;
}

/** 60 notes indexed, then opened twice: every read on reader threads, and none. */
async function pooledAndPlain(): Promise<{ pooled: SqliteStorage; plain: SqliteStorage }> {
  const profileDir = tempDir('trove-profile-');
  const root = tempDir('trove-root-');
  writeTree(root, notes(60));
  const engine = await Engine.open({ profileDir });
  await engine.addCollection({ root, name: 'notes' });
  await engine.index();
  await engine.close();
  const file = databasePath(profileDir);
  return { pooled: SqliteStorage.open(file, { readerThreads: 2, offloadReads: 'always' }), plain: SqliteStorage.open(file, { readerThreads: 0 }) };
}

describe('SQLite reader threads', () => {
  it('answer searches in every keyword syntax, filters, get, multi-get, memory searches and status exactly as the engine thread does', async () => {
    const profileDir = tempDir('trove-profile-');
    const root = tempDir('trove-root-');
    writeTree(root, notes(120));
    const before = await Engine.open({ profileDir, readerThreads: 0 });
    await before.addCollection({ root, name: 'notes' });
    await before.index();
    await before.memory.storeBatch([
      { threadId: 'walk', source: 'user', text: 'a heron stood in the marsh', metadata: { place: 'étang' } },
      { threadId: 'walk', source: 'agent', text: 'the heron flew over the reeds', metadata: { place: 'river' } },
      { threadId: 'desk', source: 'user', text: 'marsh birds list, heron first', metadata: { place: 'Étang' } },
    ]);
    const off = await everyAnswer(before);
    await before.close();

    const after = await Engine.open({ profileDir, readerThreads: 2, offloadReads: 'always' });
    try {
      const on = await everyAnswer(after);
      expect(on).toEqual(off);
      for (const r of off.slice(0, SEARCHES.length)) expect((r as { results: unknown[] }).results.length).toBeGreaterThan(0); // the comparison compares something
      expect((off[off.length - 2] as { hits: unknown[] }).hits.length).toBe(2); // both folded spellings of the place
      expect((off[off.length - 1] as { totals: { documents: number; chunks: number } }).totals).toMatchObject({ documents: 120, chunks: 120 });
    } finally {
      await after.close();
    }
  });

  it('serve the keyword steps and page texts of a search from its threads, the same rows as the engine connection', async () => {
    const { pooled, plain } = await pooledAndPlain();
    try {
      const base = { limit: 10, offset: 0, snippetChars: 200, explain: false };
      for (const req of [
        { ...base, query: 'heron marsh', syntax: 'match' as const, filters: { pathGlob: 'desk/**' } },
        { ...base, query: 'pl', syntax: 'prefix' as const, filters: {} },
      ]) {
        const a = await new KeywordSearch(pooled, new PageAnchors(pooled)).search(req, 1);
        const b = await new KeywordSearch(plain, new PageAnchors(plain)).search(req, 1);
        expect(a).toEqual(b);
        expect(a.hits.length).toBe(10);
      }
      expect(pooled.readers.served).toBeGreaterThanOrEqual(5); // two candidate steps, two pages' texts, the prefix count
      expect(plain.readers.served).toBe(0);
    } finally {
      await pooled.close();
      await plain.close();
    }
  });

  it('count chunks awaiting vectors and run the vector kNN — plain, filtered then grown, and the exact filtered scan — on their threads, the same rows as the engine connection', async () => {
    const { pooled, plain } = await pooledAndPlain();
    try {
      const [collection] = await plain.collections.list();
      const space = await plain.vectors.ensureSpace('model-a', 'sha-a', 3);
      await plain.vectors.setActive(collection!.id, space.id);
      // a vector per chunk from its id: distinct distances, so the order is the kNN's, not a tie's
      const pending = await plain.vectors.pending(space.id, collection!.id, 1000);
      const rows = pending.map((p) => ({ chunkId: p.id, vector: Float32Array.from([1, (p.id % 17) / 17, (p.id % 5) / 5]) }));
      expect(await pooled.vectors.pendingCount(space.id, collection!.id)).toBe(60);
      expect(await plain.vectors.insert(space.id, collection!.id, rows.slice(0, 45))).toBe(45);
      expect(await pooled.vectors.pendingCount(space.id, collection!.id)).toBe(15); // a read after a commit sees it
      expect(await plain.vectors.insert(space.id, collection!.id, rows.slice(45))).toBe(15);
      const q = Float32Array.from([1, 0.2, 0.1]);
      const asks: [number, Parameters<typeof plain.vectors.nearest>[4]][] = [
        [10, undefined],
        [5, { pathGlob: 'desk/**' }], // most chunks pass: the kNN, then the filter
        [4, { pathGlob: 'field/note-3*.md' }], // few pass: grown k, then the exact scan
      ];
      for (const [k, filters] of asks) {
        const a = await pooled.vectors.nearest(space.id, q, [collection!.id], k, filters);
        const b = await plain.vectors.nearest(space.id, q, [collection!.id], k, filters);
        expect(a).toEqual(b);
        expect(a.length).toBe(k);
      }
      expect(pooled.readers.served).toBeGreaterThanOrEqual(3);
      expect(pooled.readers.answeredHere).toBe(0); // the threads have sqlite-vec: none fell back
      expect(plain.readers.served).toBe(0);
    } finally {
      await pooled.close();
      await plain.close();
    }
  });

  it('answer searches running while indexing writes batches, without errors, from whole batches only', async () => {
    const profileDir = tempDir('trove-profile-');
    const root = tempDir('trove-root-');
    writeTree(root, notes(40));
    const engine = await Engine.open({ profileDir, readerThreads: 2, offloadReads: 'always', indexing: { batchFiles: 8 } });
    try {
      await engine.addCollection({ root, name: 'notes' });
      await engine.index();
      writeTree(root, notes(1200, 40)); // thirty times as many, indexed while the searches run
      let indexing = true;
      const indexed = engine.index().finally(() => (indexing = false));
      const states = new Set<number>();
      const searcher = async () => {
        while (indexing) {
          states.add((await engine.status()).totals.documents);
          const r = await engine.search({ query: 'heron marsh', limit: 20 });
          for (const h of r.results) {
            // every hit is a whole note: its document, chunk and text from committed batches
            expect(h.path).toMatch(/^(field|desk)\/note-\d+\.md$/);
            expect(h.snippet).toMatch(/heron|marsh/i);
          }
          const first = r.results[0]!;
          const doc = await engine.get(`notes/${first.path}`);
          const note = /note-(\d+)\.md$/.exec(first.path)![1];
          expect(doc.text).toContain(`entry ${note}.0.`);
        }
      };
      await Promise.all([indexed, searcher(), searcher(), searcher()]);
      expect(states.size).toBeGreaterThan(1); // the searches ran while batches landed
      const files = (await engine.status()).collections.find((c) => c.name === 'notes');
      expect(files?.documents).toBe(1240);
    } finally {
      await engine.close();
    }
    // the index written under the reads answers the same from the threads and from the engine thread
    // (engines opened afresh: a long-running one plans with term counts kept while the index grew)
    const answers: unknown[] = [];
    for (const readerThreads of [2, 0]) {
      const e = await Engine.open({ profileDir, readerThreads, offloadReads: 'always' });
      try {
        answers.push(answer(await e.search({ query: 'heron marsh', limit: 20 })));
      } finally {
        await e.close();
      }
    }
    expect(answers[0]).toEqual(answers[1]);
    expect((answers[0] as { results: unknown[] }).results).toHaveLength(20);
  });
});

describe('the reader pool', () => {
  /** A read that keeps a thread busy for a while (~100 ms): every row counted to `n`. */
  const SLOW = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT count(*) AS c FROM n';

  async function storage(threads: number): Promise<SqliteStorage> {
    const profileDir = tempDir('trove-profile-');
    const engine = await Engine.open({ profileDir });
    await engine.close();
    return SqliteStorage.open(databasePath(profileDir), { readerThreads: threads, offloadReads: 'always' });
  }

  it('closes after the reads in flight, and refuses reads after that with a clear error', async () => {
    const s = await storage(2);
    const reads = Array.from({ length: 6 }, (_, i) => s.readers.read<{ c: number }[]>(SLOW, [300_000 + i]));
    await s.close();
    expect((await Promise.all(reads)).map((r) => r[0]!.c)).toEqual([0, 1, 2, 3, 4, 5].map((i) => 300_000 + i));
    await expect(s.readers.read(SLOW, [1])).rejects.toThrow(/reader threads are closed/);
    expect(s.readers.threadsForTest()).toEqual([]);
  });

  it('starts its threads ahead of the reads when clients connect (warmReads), once, and serves the reads from them', async () => {
    const s = await storage(2);
    try {
      expect(s.readers.threadsForTest()).toEqual([]); // nothing before the first read or client
      s.warmReads();
      const warmed = s.readers.threadsForTest();
      expect(warmed).toHaveLength(2);
      s.warmReads(); // every request of a client asks again: no more threads
      expect(s.readers.threadsForTest()).toEqual(warmed);
      expect(s.readers.served).toBe(0); // started, not used
      const rows = await Promise.all([1, 2, 3].map((i) => s.readers.read<{ c: number }[]>(SLOW, [1_000 * i])));
      expect(rows.map((r) => r[0]!.c)).toEqual([1_000, 2_000, 3_000]);
      expect(s.readers.threadsForTest()).toEqual(warmed); // the reads went to the warmed threads
      expect(s.readers.served).toBe(3);
    } finally {
      await s.close();
    }
    s.warmReads(); // closed: nothing starts
    expect(s.readers.threadsForTest()).toEqual([]);
  });

  it('answers the reads of a thread that died on the engine connection, and starts another thread for the next', async () => {
    const s = await storage(1);
    try {
      const stmt = s.db.prepare(SLOW);
      const viaRun = s.readers.run<{ c: number }[]>(stmt, [2_000_000]);
      const direct = s.readers.read<{ c: number }[]>(SLOW, [2_000_000]);
      const [thread] = s.readers.threadsForTest();
      expect(thread).toBeDefined();
      await thread!.terminate(); // as a crash would: the thread is gone with its reads
      await expect(direct).rejects.toBeInstanceOf(ReaderStoppedError);
      await expect(direct).rejects.toThrow(/reader thread stopped during the read/);
      expect((await viaRun)[0]!.c).toBe(2_000_000); // answered again on the engine's connection
      expect((await s.readers.read<{ c: number }[]>(SLOW, [10]))[0]!.c).toBe(10);
      expect(s.readers.threadsForTest()).toHaveLength(1);
      expect(s.readers.threadsForTest()[0]).not.toBe(thread);
    } finally {
      await s.close();
    }
  });

  it('sends reads to its threads while the engine thread is busy, and keeps them here while it is mostly idle', async () => {
    const profileDir = tempDir('trove-profile-');
    const engine = await Engine.open({ profileDir });
    await engine.close();
    const s = SqliteStorage.open(databasePath(profileDir), { readerThreads: 1 }); // offload: 'loaded', as hosts run it
    const stmt = s.db.prepare(SLOW);
    try {
      // an engine thread busy for a whole window (serving other calls) sends the next read to a thread
      expect(await s.readers.run(stmt, [10])).toEqual([{ c: 10 }]);
      const busyUntil = performance.now() + 400;
      while (performance.now() < busyUntil); // the other calls' work, on this thread
      expect(await s.readers.run(stmt, [20])).toEqual([{ c: 20 }]);
      expect(s.readers.served).toBe(1);
      // a thread mostly waiting between calls (one client at a time) reads here again
      const idle = await until(
        async () => {
          const before = s.readers.served;
          await s.readers.run(stmt, [10]);
          return s.readers.served === before;
        },
        (here) => here,
        10_000,
        'a read run on the engine connection',
      );
      expect(idle).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('reports a bad statement as the error SQLite gives, keeps serving, and answers on the engine connection what a thread cannot', async () => {
    const s = await storage(1);
    try {
      await expect(s.readers.read('SELECT * FROM no_such_table', [])).rejects.toThrow(/no such table: no_such_table/);
      await expect(s.readers.read("INSERT INTO fts_deleted (idx, rows, tokens) VALUES ('x', 0, 0) RETURNING idx", [])).rejects.toThrow(/readonly database/);
      expect(await s.readers.read(SLOW, [3])).toEqual([{ c: 3 }]);
      // a statement the threads cannot run (a function only the engine connection has) is answered there
      s.db.function('only_on_the_engine_connection', () => 7);
      const stmt = s.db.prepare('SELECT only_on_the_engine_connection() AS v');
      await expect(s.readers.read(stmt.source, [])).rejects.toThrow(/no such function: only_on_the_engine_connection/);
      expect(await s.readers.run(stmt, [])).toEqual([{ v: 7 }]);
    } finally {
      await s.close();
    }
  });
});
