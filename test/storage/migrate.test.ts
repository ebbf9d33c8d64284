// Migrating a real profile from SQLite to PostgreSQL: a profile indexed and embedded by the engine
// (Markdown, Japanese, HTML, with a token, a pause and a dataset folder) is copied with its ids,
// counted on both sides, and answers the same on PostgreSQL: documents by path and docid, keyword
// search with the same ranks, nearest chunks to a real query vector. An interrupted copy resumes
// without duplicating anything; a database holding another index is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { parseQuery } from '../../src-main/engine/search/query.js';
import { indexTerm } from '../../src-main/engine/text/terms.js';
import { rebuildKeywordRows } from '../../src-main/engine/ingest/keyword-rebuild.js';
import { migrateToPostgres as migrateWith } from '../../src-main/engine/store/migrate/to-postgres.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
/** The migration as `trove migrate` runs it: keyword rows made again by the indexer's own preparation. */
const migrateToPostgres = (opts: Omit<Parameters<typeof migrateWith>[0], 'rebuildKeywordRows'>) => migrateWith({ ...opts, rebuildKeywordRows: (d, text, chunks) => rebuildKeywordRows(d, text, chunks) });
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { PlannedKeywordTerm, Storage } from '../../src-main/engine/store/storage.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const FILES: Record<string, string> = {
  'resilience.md': '# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds.\n',
  'cells.md': '# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP.\n',
  'tokyo.md': '# 東京\n\n東京の天気は晴れです。全文検索の例。\n',
  'page.html': '<html><head><title>Bread</title></head><body><h1>Bread</h1><p>Knead the dough and let it rise.</p><h2>Baking</h2><p>Bake for forty minutes.</p></body></html>',
};

let profile: string;
let sqliteFile: string;

beforeAll(async () => {
  const root = tempDir('trove-migrate-root-');
  writeTree(root, FILES);
  profile = tempDir('trove-migrate-profile-');
  const engine = await Engine.open({ profileDir: profile, embeddings: { modelsDir, workers: 1 } });
  try {
    await engine.addCollection({ root, name: 'notes' });
    await engine.index();
    await engine.embed();
    await engine.createToken({ name: 'reader', collections: ['notes'], tools: ['search'] });
    await engine.pause('notes');
    await engine.datasets.addFolder(tempDir('trove-migrate-datasets-'));
    await engine.memory.store({ threadId: 'planning', source: 'user', text: 'Ship the migration on Friday.', tags: ['release', 'plan'], metadata: { status: 'open', priority: 2 } });
    await engine.memory.store({ threadId: 'planning', source: 'agent', text: 'A diagram of the rollout.', images: [{ data: Buffer.from('not really a png').toString('base64') }] });
    await engine.memory.search({ query: 'migration', mode: 'keyword' });
  } finally {
    await engine.close();
  }
  sqliteFile = databasePath(profile);
});

const opened: Storage[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
  removeTempDirs();
});

async function terms(s: Storage, query: string): Promise<PlannedKeywordTerm[]> {
  const parsed = parseQuery(query, 'match');
  if (parsed.kind !== 'terms') throw new Error('terms expected');
  return Promise.all(
    parsed.terms.map(async (t) => {
      const term = { text: t.token.text, term: indexTerm(t.token), prefix: false };
      return { ...term, df: await s.keyword('chunks_fts').documentFrequency(term) };
    }),
  );
}

describe('trove migrate --to postgres', () => {
  it('copies the profile with its ids, counts every table on both sides, and answers the same', async () => {
    const url = await freshDatabase('migrate');
    const seen: string[] = [];
    const report = await migrateToPostgres({ sqliteFile, url, onProgress: (p) => seen.push(p.table) });
    for (const c of report.counts) expect(c.postgres, c.what).toBe(c.sqlite);
    expect(report.counts.find((c) => c.what === 'documents')?.sqlite).toBe(6); // four files, two memory entries
    expect(report.counts.find((c) => c.what === 'memory_tags')?.sqlite).toBe(2);
    expect(report.counts.find((c) => c.what === 'memory_images')?.sqlite).toBe(1);
    expect(report.counts.find((c) => c.what === 'chunks_fts rows')?.sqlite).toBeGreaterThan(4);
    expect(report.counts.filter((c) => c.what.startsWith('vectors in space')).every((c) => c.sqlite > 0)).toBe(true);
    expect(seen).toContain('keyword index');
    expect(report.approximateKeywordDocuments).toBe(1); // the HTML page: its stored text is not its source

    const lite: Storage = SqliteStorage.open(sqliteFile);
    const pg = await PostgresStorage.open(url);
    opened.push(lite, pg);
    const [a, b] = [(await lite.collections.list())[0]!, (await pg.collections.list())[0]!];
    expect(b).toEqual(a);
    expect(await pg.documents.indexedDocuments(b.id)).toEqual(await lite.documents.indexedDocuments(a.id));
    const doc = (await lite.documents.byPath(a.id, 'resilience.md'))!;
    expect(await pg.chunks.forDocument(doc.id)).toEqual(await lite.chunks.forDocument(doc.id));
    expect(await pg.documents.content(doc.id)).toBe(await lite.documents.content(doc.id));
    expect(await pg.tokens.list()).toEqual(await lite.tokens.list());
    expect(await pg.jobs.pauses()).toEqual(await lite.jobs.pauses());
    expect(await pg.datasets.folders()).toEqual(await lite.datasets.folders());
    expect((await pg.tokens.list()).map((t) => t.memory)).toEqual(['none']); // scoped to notes: no memory grant
    // memory's rows come across with their ids, metadata as jsonb and image bytes intact
    const memoryRows = 'SELECT e.id, e.thread_id, e.source, e.content_type, d.metadata, d.tags FROM memory_entries e JOIN documents d ON d.id = e.document_id ORDER BY e.id';
    const pgRows = await pg.db.query<Record<string, unknown>>(memoryRows);
    expect(pgRows.map((r) => [r.thread_id, r.source, r.content_type])).toEqual([['planning', 'user', 'text'], ['planning', 'agent', 'multimodal']]);
    expect(pgRows[0]!.metadata).toEqual({ status: 'open', priority: 2 });
    const image = await pg.db.one<{ data: Buffer }>('SELECT data FROM memory_images');
    expect(image!.data.toString()).toBe('not really a png');
    expect(await pg.vectors.collection(b.id)).toEqual(await lite.vectors.collection(a.id));

    // keyword search: the same chunks in the same order with the same BM25 (Markdown and CJK rows are made exactly as indexing does)
    for (const q of ['retries exponential backoff', 'timeouts thirty seconds', 'mitochondria cell', '東京の天気']) {
      const [lt, pt] = [await terms(lite, q), await terms(pg, q)];
      expect(pt.map((t) => t.df), q).toEqual(lt.map((t) => t.df));
      const expected = await lite.keyword('chunks_fts').candidates({ op: 'or', terms: lt }, {}, 20, await lite.keyword('chunks_fts').counts());
      const got = await pg.keyword('chunks_fts').candidates({ op: 'or', terms: pt }, {}, 20, await pg.keyword('chunks_fts').counts());
      expect(got.map((r) => r.chunkId), q).toEqual(expected.map((r) => r.chunkId));
      expect(expected.length).toBeGreaterThan(0);
    }
    // vectors: the nearest chunks to a stored vector are the same on both
    const space = (await lite.vectors.collection(a.id)).activeSpaceId!;
    const probe = (await lite.vectors.vectorOf(space, (await lite.chunks.forDocument(doc.id))[0]!.id))!;
    expect(Array.from((await pg.vectors.vectorOf(space, (await lite.chunks.forDocument(doc.id))[0]!.id))!)).toEqual(Array.from(probe));
    const near = async (s: Storage) => (await s.vectors.nearest(space, probe, [a.id], 4)).map((m) => m.chunkId);
    expect(await near(pg)).toEqual(await near(lite));

    // new rows after the migration get new ids
    const c2 = await pg.collections.insert({ name: 'later', root: '/later', include: [], exclude: [], context: '' });
    expect(c2.id).toBeGreaterThan(b.id);
  });

  it('resumes an interrupted copy without duplicating anything', async () => {
    const url = await freshDatabase('resume');
    let batches = 0;
    const stop = new Error('interrupted');
    await expect(
      migrateToPostgres({
        sqliteFile,
        url,
        onProgress: (p) => {
          if (p.table === 'keyword index' && ++batches === 1) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const report = await migrateToPostgres({ sqliteFile, url });
    for (const c of report.counts) expect(c.postgres, c.what).toBe(c.sqlite);
    expect(report.copied.documents).toBe(0); // copied by the first run
    expect(report.finishedEarlier).toBe(false);
    // a finished copy run again copies nothing and fails on nothing, even after a host has used the
    // database (here: a collection of its own), which it says instead of re-checking the counts
    const pg = await PostgresStorage.open(url);
    opened.push(pg);
    await pg.collections.insert({ name: 'added-by-a-host', root: '/h', include: [], exclude: [], context: '' });
    const again = await migrateToPostgres({ sqliteFile, url });
    expect(again).toMatchObject({ finishedEarlier: true, copied: {} });
    const collections = again.counts.find((c) => c.what === 'collections')!;
    expect(collections.postgres).toBe(collections.sqlite + 1);
  });

  it('runs as `trove migrate --to`: counts as JSON, a bad URL is a usage error, a missing server a failure', async () => {
    ensureBuilt();
    const url = await freshDatabase('cli');
    const ok = await runTrove(['migrate', '--to', url, '--json'], { home: profile });
    expect(ok.code, ok.stderr).toBe(0);
    const report = oneJson<{ target: string; counts: { what: string; sqlite: number; postgres: number }[] }>(ok);
    expect(report.counts.find((c) => c.what === 'documents')).toEqual({ what: 'documents', sqlite: 6, postgres: 6 });
    const human = await runTrove(['migrate', '--to', url], { home: profile }); // run again: a finished copy, nothing left to do
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/already holds a finished copy of this profile; nothing copied/);
    const bad = await runTrove(['migrate', '--to', 'mysql://x/y'], { home: profile });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/postgresql:\/\//);
    const down = await runTrove(['migrate', '--to', 'postgresql://trove@127.0.0.1:1/none'], { home: profile });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach PostgreSQL at postgresql:\/\/trove@127\.0\.0\.1:1\/none/);
  });

  it('refuses a database that holds another index', async () => {
    const url = await freshDatabase('taken');
    const pg = await PostgresStorage.open(url);
    opened.push(pg);
    await pg.collections.insert({ name: 'theirs', root: '/t', include: [], exclude: [], context: '' });
    const err = await migrateToPostgres({ sqliteFile, url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TroveError);
    expect((err as TroveError).code).toBe('CONFLICT');
    expect((err as TroveError).message).toMatch(/already holds an index/);
  });
});
