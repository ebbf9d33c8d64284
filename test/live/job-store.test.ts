// The queue's rules on a real database: order (scans, then the user's changes, then the rest;
// additions before removals; newest first), coalescing with versions, retries, pauses, cascade.
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_RETRY, nextAttemptAt } from '../../src-main/engine/indexing/retry.js';
import { PRIORITY } from '../../src-main/engine/indexing/batch-worker.js';
import { CollectionStore } from '../../src-main/engine/store/collections.js';
import { openDatabase, type Db } from '../../src-main/engine/store/database.js';
import { GLOBAL_PAUSE, JobStore, type JobEnqueue } from '../../src-main/engine/store/jobs.js';
import { tempDir } from '../helpers/tmp.js';

let db: Db;
afterEach(() => db?.close());

function setup() {
  db = openDatabase(path.join(tempDir('trove-jobs-'), 'index.sqlite'));
  const collections = new CollectionStore(db);
  const a = collections.insert({ name: 'a', root: '/tmp/a', include: ['**/*'], exclude: [], context: '' });
  const b = collections.insert({ name: 'b', root: '/tmp/b', include: ['**/*'], exclude: [], context: '' });
  return { jobs: new JobStore(db), collections, a: a.id, b: b.id };
}

const file = (collectionId: number, p: string, over: Partial<JobEnqueue> = {}): JobEnqueue => ({
  collectionId, kind: 'file', path: p, priority: PRIORITY.reconcile, changedAt: 1000, gone: false, runAt: 0, ...over,
});

describe('order', () => {
  test('scans first, then the user\'s changes, then reconcile finds; additions before removals; newest first', () => {
    const { jobs, a } = setup();
    jobs.recordEvents([
      file(a, 'old-reconcile.md', { changedAt: 10 }),
      file(a, 'new-reconcile.md', { changedAt: 20 }),
      file(a, 'gone-user.md', { priority: PRIORITY.userChange, gone: true, changedAt: 99 }),
      file(a, 'user.md', { priority: PRIORITY.userChange, changedAt: 50 }),
    ]);
    jobs.recordEvents([{ collectionId: a, kind: 'scan', path: '', priority: PRIORITY.scan, changedAt: 1, gone: false, runAt: 0 }]);
    const first = jobs.nextBatch(Date.now(), 10);
    expect(first.map((j) => j.kind)).toEqual(['scan']); // a scan runs alone
    jobs.retire(first[0]!);
    expect(jobs.nextBatch(Date.now(), 10).map((j) => j.path)).toEqual(['user.md', 'gone-user.md', 'new-reconcile.md', 'old-reconcile.md']);
  });

  test('a batch holds one collection; jobs not yet due wait', () => {
    const { jobs, a, b } = setup();
    const now = Date.now();
    jobs.recordEvents([file(a, 'x.md'), file(b, 'y.md', { priority: PRIORITY.userChange }), file(b, 'later.md', { runAt: now + 60_000 })]);
    expect(jobs.nextBatch(now, 10).map((j) => [j.collectionId, j.path])).toEqual([[b, 'y.md']]);
    expect(jobs.nextBatch(now, 10, a).map((j) => j.path)).toEqual(['x.md']);
    expect(jobs.nextDueAt()).toBe(0);
    expect(jobs.dueCount(b, now)).toBe(1);
  });
});

describe('coalescing and versions', () => {
  test('a new event for a queued path is the same row; a job that changed while running is not retired', () => {
    const { jobs, a } = setup();
    jobs.recordEvents([file(a, 'n.md')]);
    const [running] = jobs.nextBatch(Date.now(), 10);
    jobs.recordEvents([file(a, 'n.md', { gone: true, changedAt: 2000 })]); // changed meanwhile
    jobs.retire(running!);
    const [again] = jobs.nextBatch(Date.now(), 10);
    expect(again).toMatchObject({ id: running!.id, gone: true, version: running!.version + 1 });
    jobs.retire(again!);
    expect(jobs.nextBatch(Date.now(), 10)).toEqual([]);
  });

  test('reconcile finds never disturb a queued job (its backoff survives); a watcher event resets it', () => {
    const { jobs, a } = setup();
    jobs.recordEvents([file(a, 'f.md')]);
    const [j] = jobs.nextBatch(Date.now(), 10);
    jobs.retry(j!, 1, Date.now() + 60_000, 'permission denied');
    jobs.addIfAbsent(file(a, 'f.md'));
    expect(jobs.failures(a, 10)).toMatchObject([{ path: 'f.md', attempts: 1, lastError: 'permission denied' }]);
    expect(jobs.nextBatch(Date.now(), 10)).toEqual([]);
    jobs.recordEvents([file(a, 'f.md', { runAt: Date.now() })]);
    expect(jobs.failures(a, 10)).toEqual([]);
    expect(jobs.nextBatch(Date.now(), 10).map((x) => x.attempts)).toEqual([0]);
  });
});

describe('retries, pauses, cascade', () => {
  test('backoff grows by the factor, is capped, and gives up after the last attempt', () => {
    const at = (n: number) => nextAttemptAt(DEFAULT_RETRY, n, 0);
    expect([1, 2, 3, 4, 5].map(at)).toEqual([5_000, 20_000, 80_000, 320_000, 1_280_000]);
    expect(nextAttemptAt({ ...DEFAULT_RETRY, maxAttempts: 10 }, 9, 0)).toBe(DEFAULT_RETRY.maxDelayMs);
    expect(at(6)).toBeNull();
  });

  test('given-up jobs get another try at each reconcile; makeDue brings everything forward', () => {
    const { jobs, a } = setup();
    jobs.recordEvents([file(a, 'g.md')]);
    const [j] = jobs.nextBatch(Date.now(), 10);
    jobs.retry(j!, 6, null, 'cannot read: EIO');
    expect(jobs.counts().get(a)).toMatchObject({ queued: 0, gaveUp: 1 });
    jobs.reviveGivenUp(a, Date.now());
    expect(jobs.nextBatch(Date.now(), 10)).toMatchObject([{ path: 'g.md', attempts: 6 }]);
    jobs.retry(j!, 7, Date.now() + 3_600_000, 'x');
    jobs.makeDue(a, Date.now());
    expect(jobs.nextBatch(Date.now(), 10)).toHaveLength(1);
  });

  test('paused collections are skipped by the background order; pauses persist; removal cascades', () => {
    const { jobs, collections, a, b } = setup();
    jobs.recordEvents([file(a, 'a.md', { priority: PRIORITY.userChange }), file(b, 'b.md')]);
    jobs.setPaused(a, true);
    expect(jobs.nextBatch(Date.now(), 10).map((j) => j.path)).toEqual(['b.md']);
    expect(jobs.nextBatch(Date.now(), 10, a).map((j) => j.path)).toEqual(['a.md']); // explicit index ignores pauses
    jobs.setPaused(GLOBAL_PAUSE, true);
    expect(jobs.pauses()).toEqual(new Set([a, GLOBAL_PAUSE]));
    collections.delete(a);
    expect(jobs.counts().has(a)).toBe(false);
    jobs.deleteForCollection(a);
    expect(jobs.pauses()).toEqual(new Set([GLOBAL_PAUSE]));
  });
});
