// Hot reload while the engine watches (as `trove serve` and the desktop host do): manifests added,
// changed, broken, fixed and removed under <profile>/datasets take effect without a restart; a
// duplicate id waits its turn; a folder dataset is indexed and kept fresh by the watchers. On
// SQLite and on PostgreSQL (the added folders and the folder dataset's index are the storage's).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type DatasetInfo } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

const SRC = path.join(FIXTURES, 'datasets');

function copy(from: string, to: string): void {
  fs.cpSync(path.join(SRC, from), to, { recursive: true });
}

describeBackends('dataset hot reload', (b) => {
  let profile: string;
  let datasets: string;
  let added: string;
  let engine: Engine;

  /** Resolves with the list once `pred` holds (checked now and on every dataset change); fails after 30 s saying what it saw. */
  function until(pred: (all: Map<string, DatasetInfo>) => boolean, what: string): Promise<Map<string, DatasetInfo>> {
    return new Promise((resolve, reject) => {
      const snapshot = async () => new Map((await engine.datasets.list()).map((d) => [`${d.id}@${path.basename(path.dirname(d.manifestPath))}`, d]));
      const check = async () => {
        const all = await snapshot();
        if (!pred(all)) return;
        off();
        clearTimeout(timer);
        resolve(all);
      };
      const off = engine.datasets.onChange(() => void check().catch(reject));
      const timer = setTimeout(() => {
        off();
        void snapshot().then(
          (all) => reject(new Error(`timed out waiting for ${what}; datasets: ${JSON.stringify([...all].map(([k, d]) => [k, d.state, d.reason]))}`)),
          reject,
        );
      }, 30_000);
      void check().catch(reject);
    });
  }

  beforeAll(async () => {
    profile = tempDir('trove-profile-');
    datasets = path.join(profile, 'datasets');
    copy('ip', path.join(datasets, 'ip'));
    writeTree(datasets, {
      'broken/manifest.json': '{ "id": "broken", ',
      // the same id as ip, later in discovery order: invalid while ip holds the id
      'zz-dup/manifest.json': JSON.stringify({ id: 'ip', name: 'Second ip', description: 'Same id', index: '../ip/docs.index', metadata: '../ip/metadata.json', model: 'all-MiniLM-L6-v2' }),
    });
    added = tempDir('trove-added-');
    copy('handbook', path.join(added, 'handbook'));
    engine = await b.open({ profileDir: profile, embeddings: { modelsDir, workers: 1 }, indexing: { live: { debounceMs: 20, maxWaitMs: 100 } } });
    await engine.datasets.addFolder(added);
    await engine.startWatching();
    await engine.datasets.settled();
  }, 120_000);

  afterAll(async () => {
    await engine?.stopWatching();
    await engine?.close();
  });

  describe('while watching', () => {
    it('starts with every manifest: a duplicate id and a broken manifest are invalid, with reasons', async () => {
      const all = await until((m) => m.get('handbook@handbook')?.state === 'ready', 'the folder dataset to be indexed by the watchers');
      expect(all.get('ip@ip')).toMatchObject({ state: 'ready', folder: null });
      expect(all.get('broken@broken')).toMatchObject({ state: 'invalid', reason: expect.stringMatching(/^the manifest is not valid JSON: /) });
      expect(all.get('ip@zz-dup')).toMatchObject({ state: 'invalid', reason: `id "ip" is already used by ${path.join(datasets, 'ip', 'manifest.json')}; dataset ids must be unique` });
      expect(all.get('handbook@handbook')).toMatchObject({ documents: 4, folder: fs.realpathSync(added) });
    });

    it('a new dataset folder is picked up without a restart', async () => {
      const l2 = path.join(datasets, 'l2');
      fs.mkdirSync(l2);
      fs.copyFileSync(path.join(SRC, 'l2', 'index.faiss'), path.join(l2, 'index.faiss'));
      fs.copyFileSync(path.join(SRC, 'l2', 'metadata.json'), path.join(l2, 'metadata.json'));
      fs.copyFileSync(path.join(SRC, 'l2', 'manifest.json'), path.join(l2, 'manifest.json')); // a producer writes the manifest last
      await until((m) => m.get('l2@l2')?.state === 'ready', 'the new l2 dataset');
      expect((await engine.datasets.search('l2', 'fix a flat tire', { topK: 1 })).results[0]?.path).toBe('repairs/bike-tire.md');
    });

    it('a changed manifest reloads', async () => {
      const file = path.join(datasets, 'ip', 'manifest.json');
      const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(file, JSON.stringify({ ...m, name: 'Renamed guides', defaultTopK: 2 }));
      const all = await until((x) => x.get('ip@ip')?.name === 'Renamed guides' && x.get('ip@ip')?.state === 'ready', 'the renamed ip');
      expect(all.get('ip@ip')?.defaultTopK).toBe(2);
      expect((await engine.datasets.search('ip', 'bread')).results.length).toBe(2);
    });

    it('a manifest broken while serving is invalid at once, and the duplicate takes its id; one bad manifest stops nothing else', async () => {
      const file = path.join(datasets, 'ip', 'manifest.json');
      const good = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, good.replace('"id": "ip"', '"id": "IP"').replace('"id":"ip"', '"id":"IP"'));
      const all = await until((x) => x.get('IP@ip')?.state === 'invalid' && x.get('ip@zz-dup')?.state === 'ready', 'ip invalid and the duplicate ready');
      expect(all.get('IP@ip')?.reason).toBe('invalid manifest: id may only hold lowercase letters, digits and hyphens');
      expect((await engine.datasets.info('ip')).name).toBe('Second ip');
      expect((await engine.datasets.search('ip', 'fix a flat tire', { topK: 1 })).results[0]?.path).toBe('repairs/bike-tire.md');
      expect(all.get('l2@l2')?.state).toBe('ready');
      fs.writeFileSync(file, good);
      await until((x) => x.get('ip@ip')?.state === 'ready' && x.get('ip@zz-dup')?.state === 'invalid', 'ip back, the duplicate invalid again');
    });

    it('a fixed manifest loads; a removed dataset goes away', async () => {
      fs.writeFileSync(
        path.join(datasets, 'broken', 'manifest.json'),
        JSON.stringify({ id: 'fixed', name: 'Fixed', description: 'Now valid', index: '../ip/docs.index', metadata: '../ip/metadata.json', model: 'all-MiniLM-L6-v2' }),
      );
      await until((x) => x.get('fixed@broken')?.state === 'ready', 'the fixed manifest');
      fs.rmSync(path.join(datasets, 'l2'), { recursive: true });
      const all = await until((x) => !x.has('l2@l2'), 'l2 to go away');
      expect([...all.keys()].sort()).toEqual(['fixed@broken', 'handbook@handbook', 'ip@ip', 'ip@zz-dup']);
    });

    it('a changed FAISS file reloads its dataset', async () => {
      const index = path.join(datasets, 'ip', 'docs.index', 'index.faiss');
      const whole = fs.readFileSync(index);
      fs.writeFileSync(index, whole.subarray(0, 100));
      await until((x) => x.get('ip@ip')?.state === 'error', 'ip in error after its index was cut short');
      fs.writeFileSync(index, whole);
      await until((x) => x.get('ip@ip')?.state === 'ready', 'ip ready again');
    });

    it("a folder dataset's documents are watched like a collection's", async () => {
      fs.writeFileSync(path.join(added, 'handbook', 'docs', 'parking.md'), '# Parking\n\nStaff park in the north garage; visitors use the street.\n');
      await expect.poll(async () => (await engine.datasets.search('handbook', 'garage', { mode: 'keyword' })).results.map((h) => h.ref), { timeout: 30_000, interval: 50 }).toEqual(['parking.md']);
      expect((await engine.datasets.info('handbook')).documents).toBe(5);
    });

    it('added folders and the datasets in them survive a restart', async () => {
      await engine.stopWatching();
      const { database } = b.target(engine);
      await engine.close();
      engine = await Engine.open({ profileDir: profile, database, embeddings: { modelsDir, workers: 1 } });
      expect(await engine.datasets.folders()).toEqual([fs.realpathSync(added)]);
      const all = await engine.datasets.settled();
      expect(all.filter((d) => d.state === 'ready').map((d) => d.id).sort()).toEqual(['fixed', 'handbook', 'ip']);
      expect(all.find((d) => d.id === 'handbook')?.documents).toBe(5);
    });
  });
});
