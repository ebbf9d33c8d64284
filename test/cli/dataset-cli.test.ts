// `trove dataset …` and the datasets in `trove status`, through the real bin in child processes,
// on both backends: on PostgreSQL every command takes --database, the added folders are the
// database's and a folder dataset is indexed into it. There, another host (another profile on the
// same database) sees the folder the first one added, and a remove drops it for every host.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetInfo, DatasetSearchResult, StatusReport } from '../../src-main/engine/index.js';
import { FIXTURES } from '../datasets/fixtures.js';
import { modelsDir } from '../embed/models-dir.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import { describeBackends } from '../helpers/backends.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

afterAll(removeTempDirs);

describeBackends('trove dataset', (b) => {
  let home: string;
  /** A few of the fixtures (the CLI loads them in every command: the model-mismatch one would start a second model). */
  let holder: string;
  /** The database on PostgreSQL (undefined on SQLite: the profile's file). */
  let database: string | undefined;
  const at = (profile: string, args: string[]) => runTrove(database ? [...args, '--database', database] : args, { home: profile, env: { TROVE_MODELS_DIR: modelsDir, TROVE_DATABASE_URL: '' } });
  const trove = (...args: string[]) => at(home, args);

  beforeAll(async () => {
    ensureBuilt();
    home = tempDir('trove-cli-home-');
    holder = tempDir('trove-cli-datasets-');
    for (const id of ['ip', 'truncated', 'unsupported', 'dims-mismatch', 'handbook']) {
      fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
    }
    database = b.name === 'postgres' ? await freshDatabase('dataset_cli', { migrated: true }) : undefined;
  });

  describe('the commands', () => {
    it('add: finds the manifests, loads them, indexes folder datasets, and says what state each is in', async () => {
      const r = await trove('dataset', 'add', holder, '--json');
      expect(r.code, r.stderr).toBe(0);
      const out = oneJson<{ datasets: DatasetInfo[]; index: { collection: string; added: number }[] }>(r);
      const state = Object.fromEntries(out.datasets.map((d) => [d.id, d.state]));
      expect(state).toEqual({ ip: 'ready', handbook: 'ready', truncated: 'error', 'dims-mismatch': 'error', unsupported: 'error' });
      expect(out.index).toEqual([expect.objectContaining({ collection: '~dataset:handbook', added: 4 })]);
    });

    it('list: the human form shows each state and the reason of every bad one', async () => {
      const r = await trove('dataset', 'list');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^ip {2}\[ready\] {2}Household guides \(IP\)\n {2}FAISS IndexFlatIP, 24 vectors of 384 dims, model all-MiniLM-L6-v2; top 3$/m);
      expect(r.stdout).toMatch(/^unsupported {2}\[error\] {2}Unsupported index type\n.*\n.*\n {2}error: unsupported FAISS index type IndexIVFFlat/m);
      expect(r.stdout).toMatch(/^handbook {2}\[ready\] {2}Staff handbook\n {2}folder .*handbook\/docs, 4 documents; top 5$/m);
    });

    it('status shows every dataset with its state and reason, in text and JSON', async () => {
      const json = await trove('status', '--json');
      expect(json.code, json.stderr).toBe(0);
      const s = oneJson<StatusReport>(json);
      expect(s.datasets.find((d) => d.id === 'dims-mismatch')).toMatchObject({ state: 'error', reason: expect.stringMatching(/^model mismatch: the index holds 128-dimension vectors/) });
      expect(s.datasets.find((d) => d.id === 'ip')).toMatchObject({ state: 'ready', reason: null });
      expect(s.collections).toEqual([]); // a folder dataset is not one of the user's collections
      const text = await trove('status');
      expect(text.stdout).toMatch(/^Datasets: 5$/m);
      expect(text.stdout).toMatch(/^truncated {2}\[error\].*\n(.*\n){2} {2}error: index\.faiss cannot be read: the file is truncated/m);
    });

    it('search and get: a FAISS dataset by its vectors, a folder dataset by keyword', async () => {
      const r = await trove('dataset', 'search', 'ip', 'how', 'do', 'I', 'fix', 'a', 'flat', 'tire', '--top-k', '2', '--json');
      expect(r.code, r.stderr).toBe(0);
      const res = oneJson<DatasetSearchResult>(r);
      expect(res).toMatchObject({ dataset: 'ip', mode: 'semantic', datasetSize: 24 });
      expect(res.results.map((h) => h.path)[0]).toBe('repairs/bike-tire.md');
      const human = await trove('dataset', 'search', 'handbook', 'receipts');
      expect(human.stdout).toMatch(/^1\. Expenses {2}\(expenses\.md; ref expenses\.md\) {2}score 1\.00\n {3}# Expenses Submit travel receipts/m);
      expect(human.stderr).toMatch(/note: dataset "handbook" has no vectors yet/);
      const doc = await trove('dataset', 'get', 'ip', res.results[0]!.ref);
      expect(doc.stdout).toMatch(/^==> ip:2 Fixing a flat bicycle tire \(repairs\/bike-tire\.md\) <==\nTake the wheel off/);
    });

    it('bad input: usage errors exit 2, unusable datasets exit 1, each with the reason', async () => {
      const unknown = await trove('dataset', 'search', 'nope', 'x');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toBe('trove: no dataset "nope" (datasets: dims-mismatch, handbook, ip, truncated, unsupported)\n');
      const broken = await trove('dataset', 'search', 'truncated', 'x', '--json');
      expect(broken.code).toBe(1);
      expect(JSON.parse(broken.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { code: 'UNAVAILABLE', message: expect.stringMatching(/^dataset "truncated" is error: /) } });
      const topK = await trove('dataset', 'search', 'ip', 'x', '--top-k', '101');
      expect(topK.code).toBe(2);
      expect(topK.stderr).toBe('trove: topK must be a whole number from 1 to 100 (got 101)\n');
      const missing = await trove('dataset', 'add', path.join(home, 'nowhere'));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/does not exist/);
    });

    // several hosts on one database: PostgreSQL's own
    it.runIf(b.name === 'postgres')('another host (another profile on the same database) sees the folder the first added: list, search and get', async () => {
      const other = tempDir('trove-cli-other-');
      const listed = oneJson<{ datasets: DatasetInfo[]; folders: string[] }>(await at(other, ['dataset', 'list', '--json']));
      expect(listed.folders).toEqual([path.join(other, 'datasets'), fs.realpathSync(holder)]);
      expect(Object.fromEntries(listed.datasets.map((d) => [d.id, d.state]))).toEqual({ ip: 'ready', handbook: 'ready', truncated: 'error', 'dims-mismatch': 'error', unsupported: 'error' });
      const found = oneJson<DatasetSearchResult>(await at(other, ['dataset', 'search', 'handbook', 'lost', 'badge', '--mode', 'keyword', '--json']));
      expect(found.results.map((h) => h.ref)[0]).toBe('security.md');
      const doc = await at(other, ['dataset', 'get', 'handbook', 'security.md']);
      expect(doc.code, doc.stderr).toBe(0);
      expect(doc.stdout).toMatch(/^==> handbook:security\.md /);
    });

    it('add on an empty folder says where manifests go; remove forgets the folder and its datasets', async () => {
      const empty = tempDir('trove-empty-');
      const r = await trove('dataset', 'add', empty);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/holds no dataset yet: put one in <dir>\/<id>\/manifest\.json/);
      expect((await trove('dataset', 'remove', holder)).code).toBe(0);
      const after = oneJson<{ datasets: DatasetInfo[]; folders: string[] }>(await trove('dataset', 'list', '--json'));
      expect(after.datasets).toEqual([]);
      expect(after.folders).toEqual([path.join(home, 'datasets'), fs.realpathSync(empty)]);
      expect((await trove('dataset', 'remove', holder)).code).toBe(1);
      // the folder dataset's collection and its index went with it: nothing left to watch or index
      const storage = database ? await PostgresStorage.open(database) : SqliteStorage.open(databasePath(home));
      try {
        expect(await storage.collections.list(['dataset'])).toEqual([]);
      } finally {
        await storage.close();
      }
    });

    it('a dataset in the profile folder needs no add', async () => {
      writeTree(path.join(home, 'datasets', 'notes'), {
        'manifest.json': JSON.stringify({ id: 'notes', name: 'Notes', description: 'Loose notes', index: './docs', kind: 'folder' }),
        'docs/a.md': '# Kettle\n\nDescale the kettle with vinegar.\n',
      });
      const r = oneJson<{ datasets: DatasetInfo[] }>(await trove('dataset', 'list', '--json'));
      expect(r.datasets).toEqual([expect.objectContaining({ id: 'notes', state: 'loading', folder: null })]);
      expect((await trove('index')).code).toBe(0); // `trove index` brings folder datasets up to date too
      const s = oneJson<DatasetSearchResult>(await trove('dataset', 'search', 'notes', 'kettle', '--json'));
      expect(s.results.map((h) => h.ref)).toEqual(['a.md']);
    });
  });
});
