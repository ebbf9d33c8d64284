// The app API's datasets calls on a real engine: list with folders, add a dataset folder (its
// datasets' state changes arrive as events), remove it, and a clear error for bad input. On SQLite
// and on PostgreSQL (the added folders are the index's).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiEvent, DatasetInfo, DatasetList, StatusReport } from '../../src-main/api/results.js';
import type { Engine } from '../../src-main/engine/index.js';
import { createAppApi, type AppApi } from '../../src-main/host/app-api.js';
import { modelsDir } from '../embed/models-dir.js';
import { ok } from '../helpers/app-api.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

describeBackends('app API: datasets', (b) => {
  let engine: Engine;
  let api: AppApi;
  let holder: string;
  const events: ApiEvent[] = [];

  beforeAll(async () => {
    holder = tempDir('trove-app-datasets-');
    for (const id of ['ip', 'unsupported']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
    engine = await b.open({ embeddings: { modelsDir, workers: 1 } });
    api = createAppApi({ engine });
    api.onEvent((e) => events.push(e));
  });

  afterAll(() => api.close());

  it('lists none at first, with the profile folder that is always scanned', async () => {
    expect(ok<DatasetList>(await api.call('datasets.list', {}))).toEqual({ datasets: [], profileFolder: path.join(engine.profileDir, 'datasets'), folders: [] });
  });

  it('adds a dataset folder; each state change arrives as an event until every dataset settles', async () => {
    const found = ok<DatasetInfo[]>(await api.call('datasets.addFolder', { path: holder }));
    expect(found.map((d) => [d.id, d.state])).toEqual([['ip', 'loading'], ['unsupported', 'loading']]);
    await engine.datasets.settled();
    const changes = events.flatMap((e) => (e.type === 'datasets.changed' ? [[e.dataset.id, e.dataset.state]] : []));
    expect(changes).toEqual(expect.arrayContaining([['ip', 'ready'], ['unsupported', 'error']]));
    const list = ok<DatasetList>(await api.call('datasets.list', {}));
    expect(list.folders).toEqual([fs.realpathSync(holder)]);
    expect(list.datasets.find((d) => d.id === 'unsupported')).toMatchObject({ state: 'error', reason: expect.stringMatching(/^unsupported FAISS index type IndexIVFFlat/) });
    const status = ok<StatusReport>(await api.call('status', {}));
    expect(status.datasets.map((d) => [d.id, d.state])).toEqual([['ip', 'ready'], ['unsupported', 'error']]);
    const again = ok<DatasetInfo[]>(await api.call('datasets.reload', {}));
    expect(again.map((d) => d.state)).toEqual(['ready', 'error']);
  });

  it('refuses bad input with the reason', async () => {
    const empty = await api.call('datasets.addFolder', { path: '  ' });
    expect(empty).toEqual({ ok: false, error: { code: 'INVALID_INPUT', message: 'datasets.addFolder: path: a folder path is required' } });
    const missing = await api.call('datasets.addFolder', { path: path.join(holder, 'nowhere') });
    expect(missing).toMatchObject({ ok: false, error: { code: 'IO', message: expect.stringMatching(/does not exist/) } });
    const unknown = await api.call('datasets.removeFolder', { path: path.join(holder, 'nowhere') });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await api.call('datasets.list', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('removes the folder and its datasets', async () => {
    expect(ok(await api.call('datasets.removeFolder', { path: holder }))).toEqual({ removed: holder });
    expect(ok<DatasetList>(await api.call('datasets.list', {})).datasets).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'datasets.changed', dataset: { state: 'unloaded', reason: `its folder ${fs.realpathSync(holder)} is no longer a dataset folder` } });
  });
});
