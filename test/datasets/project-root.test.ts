// The project root's datasets/ folder while a host watches (as `trove serve` started in a project
// does): a datasets/ folder that appears later, a manifest nested three folders down in it, its
// edits and its removal take effect without a restart, as in the profile's own folder.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type DatasetInfo } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

let project: string;
let engine: Engine;

/** Resolves with the dataset once `pred` holds for it (checked now and on every change); fails after 60 s saying what it saw. */
function until(id: string, pred: (d: DatasetInfo | undefined) => boolean, what: string): Promise<DatasetInfo | undefined> {
  return new Promise((resolve, reject) => {
    let done = false;
    const find = async () => (await engine.datasets.list()).find((d) => d.id === id);
    const check = async () => {
      const d = await find();
      if (done || !pred(d)) return;
      done = true;
      off();
      clearTimeout(timer);
      resolve(d);
    };
    const off = engine.datasets.onChange(() => void check().catch(reject));
    const timer = setTimeout(() => {
      done = true;
      off();
      void engine.datasets.list().then((all) => reject(new Error(`timed out waiting for ${what}; datasets: ${JSON.stringify(all.map((d) => [d.id, d.state, d.reason]))}`)));
    }, 60_000);
    void check().catch(reject);
  });
}

beforeAll(async () => {
  project = tempDir('trove-project-');
  engine = await Engine.open({ profileDir: tempDir('trove-profile-'), embeddings: { modelsDir, workers: 1 }, datasets: { projectRoot: project } });
  await engine.startWatching();
  await engine.datasets.settled();
}, 60_000);

afterAll(async () => {
  await engine?.stopWatching();
  await engine?.close();
  removeTempDirs();
});

describe("the project root's datasets/ folder, watched", () => {
  it('a datasets/ folder made after start, with a manifest three folders down, is found and loaded', async () => {
    expect(await engine.datasets.list()).toEqual([]);
    const dir = path.join(project, 'datasets', 'team', 'docs', 'cherry');
    fs.mkdirSync(dir, { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'datasets', 'ip', 'docs.index'), path.join(dir, 'docs.index'), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, 'datasets', 'ip', 'metadata.json'), path.join(dir, 'metadata.json'));
    const manifest = { id: 'cherry', name: 'Cherry', description: 'Nested', index: './datasets/team/docs/cherry/docs.index', metadata: './datasets/team/docs/cherry/metadata.json' };
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    const ready = await until('cherry', (d) => d?.state === 'ready', 'the nested manifest to load');
    expect(ready).toMatchObject({ model: 'all-MiniLM-L6-v2', modelInferred: true, folder: null, manifestPath: path.join(dir, 'manifest.json') });

    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, name: 'Cherry, renamed' }));
    expect(await until('cherry', (d) => d?.name === 'Cherry, renamed' && d.state !== 'loading', 'the edit to take effect')).toMatchObject({ state: 'ready', modelInferred: true });

    fs.rmSync(path.join(project, 'datasets', 'team'), { recursive: true });
    await until('cherry', (d) => d === undefined, 'the removal to take effect');
  }, 120_000);
});
