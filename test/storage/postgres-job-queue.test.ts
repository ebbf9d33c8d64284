// The job queue on PostgreSQL shared by several hosts (each its own connection pool, as separate
// `trove serve` processes have): every job is claimed by exactly one host, a host that dies
// mid-batch leaves its jobs due for the others, a file that changes while its job is being worked
// runs again, and pauses, retries and explicit runs behave as on SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEnqueue, JobRow } from '../../src-main/engine/store/jobs.js';
import { PostgresDatabase } from '../../src-main/engine/store/postgres/connection.js';
import { PostgresJobQueue } from '../../src-main/engine/store/postgres/jobs.js';
import { freshDatabase } from '../helpers/postgres.js';

let url: string;
const opened: PostgresDatabase[] = [];
let collections: number[] = [];

async function host(): Promise<{ db: PostgresDatabase; queue: PostgresJobQueue }> {
  const db = await PostgresDatabase.open(url, { max: 3 });
  opened.push(db);
  return { db, queue: new PostgresJobQueue(db) };
}

function fileJob(collectionId: number, path: string, over: Partial<JobEnqueue> = {}): JobEnqueue {
  return { collectionId, kind: 'file', path, priority: 0, changedAt: 1, gone: false, runAt: 0, ...over };
}

beforeAll(async () => {
  url = await freshDatabase('jobs');
  const { db } = await host();
  const rows = await db.query<{ id: number }>(
    `INSERT INTO collections (name, root, include_globs, exclude_globs, created_at, updated_at)
     SELECT n, '/r/' || n, '[]', '[]', 0, 0 FROM unnest(ARRAY['a', 'b', 'c']) n RETURNING id`,
  );
  collections = rows.map((r) => r.id);
});

afterAll(async () => {
  for (const db of opened) await db.close();
});

/** The first non-null answer of fn, asked again until the server has caught up (10 s at most). */
async function until<T>(fn: () => Promise<T | null>): Promise<T | null> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await fn();
    if (v !== null || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function drainQueue(queue: PostgresJobQueue, seen: JobRow[], only?: number): Promise<number> {
  let batches = 0;
  for (;;) {
    const batch = await queue.claim(Date.now(), 16, only === undefined ? {} : { only });
    if (!batch) return batches;
    seen.push(...batch.jobs);
    batches++;
    expect(new Set(batch.jobs.map((j) => j.collectionId)).size).toBe(1); // a batch is one collection's
    await new Promise((r) => setImmediate(r)); // let the other hosts' claims interleave
    await batch.complete({ retire: batch.jobs });
  }
}

describe('PostgreSQL job queue', () => {
  it('gives every job to exactly one of four hosts working at once', async () => {
    const hosts = await Promise.all([host(), host(), host(), host()]);
    const jobs = collections.slice(0, 2).flatMap((c) => Array.from({ length: 150 }, (_, i) => fileJob(c, `f${i}.md`, { changedAt: i })));
    await hosts[0]!.queue.recordEvents(jobs);
    const seen = hosts.map(() => [] as JobRow[]);
    const batches = await Promise.all(hosts.map((h, i) => drainQueue(h.queue, seen[i]!)));
    const all = seen.flat().map((j) => `${j.collectionId}/${j.path}`);
    expect(all.length).toBe(300);
    expect(new Set(all).size).toBe(300);
    expect(batches.filter((n) => n > 0).length).toBeGreaterThan(1); // the work was shared
    expect((await hosts[0]!.queue.counts()).size).toBe(0);
  });

  it('puts a dead host’s jobs back in the queue for the others', async () => {
    const a = await host();
    const b = await host();
    await a.queue.recordEvents([fileJob(collections[0]!, 'crash-1.md'), fileJob(collections[0]!, 'crash-2.md')]);
    const held = await a.queue.claim(Date.now(), 16);
    expect(held?.jobs.map((j) => j.path).sort()).toEqual(['crash-1.md', 'crash-2.md']);
    expect(await b.queue.claim(Date.now(), 16)).toBeNull(); // locked: skipped, not waited for
    // the host dies: its connection goes without a commit; the server drops its locks once it notices
    held!.connection.release(new Error('host killed'));
    const taken = await until(() => b.queue.claim(Date.now(), 16));
    expect(taken?.jobs.map((j) => j.path).sort()).toEqual(['crash-1.md', 'crash-2.md']);
    await taken!.complete({ retire: taken!.jobs });
    expect(await b.queue.dueCount(collections[0]!, Date.now())).toBe(0);
  });

  it('runs a job again when its file changed while a host was working it', async () => {
    const a = await host();
    const watcher = await host();
    await a.queue.recordEvents([fileJob(collections[1]!, 'edited.md')]);
    const batch = (await a.queue.claim(Date.now(), 16))!;
    const event = watcher.queue.recordEvents([fileJob(collections[1]!, 'edited.md', { priority: 10, changedAt: 2 })]); // waits on the claim's row lock
    await batch.complete({ retire: batch.jobs });
    await event;
    const again = (await a.queue.claim(Date.now(), 16))!;
    expect(again.jobs.map((j) => [j.path, j.priority])).toEqual([['edited.md', 10]]);
    await again.complete({ retire: again.jobs });
  });

  it('keeps a job whose version moved on when retiring, records retries, and honours pauses', async () => {
    const { queue } = await host();
    const c = collections[2]!;
    await queue.recordEvents([fileJob(c, 'x.md'), fileJob(c, 'y.md')]);
    const batch = (await queue.claim(Date.now(), 16))!;
    const [x, y] = [batch.jobs.find((j) => j.path === 'x.md')!, batch.jobs.find((j) => j.path === 'y.md')!];
    await batch.complete({ retire: [{ ...x, version: x.version + 1 }], retry: [{ job: y, attempts: 1, nextRunAt: Date.now() + 60_000, error: 'cannot parse' }] });
    const failures = await queue.failures(c, 10);
    expect(failures.map((f) => [f.path, f.attempts, f.lastError])).toEqual([['y.md', 1, 'cannot parse']]);
    expect(await queue.hasPendingFile(c, 'x.md')).toBe(true);

    await queue.setPaused(c, true);
    expect(await queue.pauses()).toEqual(new Set([c]));
    expect(await queue.claim(Date.now(), 16)).toBeNull(); // x is due, but its collection is paused
    const explicit = (await queue.claim(Date.now(), 16, { only: c }))!; // an explicit run ignores pauses
    expect(explicit.jobs.map((j) => j.path)).toEqual(['x.md']);
    await explicit.release();
    await queue.makeDue(c, Date.now());
    expect(await queue.dueCount(c, Date.now())).toBe(2);
    await queue.setPaused(c, false);
    await queue.deleteForCollection(c);
    expect(await queue.counts()).toEqual(new Map());
  });
});
