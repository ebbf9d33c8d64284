// Registered datasets shared by two hosts on one PostgreSQL database (two engines opened with
// `database`, each with its own profile, watching and embedding in the background). PostgreSQL
// only: one SQLite file has one host. A folder of datasets added on one host is a folder of
// datasets on both (dataset_folders, the change notice); its folder dataset is indexed once, for
// both, and embedded by a host's background stage; FAISS datasets load from files on each host; a
// folder another machine added that this host cannot read holds nothing here; counts follow other
// hosts' notices, not every call; removing the folder on one host drops its datasets on both; a
// folder one host stops seeing for a while keeps its folder dataset's index for every host. What
// one host's registry does is the matrix tests' (registry, knowledge-datasets, hot-reload).
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type DatasetInfo, type DatasetSearchResult } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { until as eventually } from '../helpers/until.js';
import { FIXTURES } from './fixtures.js';

/** until() with what it waits for first, as these tests read. */
const until = <T>(what: string, ask: () => Promise<T>, done: (v: T) => boolean) => eventually(ask, done, 90_000, what);

const QUESTION = 'how do I fix a flat tire on my bike';
const IDS = ['handbook', 'hnsw', 'ip', 'l2', 'truncated'];

let url: string;
let a: Engine;
let b: Engine;
let db: pg.Client;
let holder: string;

/** What two hosts must agree on (the time of the last change and each host's manifest paths aside). */
const comparable = (list: readonly DatasetInfo[]) =>
  list.map(({ id, name, state, reason, kind, model, documents, indexType, dims, scoring, defaultTopK, folder, warnings }) => ({ id, name, state, reason, kind, model, documents, indexType, dims, scoring, defaultTopK, folder, warnings }));

const hits = (r: DatasetSearchResult) => ({ mode: r.mode, datasetSize: r.datasetSize, refs: r.results.map((h) => h.ref), scores: r.results.map((h) => Math.round(h.score * 1000) / 1000) });

async function host(name: string): Promise<Engine> {
  // catchUpChunks 0: a search embeds nothing by itself, so the vectors found are a host's background stage's
  return Engine.open({ profileDir: tempDir(`trove-ds-host-${name}-`), database: url, embeddings: { modelsDir, workers: 1, auto: true, catchUpChunks: 0 } });
}

beforeAll(async () => {
  url = await freshDatabase('dataset_hosts', { migrated: true });
  db = new pg.Client({ connectionString: url });
  await db.connect();
  holder = tempDir('trove-ds-hosts-');
  for (const id of IDS) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
  [a, b] = [await host('a'), await host('b')];
  await a.startWatching();
  await b.startWatching();
}, 120_000);

afterAll(async () => {
  await db?.end();
  await Promise.all([a?.close(), b?.close()]);
  removeTempDirs();
});

const ready = (id: string) => (l: readonly DatasetInfo[]) => l.find((d) => d.id === id)?.state === 'ready';

describe('a folder of datasets added on one host', () => {
  it('is a folder of datasets on both hosts, in the same states with the same reasons', async () => {
    const found = await a.datasets.addFolder(holder);
    expect(found.map((d) => d.id).sort()).toEqual(IDS);
    expect(await b.datasets.folders()).toEqual([holder]);
    const onB = await until('handbook ready on host B', async () => (await b.datasets.settled(), await b.datasets.list()), ready('handbook'));
    const onA = await until('handbook ready on host A', async () => (await a.datasets.settled(), await a.datasets.list()), ready('handbook'));
    expect(comparable(onA)).toEqual(comparable(onB));
    expect(onB.find((d) => d.id === 'handbook')).toMatchObject({ kind: 'folder', documents: 4, folder: holder });
    expect(onB.find((d) => d.id === 'ip')).toMatchObject({ state: 'ready', kind: 'faiss', documents: 24 });
    expect(onB.find((d) => d.id === 'truncated')).toMatchObject({ state: 'error', reason: expect.stringMatching(/^index\.faiss cannot be read: the file is truncated/) });
    expect(comparable((await b.status()).datasets)).toEqual(comparable(onB));
  }, 120_000);

  it('indexes the folder dataset once, for both hosts, embedded in the background by a host: keyword, hybrid, semantic alike on both', async () => {
    const collections = await db.query<{ docs: string }>("SELECT (SELECT count(*) FROM documents d WHERE d.collection_id = c.id) AS docs FROM collections c WHERE c.kind = 'dataset'");
    expect(collections.rows).toEqual([{ docs: '4' }]); // one collection, its four documents once
    const keyword = await b.datasets.search('handbook', 'lost badge', { mode: 'keyword' });
    expect(keyword.results[0]).toMatchObject({ ref: 'security.md', title: 'Security' });
    expect(hits(await a.datasets.search('handbook', 'lost badge', { mode: 'keyword' }))).toEqual(hits(keyword));
    const hybrid = await until('the folder dataset embedded: hybrid on host A', () => a.datasets.search('handbook', 'when are travel receipts due'), (r) => r.mode === 'hybrid');
    expect(hybrid.results[0]).toMatchObject({ ref: 'expenses.md' });
    expect(hits(await b.datasets.search('handbook', 'when are travel receipts due'))).toEqual(hits(hybrid));
    const semantic = await b.datasets.search('handbook', 'time off', { mode: 'semantic', topK: 1 });
    expect(semantic).toMatchObject({ mode: 'semantic', results: [{ ref: 'holidays.md' }] });
    expect(await b.datasets.document('handbook', 'security.md')).toEqual(await a.datasets.document('handbook', 'security.md'));
    expect((await troveErrorAsync(() => b.datasets.document('handbook', 'nope.md'))).code).toBe('NOT_FOUND');
    expect((await b.search({ query: 'badge' })).results).toEqual([]); // a dataset's documents never show in document search
  }, 120_000);

  it('loads the FAISS datasets from files on each host', async () => {
    for (const e of [a, b]) {
      expect((await e.datasets.search('ip', QUESTION, { topK: 1 })).results[0]).toMatchObject({ path: 'repairs/bike-tire.md' });
      expect((await troveErrorAsync(() => e.datasets.search('truncated', 'x'))).code).toBe('UNAVAILABLE');
    }
  });

  it('a folder another machine added that this host cannot read holds nothing here: no crash, the other datasets serve on', async () => {
    const elsewhere = '/mnt/another-machine/datasets';
    const before = comparable(await b.datasets.list());
    await db.query('INSERT INTO dataset_folders (path, added_at) VALUES ($1, $2)', [elsewhere, Date.now()]);
    try {
      expect(await b.datasets.folders()).toEqual([holder, elsewhere]);
      expect(comparable(await b.datasets.list())).toEqual(before);
      expect((await b.datasets.search('ip', QUESTION, { topK: 1 })).results[0]).toMatchObject({ path: 'repairs/bike-tire.md' });
    } finally {
      await db.query('DELETE FROM dataset_folders WHERE path = $1', [elsewhere]);
    }
  });

  it("counts a folder dataset's documents again when some host announces a change, not on every call", async () => {
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
    }
    await until('host B counts the row gone', count, (n) => n === before);
  });

  it("removing the folder on one host drops its datasets, and the folder dataset's index, on both", async () => {
    await b.datasets.removeFolder(holder);
    expect(await b.datasets.list()).toEqual([]);
    await until('host A hears of it', () => a.datasets.list(), (l) => l.length === 0);
    expect(await a.datasets.folders()).toEqual([]);
    await expect(a.datasets.search('handbook', 'badge')).rejects.toThrow(/no dataset "handbook"/);
    await until("the folder dataset's collection dropped", async () => (await db.query<{ n: string }>("SELECT count(*) AS n FROM collections WHERE kind = 'dataset'")).rows[0]!.n, (n) => n === '0');
  });
});

describe('a folder one host stops seeing for a while (an unmounted share)', () => {
  it("keeps its folder dataset's index for every host, and is back at once when it returns", async () => {
    const share = path.join(tempDir('trove-ds-share-'), 'share');
    fs.cpSync(path.join(FIXTURES, 'datasets', 'handbook'), path.join(share, 'handbook'), { recursive: true });
    await a.datasets.addFolder(share);
    await until('ready on host A', () => a.datasets.reload(), ready('handbook'));
    await until('ready on host B', () => b.datasets.reload(), ready('handbook'));
    const indexed = async () => (await db.query<{ name: string; docs: string }>("SELECT c.name, (SELECT count(*) FROM documents d WHERE d.collection_id = c.id) AS docs FROM collections c WHERE c.kind = 'dataset'")).rows;
    const before = await indexed();
    expect(before).toEqual([{ name: '~dataset:handbook', docs: '4' }]);
    fs.renameSync(share, `${share}-unmounted`);
    expect((await b.datasets.reload()).map((d) => d.id)).not.toContain('handbook'); // host B cannot see it now
    expect(await indexed()).toEqual(before); // but its index is the other hosts' too: kept
    fs.renameSync(`${share}-unmounted`, share);
    expect((await b.datasets.reload()).find((d) => d.id === 'handbook')).toMatchObject({ state: 'ready' }); // back at once, not indexed again
    expect(await indexed()).toEqual(before);
    await a.datasets.removeFolder(share);
    await until('host B drops it', () => b.datasets.reload(), (l) => l.length === 0);
  }, 120_000);
});
