// What keeps background embedding low priority: the pool's background lane (background chunks
// only on the background worker, niced on Linux, so a query finds a free worker) and the policy's
// turn (the stage waits while keyword indexing has work, and stops when told); and closing an
// engine mid-run ends cleanly. One backend: the pool and the policy never touch the index (a
// PostgreSQL engine's process ending by itself after close is what every `trove … --database`
// command the CLI tests run shows).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackgroundPolicy } from '../../src-main/engine/embed/background.js';
import { findModel, loadManifest } from '../../src-main/engine/embed/manifest.js';
import { ModelPool } from '../../src-main/engine/embed/pool.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
import { threadNiceness } from '../helpers/threads.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const pools: ModelPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  removeTempDirs();
});

async function pool(opts: { workers: number; backgroundWorkers: number }): Promise<ModelPool> {
  const model = await resolveModel(findModel(loadManifest(), 'all-MiniLM-L6-v2'), { modelsDir, cacheDir: '/nonexistent-trove-cache' });
  const p = await ModelPool.start(model, { ...opts, intraOpThreads: 1, signedWeights: true });
  pools.push(p);
  return p;
}

describe('the model pool\'s background lane', () => {
  it('runs background chunks on the background worker only, so a query overtakes them on the other', async () => {
    const p = await pool({ workers: 2, backgroundWorkers: 1 });
    expect(p.backgroundSize).toBe(1);
    const text = 'Failed requests are retried with exponential backoff. '.repeat(20);
    const finished: string[] = [];
    const background = Array.from({ length: 6 }, (_, i) => p.embed([`${i} ${text}`], 'passage', { lane: 'background' }).then(() => finished.push(`bg${i}`)));
    const query = p.embed(['how do I configure retries'], 'query', { lane: 'urgent' }).then(() => finished.push('query'));
    await Promise.all([...background, query]);
    // one background chunk at a time: the query, on the free worker, is done before the second one
    expect(finished.indexOf('query')).toBeLessThan(finished.indexOf('bg1'));
    expect(finished.filter((f) => f.startsWith('bg'))).toEqual(['bg0', 'bg1', 'bg2', 'bg3', 'bg4', 'bg5']);
  });

  it('lowers the background worker thread\'s priority on Linux, and only that thread\'s', async () => {
    expect(process.platform).toBe('linux'); // per-thread niceness is what this checks; CI runs Linux
    const before = [...threadNiceness().values()].filter((n) => n >= 10).length;
    await pool({ workers: 2, backgroundWorkers: 1 });
    const after = [...threadNiceness().values()];
    expect(after.filter((n) => n >= 10).length).toBeGreaterThan(before);
    expect(after.filter((n) => n === 0).length).toBeGreaterThan(1); // the main thread and the foreground worker keep theirs
  });

  it('lends background chunks to every worker when asked (nobody is searching), still behind a query', async () => {
    const p = await pool({ workers: 2, backgroundWorkers: 1 });
    const text = 'Failed requests are retried with exponential backoff. '.repeat(20);
    const own = Array.from({ length: 3 }, (_, i) => p.embed([`${i} ${text}`], 'passage', { lane: 'background' }));
    expect(p.running).toBe(1); // the background worker only
    await Promise.all(own);
    const finished: string[] = [];
    const lent = Array.from({ length: 6 }, (_, i) => p.embed([`${i} ${text}`], 'passage', { lane: 'background', anyWorker: true }).then(() => finished.push(`bg${i}`)));
    expect(p.running).toBe(2); // both workers
    const query = p.embed(['how do I configure retries'], 'query', { lane: 'urgent' }).then(() => finished.push('query'));
    await Promise.all([...lent, query]);
    // the query waits for one chunk at most on either worker: it is done before the last background chunks start
    expect(finished.indexOf('query')).toBeLessThan(finished.indexOf('bg4'));
  });

  it('a pool without background workers runs background requests on any worker', async () => {
    const p = await pool({ workers: 1, backgroundWorkers: 0 });
    expect(p.backgroundSize).toBe(0);
    const v = await p.embed(['retries'], 'passage', { lane: 'background' });
    expect(v.length).toBe(384);
  });
});

describe('the background policy\'s turn', () => {
  it('waits while keyword indexing is busy, goes when it is done, and stops when told', async () => {
    let busy = true;
    let paused = false;
    const policy = new BackgroundPolicy(
      { allowed: true, saved: () => null, paused: () => new Set(paused ? [0] : []), indexingBusy: () => busy },
      { searchQuietMs: 0 },
    );
    const first = policy.turn(() => false);
    await Promise.resolve();
    expect(policy.waiting).toBe(true);
    busy = false;
    policy.wake();
    await expect(first).resolves.toBe(true);
    expect(policy.waiting).toBe(false);

    busy = true;
    const second = policy.turn(() => policy.paused());
    paused = true;
    policy.wake();
    await expect(second).resolves.toBe(false);
    expect(policy.mayRun(5)).toBe(false);
  });

  it('starts no batch while a pause is under way (its collection still being looked up), and stops once it is in force', async () => {
    let paused = false;
    const policy = new BackgroundPolicy({ allowed: true, saved: () => null, paused: () => new Set(paused ? [7] : []), indexingBusy: () => false }, { searchQuietMs: 0 });
    let lookedUp!: () => void;
    policy.pauseUnderWay(new Promise<void>((r) => (lookedUp = r)).then(() => (paused = true)));
    let answered = false;
    const turn = policy.turn(() => !policy.mayRun(7)).finally(() => (answered = true));
    await new Promise((r) => setImmediate(r)); // more than the stage's own yield before a batch
    expect(answered).toBe(false);
    lookedUp();
    await expect(turn).resolves.toBe(false);
    await expect(policy.turn(() => false)).resolves.toBe(true); // a settled pause holds nothing up
  });

  it('gives way to searches for a moment', async () => {
    const policy = new BackgroundPolicy({ allowed: true, saved: () => null, paused: () => new Set(), indexingBusy: () => false }, { searchQuietMs: 60_000 });
    await expect(policy.turn(() => false)).resolves.toBe(true); // no search yet
    policy.searched();
    let stop = false;
    const turn = policy.turn(() => stop);
    await Promise.resolve();
    expect(policy.waiting).toBe(true);
    stop = true;
    policy.wake();
    await expect(turn).resolves.toBe(false);
  });

  it('takes its turn amid a steady stream of searches once they have held it back for maxDeferMs', async () => {
    const policy = new BackgroundPolicy({ allowed: true, saved: () => null, paused: () => new Set(), indexingBusy: () => false }, { searchQuietMs: 60_000, maxDeferMs: 40 });
    policy.searched();
    // searches keep coming (each resets the quiet window), yet the turn comes
    const stream = setInterval(() => policy.searched(), 5);
    try {
      const started = performance.now();
      await expect(policy.turn(() => false)).resolves.toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(39);
    } finally {
      clearInterval(stream);
    }
  });

  it('spares every worker only when nobody has searched for a while', () => {
    const deps = { allowed: true, saved: () => null, paused: () => new Set<number>(), indexingBusy: () => false };
    const policy = new BackgroundPolicy(deps, { searchQuietMs: 0, spareAfterMs: 60_000 });
    expect(policy.spare()).toBe(true); // no search yet
    policy.searched();
    expect(policy.spare()).toBe(false);
    const eager = new BackgroundPolicy(deps, { searchQuietMs: 0, spareAfterMs: 0 });
    eager.searched();
    expect(eager.spare()).toBe(true);
  });

  it('is enabled by the engine\'s option and the saved setting, the option first', () => {
    const deps = { paused: () => new Set<number>(), indexingBusy: () => false };
    expect(new BackgroundPolicy({ ...deps, allowed: false, saved: () => true }, { searchQuietMs: 0 }).enabled()).toEqual({ enabled: false, source: 'option' });
    expect(new BackgroundPolicy({ ...deps, allowed: true, saved: () => null }, { searchQuietMs: 0 }).enabled()).toEqual({ enabled: true, source: 'default' });
    expect(new BackgroundPolicy({ ...deps, allowed: true, saved: () => false }, { searchQuietMs: 0 }).enabled()).toEqual({ enabled: false, source: 'saved' });
  });
});

describe('closing while the stage runs', () => {
  it('lets the process end by itself once the workers have exited', async () => {
    const root = tempDir('trove-root-');
    writeTree(root, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\n${'Failed requests are retried with backoff. '.repeat(30)}\n`])));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/close-mid-run.ts'), tempDir('trove-profile-'), root, modelsDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, out, err }).toMatchObject({ code: 0, out: 'closed\n' });
  });
});
