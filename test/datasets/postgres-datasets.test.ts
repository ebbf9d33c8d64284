// Registered datasets on PostgreSQL, against the SQLite engine's answers for the same fixtures:
// two hosts (each its own profile, SharedApp: SharedIndex + SharedIndexer, watching and embedding)
// on one database. The folder of fixtures added on one host is a folder of datasets on both (the
// database's dataset_folders, NOTIFY); the folder dataset is indexed once through the shared job
// queue and embedded there; FAISS datasets load from files on each host. Lists, states and
// reasons, keyword / hybrid / semantic / FAISS searches, documents, knowledge.search and
// knowledge.get answer as SQLite's do; a bad folder is the same error; removing the folder on
// one host drops its datasets on both. Real PostgreSQL, the real model.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, openSharedAppHost, type AppIndex, type DatasetInfo, type DatasetSearchResult } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';
import { until as eventually } from '../helpers/until.js';

/** until() with what it waits for first, as these tests read. */
const until = <T>(what: string, ask: () => Promise<T>, done: (v: T) => boolean) => eventually(ask, done, 90_000, what);

const QUESTION = 'how do I fix a flat tire on my bike';
const embeddings = { modelsDir, workers: 1 };

let lite: Engine;
let a: AppIndex;
let b: AppIndex;
let url: string;

/** What two hosts must agree on (the time of the last change and the manifest's host-specific paths aside). */
const comparable = (list: readonly DatasetInfo[]) =>
  list.map(({ id, name, state, reason, kind, model, documents, indexType, dims, scoring, defaultTopK, folder, warnings }) => ({
    id,
    name,
    state,
    reason,
    kind,
    model,
    documents,
    indexType,
    dims,
    scoring,
    defaultTopK,
    folder,
    warnings,
  }));

const hits = (r: DatasetSearchResult) => ({
  mode: r.mode,
  datasetSize: r.datasetSize,
  hasMore: r.hasMore,
  results: r.results.map((h) => ({ ...h, score: Math.round(h.score * 1000) / 1000, similarity: h.similarity === null ? null : Math.round(h.similarity * 1000) / 1000, evidence: undefined })),
});

beforeAll(async () => {
  url = await freshDatabase('datasets');
  lite = await Engine.open({ profileDir: tempDir('trove-ds-lite-'), embeddings });
  await lite.datasets.addFolder(FIXTURES);
  await lite.datasets.settled();
  await lite.index({ dataset: 'handbook' });
  await lite.embed();
  const quiet = () => undefined;
  a = await openSharedAppHost(url, { profileDir: tempDir('trove-ds-pg-a-'), embeddings }, { log: quiet });
  b = await openSharedAppHost(url, { profileDir: tempDir('trove-ds-pg-b-'), embeddings }, { log: quiet });
  await a.startWatching();
  await b.startWatching();
}, 240_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), lite?.close()]);
  removeTempDirs();
});

describe('a folder of datasets added on one PostgreSQL host', () => {
  it('is a folder of datasets on both hosts, each in the state and with the reason SQLite gives', async () => {
    const found = await a.datasets.addFolder(FIXTURES);
    expect(found.map((d) => d.id).sort()).toEqual((await lite.datasets.list()).map((d) => d.id).sort());
    expect(await b.datasets.folders()).toEqual([FIXTURES]);
    const ready = (l: DatasetInfo[]) => l.find((d) => d.id === 'handbook')?.state === 'ready';
    const onB = await until('handbook Ready on host B', async () => (await b.datasets.settled(), await b.datasets.list()), ready);
    const onA = await until('handbook Ready on host A', async () => (await a.datasets.settled(), await a.datasets.list()), ready);
    const expected = comparable(await lite.datasets.list());
    expect(comparable(onB)).toEqual(expected);
    expect(comparable(onA)).toEqual(expected);
    expect(onB.find((d) => d.id === 'truncated')).toMatchObject({ state: 'error', reason: expect.stringMatching(/^index\.faiss cannot be read: the file is truncated/) });
    // the app's list call and status say the same
    expect(comparable((await b.status()).datasets)).toEqual(expected);
  }, 120_000);

  it('indexes the folder dataset once for both hosts and searches it as SQLite does: keyword, hybrid once embedded, semantic', async () => {
    const keyword = await b.datasets.search('handbook', 'lost badge', { mode: 'keyword' });
    expect(hits(keyword)).toEqual(hits(await lite.datasets.search('handbook', 'lost badge', { mode: 'keyword' })));
    expect(keyword.results[0]).toMatchObject({ ref: 'security.md', title: 'Security' });
    const hybridLite = hits(await lite.datasets.search('handbook', 'when are travel receipts due'));
    expect(hybridLite.mode).toBe('hybrid');
    // embedded in the background by a host's embedding loop, then hybrid by default as on SQLite
    await until(
      'hybrid answers equal to SQLite',
      async () => hits(await a.datasets.search('handbook', 'when are travel receipts due')),
      (r) => JSON.stringify(r) === JSON.stringify(hybridLite),
    );
    const semantic = { mode: 'semantic' as const, topK: 2 };
    expect(hits(await b.datasets.search('handbook', 'time off', semantic))).toEqual(hits(await lite.datasets.search('handbook', 'time off', semantic)));
    expect(await b.datasets.document('handbook', 'security.md')).toEqual(await lite.datasets.document('handbook', 'security.md'));
    const missing = await troveErrorAsync(() => b.datasets.document('handbook', 'nope.md'));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: (await troveErrorAsync(() => lite.datasets.document('handbook', 'nope.md'))).message });
    // the folder dataset's documents never show in document search
    expect((await b.search({ query: 'badge' })).results).toEqual([]);
  }, 120_000);

  it('loads FAISS datasets from files on each host and finds what SQLite finds', async () => {
    for (const id of ['ip', 'l2', 'hnsw']) {
      const [pg, sqlite] = [await b.datasets.search(id, QUESTION, { topK: 5 }), await lite.datasets.search(id, QUESTION, { topK: 5 })];
      expect(hits(pg), id).toEqual(hits(sqlite));
    }
    expect(await a.datasets.document('ip', '2')).toEqual(await lite.datasets.document('ip', '2'));
    const broken = await troveErrorAsync(() => b.datasets.search('truncated', 'x'));
    expect(broken).toMatchObject({ code: 'UNAVAILABLE', message: (await troveErrorAsync(() => lite.datasets.search('truncated', 'x'))).message });
  });

  it('knowledge.search and knowledge.get over datasets answer as on SQLite', async () => {
    const ask = { query: QUESTION, sources: ['datasets'], limit: 8 };
    const ids = (r: { results: { id: string }[] }) => r.results.map((x) => x.id);
    const [pg, sqlite] = [await b.knowledge.search(ask), await lite.knowledge.search(ask)];
    expect(ids(pg)).toEqual(ids(sqlite));
    expect(pg.sources.map((s) => [s.source, s.mode])).toEqual(sqlite.sources.map((s) => [s.source, s.mode]));
    const folder = { query: 'lost badge', sources: ['datasets:handbook'], mode: 'keyword' as const };
    const hit = (await b.knowledge.search(folder)).results[0]!;
    expect(hit.id).toBe((await lite.knowledge.search(folder)).results[0]!.id);
    const got = await b.knowledge.get({ source: 'datasets', id: hit.id, loc: hit.loc!, retrieval: { mode: 'chunk' } });
    expect(got.content).toBe((await lite.knowledge.get({ source: 'datasets', id: hit.id, loc: hit.loc!, retrieval: { mode: 'chunk' } })).content);
    const sources = await b.knowledge.sources();
    expect(sources.filter((s) => s.source.startsWith('datasets')).map((s) => [s.source, s.unavailable ?? null])).toEqual(
      (await lite.knowledge.sources()).filter((s) => s.source.startsWith('datasets')).map((s) => [s.source, s.unavailable ?? null]),
    );
  });

  it('a bad folder is the same clear error as on SQLite, and nothing is added', async () => {
    const nowhere = path.join(FIXTURES, 'nowhere');
    const pg = await troveErrorAsync(() => a.datasets.addFolder(nowhere));
    expect(pg).toMatchObject({ code: 'IO', message: (await troveErrorAsync(() => lite.datasets.addFolder(nowhere))).message });
    const own = await troveErrorAsync(() => a.datasets.addFolder(a.datasets.profileFolder()));
    expect(own.code).toBe('CONFLICT');
    const unknown = await troveErrorAsync(() => b.datasets.removeFolder(nowhere));
    expect(unknown.code).toBe('NOT_FOUND');
    expect(await a.datasets.folders()).toEqual([FIXTURES]);
  });

  it('a folder another machine added that this host cannot read holds nothing here: no crash, the other datasets serve on', async () => {
    const elsewhere = '/mnt/another-machine/datasets';
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await db.query('INSERT INTO dataset_folders (path, added_at) VALUES ($1, $2)', [elsewhere, Date.now()]);
      expect(await b.datasets.folders()).toEqual([FIXTURES, elsewhere]);
      expect(comparable(await b.datasets.list())).toEqual(comparable(await lite.datasets.list()));
      expect((await b.datasets.search('ip', QUESTION, { topK: 1 })).results[0]).toMatchObject({ path: 'repairs/bike-tire.md' });
    } finally {
      await db.query('DELETE FROM dataset_folders WHERE path = $1', [elsewhere]);
      await db.end();
    }
  });

  it("counts a folder dataset's documents again when some host announces a change, not on every call", async () => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const count = async () => (await b.datasets.list()).find((d) => d.id === 'handbook')!.documents;
    const before = await count();
    const collection = (await db.query<{ id: string }>("SELECT id FROM collections WHERE kind = 'dataset'")).rows[0]!.id;
    try {
      await db.query("INSERT INTO documents (collection_id, path, docid, size, mtime_ms, indexed_at, status) VALUES ($1, 'ghost.md', 'ghost0', 1, 0, 0, 'indexed')", [collection]);
      // a row no host announced: the counts in hand answer, with no round trip per dataset
      expect(await count()).toBe(before);
      expect((await b.datasets.search('handbook', 'lost badge', { mode: 'keyword' })).datasetSize).toBe(before);
      await db.query("SELECT pg_notify('trove_changes', $1)", [`another-host:${collection}`]);
      await until('host B counts again', count, (n) => n === before + 1);
      expect((await b.datasets.search('handbook', 'lost badge', { mode: 'keyword' })).datasetSize).toBe(before + 1);
    } finally {
      await db.query("DELETE FROM documents WHERE docid = 'ghost0'");
      await db.query("SELECT pg_notify('trove_changes', 'another-host:')");
      await db.end();
    }
    await until('host B counts the row gone', count, (n) => n === before);
  });

  it('removing the folder on one host drops its datasets, and the folder dataset\'s index, on both', async () => {
    await b.datasets.removeFolder(FIXTURES);
    expect(await b.datasets.list()).toEqual([]);
    await until('host A hears of it', () => a.datasets.list(), (l) => l.length === 0);
    expect(await a.datasets.folders()).toEqual([]);
    await expect(a.datasets.search('handbook', 'badge')).rejects.toThrow(/no dataset "handbook"/);
  });

  it("a folder one host stops seeing for a while (an unmounted share) keeps its folder dataset's index for every host", async () => {
    const share = path.join(tempDir('trove-ds-share-'), 'share');
    fs.cpSync(path.join(FIXTURES, 'datasets', 'handbook'), path.join(share, 'handbook'), { recursive: true });
    await a.datasets.addFolder(share);
    const ready = (l: readonly DatasetInfo[]) => l.some((d) => d.id === 'handbook' && d.state === 'ready');
    await until('ready on host A', () => a.datasets.reload(), ready);
    await until('ready on host B', () => b.datasets.reload(), ready);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const indexed = async () => (await db.query<{ name: string; docs: string }>("SELECT c.name, (SELECT count(*) FROM documents d WHERE d.collection_id = c.id) AS docs FROM collections c WHERE c.kind = 'dataset'")).rows;
      const before = await indexed();
      expect(before.length).toBe(1);
      fs.renameSync(share, `${share}-unmounted`);
      expect((await b.datasets.reload()).map((d) => d.id)).not.toContain('handbook'); // host B cannot see it now
      expect(await indexed()).toEqual(before); // but its index is the other hosts' too: kept
      fs.renameSync(`${share}-unmounted`, share);
      expect((await b.datasets.reload()).find((d) => d.id === 'handbook')).toMatchObject({ state: 'ready' }); // back at once, not indexed again
      expect(await indexed()).toEqual(before);
    } finally {
      await db.end();
    }
    await a.datasets.removeFolder(share);
    await until('host B drops it', () => b.datasets.reload(), (l) => l.length === 0);
  }, 120_000);
});

describe("a manifest as the spec shows it (no model), in a PostgreSQL host's project root", () => {
  it('is found there, its model inferred (dataset_checks in the database), and it searches as on SQLite', async () => {
    const project = tempDir('trove-ds-project-');
    const ip = path.join(FIXTURES, 'datasets', 'ip');
    const spec = { id: 'cherry-docs', name: 'Cherry docs', description: 'The spec example', index: './datasets/docs/cherry-docs/docs.index', metadata: './datasets/docs/cherry-docs/metadata.json' };
    fs.mkdirSync(path.join(project, 'datasets', 'docs', 'cherry-docs'), { recursive: true });
    fs.writeFileSync(path.join(project, 'datasets', 'docs', 'cherry-docs', 'manifest.json'), JSON.stringify(spec));
    fs.cpSync(path.join(ip, 'docs.index'), path.join(project, 'datasets', 'docs', 'cherry-docs', 'docs.index'), { recursive: true });
    fs.copyFileSync(path.join(ip, 'metadata.json'), path.join(project, 'datasets', 'docs', 'cherry-docs', 'metadata.json'));
    fs.mkdirSync(path.join(project, 'datasets', 'narrow'));
    fs.writeFileSync(path.join(project, 'datasets', 'narrow', 'manifest.json'), JSON.stringify({ ...spec, id: 'narrow', index: './dims-mismatch/index.faiss', metadata: './datasets/docs/cherry-docs/metadata.json' }));
    fs.cpSync(path.join(FIXTURES, 'datasets', 'dims-mismatch', 'index.faiss'), path.join(project, 'dims-mismatch', 'index.faiss'));
    const projectLite = Engine.open({ profileDir: tempDir('trove-ds-project-lite-'), embeddings, datasets: { projectRoot: project } });
    const c = await openSharedAppHost(url, { profileDir: tempDir('trove-ds-pg-c-'), embeddings, datasets: { projectRoot: project } }, { log: () => undefined });
    try {
      const expected = (await projectLite.datasets.settled()).map((d) => ({ ...comparable([d])[0], modelInferred: d.modelInferred }));
      expect(expected.map((d) => [d.id, d.state, d.model, d.modelInferred])).toEqual([
        ['cherry-docs', 'ready', 'all-MiniLM-L6-v2', true],
        ['narrow', 'invalid', null, false],
      ]);
      const onPg = (await c.datasets.settled()).map((d) => ({ ...comparable([d])[0], modelInferred: d.modelInferred }));
      expect(onPg).toEqual(expected);
      expect(hits(await c.datasets.search('cherry-docs', QUESTION, { topK: 3 }))).toEqual(hits(await projectLite.datasets.search('cherry-docs', QUESTION, { topK: 3 })));
      // the other hosts have no such project root: the dataset is this host's own
      expect((await b.datasets.list()).map((d) => d.id)).not.toContain('cherry-docs');
    } finally {
      await Promise.all([c.close(), projectLite.close()]);
    }
  }, 180_000);
});
