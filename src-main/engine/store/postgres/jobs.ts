// The durable job queue on PostgreSQL, shared by every Trove host on the database. The same rows
// and rules as store/jobs.ts (coalescing events bump a job's version; a job is retired only at the
// version it ran; retries back off; pauses are rows), plus claims: a host takes the most urgent
// due job and a batch of its collection's due jobs with FOR UPDATE SKIP LOCKED, in a transaction
// it keeps open while it works them and commits together with the batch's index writes. Two hosts
// never take the same job; a host that dies drops its connection and its locks, and the jobs are
// due again for the others.
import type pg from 'pg';
import type { DocumentFreshness, JobCounts, JobEnqueue, JobKind, JobRow } from '../jobs.js';
import type { StagedTerms } from './index-writer.js';
import type { ClaimedJobs, CompleteOutcome, IndexBatch, JobQueue, JobRetry } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

/** Writes a batch's index rows through the claim's connection (postgres/index-writer.ts). */
export type BatchWriter = (client: pg.PoolClient, batch: IndexBatch, staged?: StagedTerms) => Promise<boolean[]>;

interface RawJob {
  id: number;
  collection_id: number;
  kind: JobKind;
  path: string;
  priority: number;
  changed_at: number;
  gone: boolean;
  version: number;
  attempts: number;
  next_run_at: number | null;
  last_error: string | null;
}

function fromRaw(r: RawJob): JobRow {
  return {
    id: r.id,
    collectionId: r.collection_id,
    kind: r.kind,
    path: r.path,
    priority: r.priority,
    changedAt: r.changed_at,
    gone: r.gone,
    version: r.version,
    attempts: r.attempts,
    nextRunAt: r.next_run_at,
    lastError: r.last_error,
  };
}

const ORDER = 'ORDER BY priority DESC, gone, changed_at DESC, id';
const COLUMNS = 'id, collection_id, kind, path, priority, changed_at, gone, version, attempts, next_run_at, last_error';

/** Jobs one host holds until it completes or releases them (the transaction stays open meanwhile). */
export class ClaimedBatch implements ClaimedJobs {
  private done = false;
  /** The keyword terms stage() made for this write. */
  private staged: { write: IndexBatch; terms: StagedTerms } | null = null;

  constructor(
    private readonly client: pg.PoolClient,
    readonly jobs: readonly JobRow[],
    private readonly queue: PostgresJobQueue,
  ) {}

  /** Makes the batch's keyword terms now (while another batch may be written), not inside complete(). */
  async stage(write: IndexBatch): Promise<void> {
    this.staged = { write, terms: await this.queue.stageBatch(write) };
  }

  /** The claim's own connection, inside its transaction: the batch's index writes go through it. */
  get connection(): pg.PoolClient {
    return this.client;
  }

  /**
   * Writes the batch's index rows, retires the jobs that are done (unless a newer event arrived),
   * records the failures and what a scan found; commits. Returns, per write, whether it applied.
   */
  async complete(outcome: CompleteOutcome): Promise<boolean[]> {
    let applied: boolean[] = [];
    try {
      if (outcome.revive !== undefined) await this.queue.reviveGivenUp(outcome.revive, Date.now(), this.client);
      if (outcome.found?.length) await this.queue.addIfAbsent(outcome.found, this.client);
      if (outcome.write) applied = await this.queue.writeBatch(this.client, outcome.write, this.staged?.write === outcome.write ? this.staged.terms : undefined);
      this.staged = null;
      const conditional = (outcome.retireIfApplied ?? []).filter((r) => applied[r.write]).map((r) => r.job);
      await this.retireAndRetry([...outcome.retire, ...conditional], outcome.retry ?? []);
    } catch (err) {
      await this.finish('ROLLBACK').catch(() => undefined);
      throw err;
    }
    await this.finish('COMMIT');
    if (outcome.write) await this.queue.notify(outcome.write.collectionId);
    return applied;
  }

  private async retireAndRetry(retire: readonly JobRow[], retry: readonly JobRetry[]): Promise<void> {
    if (retire.length) {
      await this.client.query('DELETE FROM jobs j USING unnest($1::bigint[], $2::int[]) x(id, version) WHERE j.id = x.id AND j.version = x.version', [
        retire.map((j) => j.id),
        retire.map((j) => j.version),
      ]);
    }
    for (const r of retry) {
      await this.client.query(
        'UPDATE jobs SET attempts = $1, next_run_at = $2, last_error = $3, priority = least(priority, 0) WHERE id = $4 AND version = $5',
        [r.attempts, r.nextRunAt, r.error, r.job.id, r.job.version],
      );
    }
  }

  /** Gives the jobs back untouched (rolls back anything written through the connection). */
  release(): Promise<void> {
    return this.finish('ROLLBACK');
  }

  private async finish(how: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.client.query(how);
      this.client.release();
    } catch (err) {
      this.client.release(err as Error); // a broken connection is not reused
      throw err;
    }
  }
}

export class PostgresJobQueue implements JobQueue {
  /** One: each claim read ahead holds a connection of the pool (8) and its transaction. */
  readonly claimsAhead = 1;

  constructor(
    private readonly db: PostgresDatabase,
    /** Writes a claimed batch's index rows (none: a queue that only moves jobs, as in tests of the queue alone). */
    readonly writeBatch: BatchWriter = () => Promise.reject(new Error('this job queue writes no index rows')),
    /** Tells the other hosts the index changed (postgres/changes.ts). */
    readonly notify: (collectionId: number) => Promise<void> = () => Promise.resolve(),
    /** Readies a batch's write ahead of its transaction (postgres/index-writer.ts stageIndexBatch). */
    readonly stageBatch: (batch: IndexBatch) => Promise<StagedTerms> = () => Promise.resolve(new Map()),
  ) {}

  /** Records watcher events in one statement: a fresh event resets a job's retries and bumps its version. */
  async recordEvents(jobs: readonly JobEnqueue[]): Promise<void> {
    if (!jobs.length) return;
    await this.db.query(
      `INSERT INTO jobs (collection_id, kind, path, priority, changed_at, gone, next_run_at, created_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::boolean[], $7::bigint[], $8::bigint[])
       ON CONFLICT (collection_id, kind, path) DO UPDATE SET
         version = jobs.version + 1, priority = greatest(jobs.priority, excluded.priority), changed_at = greatest(jobs.changed_at, excluded.changed_at),
         gone = excluded.gone, next_run_at = excluded.next_run_at, attempts = 0, last_error = NULL`,
      enqueueColumns(dedupe(jobs)),
    );
  }

  /** Adds jobs unless one is already queued for the same path (what a reconcile scan finds). */
  async addIfAbsent(jobs: readonly JobEnqueue[], on: pg.PoolClient | pg.Pool = this.db.pool): Promise<void> {
    if (!jobs.length) return;
    await on.query(
      `INSERT INTO jobs (collection_id, kind, path, priority, changed_at, gone, next_run_at, created_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::boolean[], $7::bigint[], $8::bigint[])
       ON CONFLICT (collection_id, kind, path) DO NOTHING`,
      enqueueColumns(dedupe(jobs)),
    );
  }

  /**
   * Claims the next batch: the most urgent due job nobody holds (in `only`, else in an unpaused
   * collection among `collections` when given), and for a file job, more due file jobs of its
   * collection up to `limit`. Null when there is nothing to do.
   */
  async claim(now: number, limit: number, opts: { only?: number; collections?: readonly number[] } = {}): Promise<ClaimedBatch | null> {
    const client = await this.db.connect();
    try {
      await client.query('BEGIN');
      let top: RawJob | undefined;
      if (opts.only !== undefined) {
        top = (
          await client.query<RawJob>(
            `SELECT ${COLUMNS} FROM jobs WHERE collection_id = $1 AND next_run_at <= $2 ORDER BY (kind = 'scan') DESC, priority DESC, gone, changed_at DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
            [opts.only, now],
          )
        ).rows[0];
      } else {
        top = (
          await client.query<RawJob>(
            `SELECT ${COLUMNS} FROM jobs WHERE next_run_at <= $1 AND collection_id NOT IN (SELECT collection_id FROM job_pauses)
               AND ($2::bigint[] IS NULL OR collection_id = ANY($2)) ${ORDER} LIMIT 1 FOR UPDATE SKIP LOCKED`,
            [now, opts.collections ?? null],
          )
        ).rows[0];
      }
      if (!top) {
        await client.query('ROLLBACK');
        client.release();
        return null;
      }
      let rows = [top];
      if (top.kind === 'file' && limit > 1) {
        const more = await client.query<RawJob>(
          `SELECT ${COLUMNS} FROM jobs WHERE collection_id = $1 AND kind = 'file' AND next_run_at <= $2 AND id <> $3 ${ORDER} LIMIT $4 FOR UPDATE SKIP LOCKED`,
          [top.collection_id, now, top.id, limit - 1],
        );
        rows = [top, ...more.rows];
      }
      return new ClaimedBatch(client, rows.map(fromRaw), this);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw err;
    }
  }

  /** Earliest time any unpaused job becomes due (null: nothing waiting). */
  async nextDueAt(): Promise<number | null> {
    const r = await this.db.one<{ at: number | null }>(
      'SELECT min(next_run_at) AS at FROM jobs WHERE next_run_at IS NOT NULL AND collection_id NOT IN (SELECT collection_id FROM job_pauses)',
    );
    return r?.at ?? null;
  }

  async dueCount(collectionId: number, now: number): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM jobs WHERE collection_id = $1 AND next_run_at <= $2', [collectionId, now]))?.n ?? 0;
  }

  async counts(): Promise<Map<number, JobCounts>> {
    const rows = await this.db.query<{ collection_id: number; queued: number; retrying: number; gave_up: number }>(
      `SELECT collection_id, count(*) FILTER (WHERE next_run_at IS NOT NULL) AS queued,
              count(*) FILTER (WHERE next_run_at IS NOT NULL AND attempts > 0) AS retrying, count(*) FILTER (WHERE next_run_at IS NULL) AS gave_up
         FROM jobs GROUP BY collection_id`,
    );
    return new Map(rows.map((r) => [r.collection_id, { collectionId: r.collection_id, queued: r.queued, retrying: r.retrying, gaveUp: r.gave_up }]));
  }

  async failures(collectionId: number | undefined, limit: number): Promise<JobRow[]> {
    const rows = await this.db.query<RawJob>(
      `SELECT ${COLUMNS} FROM jobs WHERE attempts > 0 AND ($1::bigint IS NULL OR collection_id = $1) ORDER BY collection_id, path LIMIT $2`,
      [collectionId ?? null, limit],
    );
    return rows.map(fromRaw);
  }

  async hasPendingFile(collectionId: number, path: string): Promise<boolean> {
    return !!(await this.db.one("SELECT 1 FROM jobs WHERE collection_id = $1 AND kind = 'file' AND path = $2 AND next_run_at IS NOT NULL", [collectionId, path]));
  }

  async makeDue(collectionId: number, now: number): Promise<void> {
    await this.db.query('UPDATE jobs SET next_run_at = $1 WHERE collection_id = $2 AND (next_run_at IS NULL OR next_run_at > $1)', [now, collectionId]);
  }

  async postponeFiles(collectionId: number, now: number, until: number): Promise<void> {
    await this.db.query("UPDATE jobs SET next_run_at = $1 WHERE collection_id = $2 AND kind = 'file' AND next_run_at <= $3", [until, collectionId, now]);
  }

  async reviveGivenUp(collectionId: number, now: number, on: pg.PoolClient | pg.Pool = this.db.pool): Promise<void> {
    await on.query('UPDATE jobs SET next_run_at = $1 WHERE collection_id = $2 AND next_run_at IS NULL', [now, collectionId]);
  }

  async deleteForCollection(collectionId: number): Promise<void> {
    await this.db.transaction(async (c) => {
      await c.query('DELETE FROM jobs WHERE collection_id = $1', [collectionId]);
      await c.query('DELETE FROM job_pauses WHERE collection_id = $1', [collectionId]);
    });
  }

  async freshness(documentIds: readonly number[]): Promise<DocumentFreshness[]> {
    if (!documentIds.length) return [];
    return this.db.query<DocumentFreshness>(
      // a document inside a file (an e-mail's attachment) is as fresh as its file: f is the file's row
      `SELECT d.id AS "documentId", d.collection_id AS "collectionId", c.root, f.path, f.size, f.mtime_ms AS "mtimeMs", d.indexed_at AS "indexedAt",
              EXISTS (SELECT 1 FROM jobs j WHERE j.collection_id = d.collection_id AND j.kind = 'file' AND j.path = f.path AND j.next_run_at IS NOT NULL) AS pending
         FROM unnest($1::bigint[]) ids(id) JOIN documents d ON d.id = ids.id JOIN collections c ON c.id = d.collection_id
         JOIN documents f ON f.id = coalesce(d.parent_id, d.id)`,
      [documentIds],
    );
  }

  async pauses(): Promise<Set<number>> {
    return new Set((await this.db.query<{ collection_id: number }>('SELECT collection_id FROM job_pauses')).map((r) => r.collection_id));
  }

  async setPaused(collectionId: number, paused: boolean): Promise<void> {
    if (paused) await this.db.query('INSERT INTO job_pauses (collection_id) VALUES ($1) ON CONFLICT DO NOTHING', [collectionId]);
    else await this.db.query('DELETE FROM job_pauses WHERE collection_id = $1', [collectionId]);
  }
}

/** One row per (collection, kind, path): ON CONFLICT cannot touch a row twice in one statement; the last event wins. */
function dedupe(jobs: readonly JobEnqueue[]): JobEnqueue[] {
  const byKey = new Map<string, JobEnqueue>();
  for (const j of jobs) {
    const key = `${j.collectionId}\0${j.kind}\0${j.path}`;
    const prev = byKey.get(key);
    byKey.set(key, prev ? { ...j, priority: Math.max(prev.priority, j.priority), changedAt: Math.max(prev.changedAt, j.changedAt) } : j);
  }
  return [...byKey.values()];
}

function enqueueColumns(jobs: readonly JobEnqueue[]): unknown[] {
  const now = Date.now();
  return [
    jobs.map((j) => j.collectionId),
    jobs.map((j) => j.kind),
    jobs.map((j) => j.path),
    jobs.map((j) => j.priority),
    jobs.map((j) => j.changedAt),
    jobs.map((j) => j.gone),
    jobs.map((j) => j.runAt),
    jobs.map(() => now),
  ];
}
