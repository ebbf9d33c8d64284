// A git checkout's worth of changes at once: thousands of files appear, change and vanish while
// the watcher runs. The queue coalesces them into batches and the index ends exactly right, on
// SQLite and on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { ProgressEvent } from '../../src-main/engine/indexing/progress.js';
import { describeBackends } from '../helpers/backends.js';
import { found, settled, waitFor, watchedFolder, type LiveFolder } from './live-helpers.js';

let current: LiveFolder | null = null;
afterEach(async () => {
  await current?.engine.stopWatching();
  current = null;
});

function writeMany(root: string, word: string, files: number): void {
  for (let d = 0; d < files / 500; d++) {
    const dir = path.join(root, 'src', `module-${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(dir, `note-${i}.md`), `# Note ${d}-${i}\n\n${word} entry ${d * 500 + i}\n`);
  }
}

describeBackends('a burst of changes', (b) => {
  // SQLite takes the full 10,000; PostgreSQL (each batch a few round trips) a quarter of it, still
  // five times its watcher's buffer: the overflow, the early flushes and the reconcile after them
  const FILES = b.name === 'sqlite' ? 10_000 : 2_500;
  const maxBuffered = b.name === 'sqlite' ? 2000 : 500;

  test(`${FILES} files created, rewritten and deleted at once while watching`, { timeout: 240_000 }, async () => {
    current = await watchedFolder(b, { 'readme.md': 'the burst test' }, 'burst', { indexing: { live: { debounceMs: 100, maxWaitMs: 500, goneGraceMs: 200, reconcileIntervalMs: 600_000, maxBuffered } } });
    const { engine, root } = current;
    const batches: number[] = [];
    let lastDone = 0;
    engine.onProgress((e: ProgressEvent) => {
      if (e.phase === 'indexing' && e.done > lastDone) batches.push(e.done - lastDone);
      lastDone = e.phase === 'idle' ? 0 : e.done;
    });
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 50);
    try {
      writeMany(root, 'alpha', FILES);
      await waitFor('all created files indexed', async () => (await engine.status()).totals.documents === FILES + 1 && await settled(engine), 120_000);
      expect((await engine.search({ query: `alpha entry ${FILES - 1}`, syntax: 'phrase' })).results.map((r) => r.path)).toEqual([`src/module-${FILES / 500 - 1}/note-499.md`]);

      writeMany(root, 'omega', FILES);
      await waitFor('all rewrites indexed', async () => (await engine.search({ query: 'alpha' })).results.length === 0 && await settled(engine), 120_000);
      expect((await engine.status()).totals.documents).toBe(FILES + 1);
      expect((await engine.search({ query: 'omega entry 1234', syntax: 'phrase' })).results.map((r) => r.path)).toEqual(['src/module-2/note-234.md']);

      fs.rmSync(path.join(root, 'src'), { recursive: true });
      await waitFor('all deletions applied', async () => (await engine.status()).totals.documents === 1 && await settled(engine), 120_000);
    } finally {
      clearInterval(sampler);
    }
    expect(await found(engine, 'omega')).toEqual([]);
    // the work was batched (no batch bigger than the configured 256 files) ...
    expect(Math.max(...batches)).toBeLessThanOrEqual(256);
    expect(batches.length).toBeGreaterThanOrEqual((3 * FILES) / 256 - 1);
    // ... and memory stayed bounded: 3 x FILES events never held more than a bounded buffer + one batch
    expect(heapPeak - heapBefore).toBeLessThan(256 * 1024 * 1024);
    const db = await engine.status();
    expect(db.indexing.collections[0]).toMatchObject({ queued: 0, retrying: 0, gaveUp: 0 });
  });
});
