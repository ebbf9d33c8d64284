// The jobs and job_pauses tables: the durable queue between the watcher (and reconcile scans)
// and the indexer. A job is one path of one collection (or a whole-folder scan); a new event for
// the same path coalesces into the existing row and bumps its version, so a job that changed
// while it ran is not retired and runs again.
import type { Db } from './database.js';

export type JobKind = 'scan' | 'file';

export interface JobRow {
  id: number;
  collectionId: number;
  kind: JobKind;
  path: string;
  priority: number;
  changedAt: number;
  gone: boolean;
  version: number;
  attempts: number;
  nextRunAt: number | null;
  lastError: string | null;
}

interface RawJob {
  id: number;
  collection_id: number;
  kind: JobKind;
  path: string;
  priority: number;
  changed_at: number;
  gone: number;
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
    gone: r.gone === 1,
    version: r.version,
    attempts: r.attempts,
    nextRunAt: r.next_run_at,
    lastError: r.last_error,
  };
}

export interface JobEnqueue {
  collectionId: number;
  kind: JobKind;
  path: string;
  priority: number;
  changedAt: number;
  gone: boolean;
  runAt: number;
}

export interface JobCounts {
  collectionId: number;
  /** Due now or later (includes retries waiting for their backoff). */
  queued: number;
  /** Failed at least once and still retrying. */
  retrying: number;
  /** Gave up until the file changes again. */
  gaveUp: number;
}

export interface DocumentFreshness {
  documentId: number;
  collectionId: number;
  root: string;
  path: string;
  size: number;
  mtimeMs: number;
  indexedAt: number;
  /** A file job is queued (or retrying) for the document's path. */
  pending: boolean;
}

export const GLOBAL_PAUSE = 0;

export class JobStore {
  private readonly upsertEventStmt;
  private readonly insertIfAbsentStmt;
  private readonly topStmt;
  private readonly topAmongStmt;
  private readonly batchStmt;
  private readonly retireStmt;
  private readonly retryStmt;
  private readonly nextDueStmt;
  private readonly dueCountStmt;
  private readonly countsStmt;
  private readonly failuresStmt;
  private readonly pendingPathStmt;
  private readonly makeDueStmt;
  private readonly reviveStmt;
  private readonly postponeStmt;
  private readonly deleteForCollectionStmt;
  private readonly pausesStmt;
  private readonly pauseStmt;
  private readonly resumeStmt;
  private readonly freshnessStmt;

  constructor(private readonly db: Db) {
    // A fresh event wins: it resets the retry schedule (a fixed file clears its failure) and says
    // whether the path is there now; the version bump keeps a running copy from retiring it.
    this.upsertEventStmt = db.prepare(
      `INSERT INTO jobs (collection_id, kind, path, priority, changed_at, gone, next_run_at, created_at)
       VALUES (@collectionId, @kind, @path, @priority, @changedAt, @gone, @runAt, @now)
       ON CONFLICT (collection_id, kind, path) DO UPDATE SET
         version = version + 1, priority = max(priority, excluded.priority), changed_at = max(changed_at, excluded.changed_at),
         gone = excluded.gone, next_run_at = excluded.next_run_at, attempts = 0, last_error = NULL`,
    );
    // What a reconcile scan finds: never disturbs a job already queued (or backing off).
    this.insertIfAbsentStmt = db.prepare(
      `INSERT INTO jobs (collection_id, kind, path, priority, changed_at, gone, next_run_at, created_at)
       VALUES (@collectionId, @kind, @path, @priority, @changedAt, @gone, @runAt, @now)
       ON CONFLICT (collection_id, kind, path) DO NOTHING`,
    );
    const order = 'ORDER BY priority DESC, gone, changed_at DESC, id';
    // each takes the ids of the jobs claimed and not yet completed or released, as a JSON array
    const notHeld = 'id NOT IN (SELECT value FROM json_each(?))';
    this.topStmt = db.prepare<[number, string], RawJob>(
      `SELECT * FROM jobs WHERE next_run_at <= ? AND collection_id NOT IN (SELECT collection_id FROM job_pauses)
         AND ${notHeld} ${order} LIMIT 1`,
    );
    this.topAmongStmt = db.prepare<[number, string, string], RawJob>(
      `SELECT * FROM jobs WHERE next_run_at <= ? AND collection_id IN (SELECT value FROM json_each(?))
         AND collection_id NOT IN (SELECT collection_id FROM job_pauses) AND ${notHeld} ${order} LIMIT 1`,
    );
    this.batchStmt = db.prepare<[number, string, number, string, number], RawJob>(
      `SELECT * FROM jobs WHERE collection_id = ? AND kind = ? AND next_run_at <= ? AND ${notHeld} ${order} LIMIT ?`,
    );
    this.retireStmt = db.prepare('DELETE FROM jobs WHERE id = ? AND version = ?');
    this.retryStmt = db.prepare(
      'UPDATE jobs SET attempts = ?, next_run_at = ?, last_error = ?, priority = min(priority, 0) WHERE id = ? AND version = ?',
    );
    this.nextDueStmt = db.prepare<[], { at: number | null }>(
      `SELECT min(next_run_at) AS at FROM jobs WHERE next_run_at IS NOT NULL
         AND collection_id NOT IN (SELECT collection_id FROM job_pauses)`,
    );
    this.dueCountStmt = db.prepare<[number, number], { n: number }>(
      'SELECT count(*) AS n FROM jobs WHERE collection_id = ? AND next_run_at <= ?',
    );
    this.countsStmt = db.prepare<[], { collection_id: number; queued: number; retrying: number; gave_up: number }>(
      `SELECT collection_id, sum(next_run_at IS NOT NULL) AS queued,
              sum(next_run_at IS NOT NULL AND attempts > 0) AS retrying, sum(next_run_at IS NULL) AS gave_up
         FROM jobs GROUP BY collection_id`,
    );
    this.failuresStmt = db.prepare<[number, number, number], RawJob>(
      'SELECT * FROM jobs WHERE attempts > 0 AND (? = 0 OR collection_id = ?) ORDER BY collection_id, path LIMIT ?',
    );
    this.pendingPathStmt = db.prepare<[number, string], { one: number }>(
      "SELECT 1 AS one FROM jobs WHERE collection_id = ? AND kind = 'file' AND path = ? AND next_run_at IS NOT NULL",
    );
    this.makeDueStmt = db.prepare('UPDATE jobs SET next_run_at = ? WHERE collection_id = ? AND (next_run_at IS NULL OR next_run_at > ?)');
    this.postponeStmt = db.prepare("UPDATE jobs SET next_run_at = ? WHERE collection_id = ? AND kind = 'file' AND next_run_at <= ?");
    this.reviveStmt = db.prepare('UPDATE jobs SET next_run_at = ? WHERE collection_id = ? AND next_run_at IS NULL');
    this.deleteForCollectionStmt = db.prepare('DELETE FROM jobs WHERE collection_id = ?');
    this.pausesStmt = db.prepare<[], { collection_id: number }>('SELECT collection_id FROM job_pauses');
    this.pauseStmt = db.prepare('INSERT OR IGNORE INTO job_pauses (collection_id) VALUES (?)');
    this.resumeStmt = db.prepare('DELETE FROM job_pauses WHERE collection_id = ?');
    this.freshnessStmt = db.prepare<[string], Omit<DocumentFreshness, 'pending'> & { pending: number }>(
      // a document inside a file (an e-mail's attachment) is as fresh as its file: f is the file's row
      `SELECT d.id AS documentId, d.collection_id AS collectionId, c.root, f.path, f.size, f.mtime_ms AS mtimeMs,
              d.indexed_at AS indexedAt,
              EXISTS (SELECT 1 FROM jobs j WHERE j.collection_id = d.collection_id AND j.kind = 'file'
                         AND j.path = f.path AND j.next_run_at IS NOT NULL) AS pending
         FROM json_each(?) ids JOIN documents d ON d.id = ids.value JOIN collections c ON c.id = d.collection_id
         JOIN documents f ON f.id = coalesce(d.parent_id, d.id)`,
    );
  }

  /** Records watcher events (one transaction for the lot). */
  recordEvents(jobs: readonly JobEnqueue[]): void {
    const now = Date.now();
    this.db.transaction(() => {
      for (const j of jobs) this.upsertEventStmt.run({ ...j, gone: j.gone ? 1 : 0, now });
    })();
  }

  /** Adds jobs unless one is already queued for the same path. Call inside a transaction for many. */
  addIfAbsent(j: JobEnqueue): void {
    this.insertIfAbsentStmt.run({ ...j, gone: j.gone ? 1 : 0, now: Date.now() });
  }

  /**
   * The next batch: jobs of the collection and kind of the most urgent due job, most urgent
   * first; paused collections are left alone unless `only` names one explicitly, and `held` jobs
   * (claimed, not yet completed) are never given out twice.
   */
  nextBatch(now: number, limit: number, only?: number, collections?: readonly number[], held: Iterable<number> = []): JobRow[] {
    const skip = JSON.stringify([...held]);
    let top: RawJob | undefined;
    if (only === undefined) top = collections ? this.topAmongStmt.get(now, JSON.stringify(collections), skip) : this.topStmt.get(now, skip);
    else {
      top = this.batchStmt.get(only, 'scan', now, skip, 1) ?? this.batchStmt.get(only, 'file', now, skip, 1);
    }
    if (!top) return [];
    if (top.kind === 'scan') return [fromRaw(top)];
    return this.batchStmt.all(top.collection_id, 'file', now, skip, limit).map(fromRaw);
  }

  /** Done: drops the job unless a newer event arrived while it ran. */
  retire(job: Pick<JobRow, 'id' | 'version'>): void {
    this.retireStmt.run(job.id, job.version);
  }

  /** Failed: keep it with its reason and the time of the next attempt (null: give up). */
  retry(job: Pick<JobRow, 'id' | 'version'>, attempts: number, nextRunAt: number | null, error: string): void {
    this.retryStmt.run(attempts, nextRunAt, error, job.id, job.version);
  }

  /** Earliest time any unpaused job becomes due (null: nothing waiting). */
  nextDueAt(): number | null {
    return this.nextDueStmt.get()?.at ?? null;
  }

  dueCount(collectionId: number, now: number): number {
    return this.dueCountStmt.get(collectionId, now)!.n;
  }

  counts(): Map<number, JobCounts> {
    const out = new Map<number, JobCounts>();
    for (const r of this.countsStmt.all()) {
      out.set(r.collection_id, { collectionId: r.collection_id, queued: r.queued, retrying: r.retrying, gaveUp: r.gave_up });
    }
    return out;
  }

  /** Jobs that failed at least once (with reason, attempts and next retry). */
  failures(collectionId: number | undefined, limit: number): JobRow[] {
    const c = collectionId ?? 0;
    return this.failuresStmt.all(c, c, limit).map(fromRaw);
  }

  hasPendingFile(collectionId: number, path: string): boolean {
    return this.pendingPathStmt.get(collectionId, path) !== undefined;
  }

  /** An explicit "index now": everything of the collection is due, failures included. */
  makeDue(collectionId: number, now: number): void {
    this.makeDueStmt.run(now, collectionId, now);
  }

  /**
   * The collection's folder is gone for now: its due file jobs wait (no attempt is counted). Not
   * its scan: postponing that too (a fresh one an explicit run just queued, or one backing off)
   * let the file jobs of an unplugged drive push it back every time they woke, so its retries
   * never advanced and an explicit run ended at once without saying the folder is gone.
   */
  postponeFiles(collectionId: number, now: number, until: number): void {
    this.postponeStmt.run(until, collectionId, now);
  }

  /**
   * Every reconcile gives the jobs that gave up one more try: some fixes leave no trace a watcher
   * or a size/mtime check can see (chmod). A new failure gives up again at once.
   */
  reviveGivenUp(collectionId: number, now: number): void {
    this.reviveStmt.run(now, collectionId);
  }

  deleteForCollection(collectionId: number): void {
    this.deleteForCollectionStmt.run(collectionId);
    this.resumeStmt.run(collectionId);
  }

  /** What freshness needs about these documents (see watch/freshness.ts); one query for a page of results. */
  freshness(documentIds: readonly number[]): DocumentFreshness[] {
    return this.freshnessStmt.all(JSON.stringify(documentIds)).map((r) => ({ ...r, pending: r.pending === 1 }));
  }

  /** Paused collection ids; GLOBAL_PAUSE (0) means everything is paused. */
  pauses(): Set<number> {
    return new Set(this.pausesStmt.all().map((r) => r.collection_id));
  }

  setPaused(collectionId: number, paused: boolean): void {
    if (paused) this.pauseStmt.run(collectionId);
    else this.resumeStmt.run(collectionId);
  }
}
