// The durable queue seen from outside: pause/resume (global and per collection), the progress
// stream, removing a collection mid-index, and per-file failures with backoff.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { formatStatus } from '../../src-main/cli/format.js';
import type { Engine } from '../../src-main/engine/index.js';
import type { ProgressEvent } from '../../src-main/engine/indexing/progress.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { FAST, found, settled, waitFor } from './live-helpers.js';

function folderWith(files: Record<string, string>, worldAccessible = false): string {
  const root = tempDir('trove-q-', worldAccessible);
  writeTree(root, files);
  return root;
}

function manyFiles(n: number, word: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`part-${Math.floor(i / 100)}/file-${i}.md`] = `# File ${i}\n\n${word} number ${i} with some filler text`;
  return files;
}

describeBackends('the queue', (b) => {
  const watching: Engine[] = [];
  afterEach(async () => {
    while (watching.length) await watching.pop()!.stopWatching();
  });

  /** No job row of any collection is left in the queue (read beside the engine). */
  async function queueEmpty(engine: Engine): Promise<boolean> {
    return (await (await b.peek(engine)).jobs.counts()).size === 0;
  }

  describe('pause and resume', () => {
    test('global pause holds every change in the queue; resume applies them', async () => {
      const engine = await b.open({ indexing: FAST });
      const root = folderWith({ 'a.md': 'alpha' });
      await engine.addCollection({ root, name: 'notes' });
      await engine.startWatching();
      watching.push(engine);
      await waitFor('start-up reconcile done', async () => (await found(engine, 'alpha')).length === 1);

      await engine.pause();
      writeTree(root, { 'b.md': 'the tapir sleeps' });
      await waitFor('change queued', async () => (await engine.status()).indexing.collections[0]!.queued > 0);
      await waitFor('the work loop looked at it and found nothing it may run', () => !engine.busy());
      expect(await found(engine, 'tapir')).toEqual([]);
      expect((await engine.status()).indexing.paused).toBe(true);
      expect((await engine.status()).indexing.collections[0]!.paused).toBe(true);
      // what `trove status` (and the MCP status tool, through the same describeActivity) shows
      expect(formatStatus(await engine.status())).toMatch(/Watching: 1 folders \(all indexing paused\)[\s\S]*\n  indexing: \d+ queued, paused\n?/);

      await engine.resume();
      await waitFor('queued change applied after resume', async () => (await found(engine, 'tapir')).includes('b.md'));
      expect((await engine.status()).indexing.paused).toBe(false);
      await waitFor('queue drained', async () => (await engine.status()).indexing.collections[0]!.queued === 0);
      expect(formatStatus(await engine.status())).not.toContain('indexing:');
    });

    test('pausing one collection leaves the others running', async () => {
      const engine = await b.open({ indexing: FAST });
      const r1 = folderWith({ 'x.md': 'first' });
      const r2 = folderWith({ 'y.md': 'second' });
      await engine.addCollection({ root: r1, name: 'one' });
      await engine.addCollection({ root: r2, name: 'two' });
      await engine.index();
      await engine.startWatching();
      watching.push(engine);

      await engine.pause('one');
      writeTree(r1, { 'new.md': 'the gecko climbs' });
      writeTree(r2, { 'new.md': 'the gecko climbs' });
      await waitFor('unpaused collection indexed', async () => (await found(engine, 'gecko', 'two')).length === 1);
      await waitFor('the work loop found nothing more it may run', () => !engine.busy());
      expect(await found(engine, 'gecko', 'one')).toEqual([]);
      const one = (await engine.status()).indexing.collections.find((c) => c.collection === 'one')!;
      expect(one).toMatchObject({ paused: true });
      expect(one.queued).toBeGreaterThan(0);

      await engine.resume('one');
      await waitFor('paused collection indexed after resume', async () => (await found(engine, 'gecko', 'one')).length === 1);
    });

    test('pause state is kept in the database (a restarted engine stays paused)', async () => {
      const profile = tempDir('trove-profile-');
      const root = folderWith({ 'a.md': 'alpha' });
      const first = await b.open({ profileDir: profile, indexing: FAST });
      await first.addCollection({ root, name: 'notes' });
      await first.pause('notes');
      await first.close();
      const second = await b.open({ profileDir: profile, indexing: FAST, database: b.target(first).database });
      expect((await second.status()).indexing.collections[0]!.paused).toBe(true);
      await second.resume('notes');
      expect((await second.status()).indexing.collections[0]!.paused).toBe(false);
    });
  });

  describe('progress stream', () => {
    test('phase, done/total, rate, ETA and current file; ends idle with done = total', async () => {
      // enough files that the run outlasts the first 50 ms, before which no rate is measured (a fast
      // machine indexed 400 of them in less on SQLite; PostgreSQL's round trips make 400 outlast it)
      const files = b.name === 'sqlite' ? 2000 : 400;
      const engine = await b.open({ indexing: { ...FAST, batchFiles: files / 20 } });
      await engine.addCollection({ root: folderWith(manyFiles(files, 'progress')), name: 'big' });
      const events: ProgressEvent[] = [];
      const unsubscribe = engine.onProgress((e) => events.push(e));
      const legacy: string[] = [];
      await engine.index({ onProgress: (p) => legacy.push(p.phase) });
      unsubscribe();

      expect(events[0]!.phase).toBe('scanning');
      const indexing = events.filter((e) => e.phase === 'indexing');
      expect(indexing.length).toBeGreaterThanOrEqual(20); // the files in 20 batches
      for (const e of indexing) {
        expect(e.collection).toBe('big');
        expect(e.done).toBeLessThanOrEqual(e.total);
        expect(e.total).toBe(files);
        expect(e.currentFile === null || /^part-\d+\/file-\d+\.md$/.test(e.currentFile)).toBe(true);
      }
      expect(indexing.some((e) => e.currentFile !== null)).toBe(true);
      const measured = indexing.filter((e) => e.done > 0 && e.done < e.total);
      expect(measured.some((e) => e.rate > 0 && e.etaSeconds !== null && e.etaSeconds > 0)).toBe(true);
      const last = events.at(-1)!;
      expect(last).toMatchObject({ phase: 'idle', done: files, total: files, etaSeconds: 0, currentFile: null });
      expect(legacy[0]).toBe('scanning');
      expect(legacy.at(-1)).toBe('done');
      expect((await engine.status()).indexing.collections[0]!.progress).toEqual(last);
    });
  });

  describe('removing a collection', () => {
    test('mid-index: its jobs are cancelled at once, the run stops, nothing of it remains', async () => {
      const engine = await b.open({ indexing: { ...FAST, batchFiles: 20 } });
      await engine.addCollection({ root: folderWith(manyFiles(1500, 'doomed')), name: 'doomed' });
      await engine.addCollection({ root: folderWith({ 'k.md': 'kept safe' }), name: 'kept' });
      await engine.index({ collection: 'kept' });

      let doneWhenRemoved = -1;
      const afterRemoval: ProgressEvent[] = [];
      engine.onProgress((e) => {
        if (doneWhenRemoved >= 0 && e.collection === 'doomed') afterRemoval.push(e);
        if (e.collection === 'doomed' && e.phase === 'indexing' && e.done >= 100 && doneWhenRemoved < 0) {
          doneWhenRemoved = e.done;
          void engine.removeCollection('doomed'); // from inside the stream (its body runs now): the batch in flight is dropped
        }
      });
      const err = await troveErrorAsync(() => engine.index({ collection: 'doomed' }));
      expect(err.code).toBe('NOT_FOUND');
      expect(err.message).toMatch(/removed while it was being indexed/);
      expect(doneWhenRemoved).toBeGreaterThanOrEqual(100);
      expect(doneWhenRemoved).toBeLessThan(1500);
      expect(afterRemoval.filter((e) => e.phase === 'indexing')).toEqual([]);
      expect(await queueEmpty(engine)).toBe(true);
      expect((await engine.listCollections()).map((c) => c.name)).toEqual(['kept']);
      expect((await engine.status()).totals.documents).toBe(1);
      expect(await found(engine, 'doomed')).toEqual([]);
      const rows = await b.peek(engine);
      expect([...(await rows.stats.counts()).values()].reduce((n, c) => n + c.documents + c.skipped + c.failed, 0)).toBe(1); // no row of it left
      if (b.name === 'sqlite') {
        // the file itself is whole (SQLite's own check)
        const db = new Database(engine.location, { readonly: true });
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        db.close();
      }
    });

    test('while watching: its watcher stops and later changes in its folder are ignored', async () => {
      const engine = await b.open({ indexing: FAST });
      const root = folderWith({ 'a.md': 'alpha' });
      await engine.addCollection({ root, name: 'gone' });
      const stays = folderWith({ 'b.md': 'beta' });
      await engine.addCollection({ root: stays, name: 'stays' });
      await engine.startWatching();
      watching.push(engine);
      await waitFor('both indexed', async () => (await engine.status()).totals.documents === 2);
      await engine.removeCollection('gone');
      expect((await engine.status()).indexing.watchers.map((w) => w.collection)).toEqual(['stays']);
      writeTree(root, { 'c.md': 'ignored now' });
      writeTree(stays, { 'd.md': 'written after' }); // the watcher still running says when the queue has had its turn
      await waitFor('the later file of the kept folder indexed', async () => (await found(engine, 'written')).includes('d.md'));
      await waitFor('queue drained', async () => !engine.busy() && (await settled(engine)));
      expect((await engine.status()).totals.documents).toBe(2);
      expect(await found(engine, 'ignored')).toEqual([]);
      expect(await queueEmpty(engine)).toBe(true);
    });
  });

  describe('failures', () => {
    test('a collection folder that disappears (an unplugged drive) keeps its index; the scan failure is listed and retried', async () => {
      const engine = await b.open({ indexing: FAST });
      const root = folderWith({ 'a.md': 'the ibis', 'b.md': 'the ibex' });
      await engine.addCollection({ root, name: 'drive' });
      await engine.index();
      await engine.startWatching();
      watching.push(engine);
      fs.rmSync(root, { recursive: true });
      const failure = await waitFor('scan failure listed', async () => (await engine.failures()).find((f) => f.path === '.'));
      expect(failure).toMatchObject({ collection: 'drive', reason: expect.stringMatching(/missing or unreadable/) });
      await waitFor('retried', async () => ((await engine.failures())[0]?.attempts ?? 0) >= 2);
      expect((await engine.status()).totals.documents).toBe(2); // nothing removed
      expect(await found(engine, 'ibis')).toEqual(['a.md']);
      const err = await troveErrorAsync(() => engine.index({ collection: 'drive' }));
      expect(err.code).toBe('IO');
      expect((await engine.status()).totals.documents).toBe(2);
    });

    test('an unreadable file is kept with reason, attempts and next retry; it backs off, gives up, and a fix clears it', async () => {
      // root reads everything, so the engine reads as "nobody" while the file is unreadable
      const root = folderWith({ 'ok.md': 'fine', 'locked.md': 'the secret axolotl' }, true);
      fs.chmodSync(path.join(root, 'locked.md'), 0o000);
      // a short reconcile interval: chokidar never reports a file it could not read at start-up,
      // so it is the periodic reconcile that gives the failed file another try
      const engine = await b.open({ indexing: { ...FAST, live: { ...FAST!.live, reconcileIntervalMs: 1500 } } });
      await engine.addCollection({ root, name: 'notes' });
      // as root, switch to "nobody" so the mode bits apply; any other user is already denied
      const asNobody = async <T>(fn: () => Promise<T>): Promise<T> => {
        const seteuid = process.getuid?.() === 0 ? process.seteuid : undefined;
        seteuid?.(65534);
        try {
          return await fn();
        } finally {
          seteuid?.(0);
        }
      };
      const started = Date.now();
      const [report] = await asNobody(() => engine.index());
      expect(report!.failed).toEqual([{ path: 'locked.md', reason: 'permission denied' }]);
      const [first] = await engine.failures();
      expect(first).toMatchObject({ collection: 'notes', path: 'locked.md', reason: 'permission denied', attempts: 1 });
      // the first retry is one base delay (100 ms) after the failure
      expect(Date.parse(first!.nextRetryAt!)).toBeGreaterThanOrEqual(started + 100);
      expect(Date.parse(first!.nextRetryAt!)).toBeLessThanOrEqual(Date.now() + 100);
      expect((await engine.status()).collections[0]!.problems).toEqual([{ path: 'locked.md', status: 'failed', reason: 'permission denied' }]);

      // the background runner retries on its schedule (100 ms, 200 ms) and then gives up
      await asNobody(async () => {
        await engine.startWatching();
        watching.push(engine);
        await waitFor('gave up after 3 attempts', async () => (await engine.failures())[0]?.nextRetryAt === null);
      });
      expect((await engine.failures())[0]).toMatchObject({ attempts: 3, nextRetryAt: null });
      expect((await engine.status()).indexing.collections[0]).toMatchObject({ gaveUp: 1 });

      // fixing the file clears the failure at the next reconcile
      fs.chmodSync(path.join(root, 'locked.md'), 0o644);
      await waitFor('fixed file indexed', async () => (await found(engine, 'axolotl')).includes('locked.md'));
      expect(await engine.failures()).toEqual([]);
      expect((await engine.status()).collections[0]!.problems).toEqual([]);
    });
  });
});
