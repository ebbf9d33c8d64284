// `trove dataset … --database`: the same commands on an index in PostgreSQL, through the real bin,
// against `trove dataset …` on a SQLite profile for the same folder: add (a folder dataset indexed
// into the database), list, search, get and remove answer alike; a second profile (another host)
// sees the folder the first added; a bad folder is the same clear error.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetInfo, DatasetSearchResult } from '../../src-main/engine/index.js';
import { FIXTURES } from '../datasets/fixtures.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

let url: string;
let holder: string;
const homes = { lite: '', a: '', b: '' };
const trove = (home: string, ...args: string[]) => runTrove(args, { home, env: { TROVE_MODELS_DIR: modelsDir, TROVE_DATABASE_URL: '' } });
const lite = (...args: string[]) => trove(homes.lite, ...args);
const pgA = (...args: string[]) => trove(homes.a, ...args, '--database', url);
const pgB = (...args: string[]) => trove(homes.b, ...args, '--database', url);

beforeAll(async () => {
  ensureBuilt();
  url = await freshDatabase('dataset_cli');
  for (const k of ['lite', 'a', 'b'] as const) homes[k] = tempDir(`trove-dscli-${k}-`);
  holder = tempDir('trove-dscli-sets-');
  for (const id of ['ip', 'truncated', 'handbook']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
}, 120_000);
afterAll(removeTempDirs);

const states = (l: DatasetInfo[]) => l.map(({ id, state, reason, kind, documents }) => ({ id, state, reason, kind, documents }));

describe('trove dataset --database', () => {
  it('add indexes the folder dataset into the database and reports what SQLite reports', async () => {
    const [a, l] = await Promise.all([pgA('dataset', 'add', holder, '--json'), lite('dataset', 'add', holder, '--json')]);
    expect(a.code, a.stderr).toBe(0);
    expect(l.code, l.stderr).toBe(0);
    type Added = { folder: string; datasets: DatasetInfo[]; index: { collection: string; added: number }[] };
    const [onPg, onLite] = [oneJson<Added>(a), oneJson<Added>(l)];
    expect(states(onPg.datasets)).toEqual(states(onLite.datasets));
    expect(Object.fromEntries(onPg.datasets.map((d) => [d.id, d.state]))).toEqual({ ip: 'ready', handbook: 'ready', truncated: 'error' });
    expect(onPg.index).toEqual([expect.objectContaining({ collection: '~dataset:handbook', added: 4 })]);
    expect(onPg.folder).toBe(onLite.folder);
  }, 120_000);

  it('list, search and get on another host answer as on SQLite', async () => {
    const [b, l] = await Promise.all([pgB('dataset', 'list', '--json'), lite('dataset', 'list', '--json')]);
    expect(b.code, b.stderr).toBe(0);
    const listed = oneJson<{ datasets: DatasetInfo[]; folders: string[] }>(b);
    expect(states(listed.datasets)).toEqual(states(oneJson<{ datasets: DatasetInfo[] }>(l).datasets));
    expect(listed.folders.slice(1)).toEqual([fs.realpathSync(holder)]);
    for (const args of [
      ['handbook', 'lost', 'badge', '--mode', 'keyword'],
      ['ip', 'how do I fix a flat tire'],
    ]) {
      const [pgR, liteR] = await Promise.all([pgB('dataset', 'search', ...args, '--json'), lite('dataset', 'search', ...args, '--json')]);
      expect(pgR.code, pgR.stderr).toBe(0);
      const strip = (r: DatasetSearchResult) => r.results.map((h) => ({ ref: h.ref, title: h.title, score: Math.round(h.score * 1000) / 1000, snippet: h.snippet }));
      expect(strip(oneJson<DatasetSearchResult>(pgR))).toEqual(strip(oneJson<DatasetSearchResult>(liteR)));
    }
    const [doc, liteDoc] = await Promise.all([pgB('dataset', 'get', 'handbook', 'security.md', '--json'), lite('dataset', 'get', 'handbook', 'security.md', '--json')]);
    expect(doc.code, doc.stderr).toBe(0);
    expect(oneJson(doc)).toEqual(oneJson(liteDoc));
  }, 120_000);

  it('a bad folder or ref is the same clear error; remove drops the folder for every host', async () => {
    const nowhere = path.join(holder, 'nowhere');
    const [bad, liteBad] = await Promise.all([pgA('dataset', 'add', nowhere), lite('dataset', 'add', nowhere)]);
    expect(bad.code).toBe(liteBad.code);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toBe(liteBad.stderr);
    const [ref, liteRef] = await Promise.all([pgB('dataset', 'get', 'handbook', 'nope.md'), lite('dataset', 'get', 'handbook', 'nope.md')]);
    expect(ref.code).not.toBe(0);
    expect(ref.stderr).toBe(liteRef.stderr);
    const removed = await pgB('dataset', 'remove', holder);
    expect(removed.code, removed.stderr).toBe(0);
    const after = await pgA('dataset', 'list', '--json');
    expect(oneJson<{ datasets: DatasetInfo[] }>(after).datasets).toEqual([]);
    // the folder dataset's collection and its index went with it: no host watches or indexes it any more
    const status = await pgA('status', '--json');
    expect(status.code, status.stderr).toBe(0);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query("SELECT name FROM collections WHERE kind = 'dataset'")).rows).toEqual([]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
