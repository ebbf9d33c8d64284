// The durable queue on SQLite behind the storage interface: store/jobs.ts's statements, and
// claims that need no locks (one host works a profile's file): a claim holds its jobs in memory
// until it completes or is released, so a run may claim its next batches while one is still being
// read and parsed, as PostgreSQL's row locks allow. A claim's completion is the one IMMEDIATE
// transaction the runner has always used: the batch's index rows, the jobs retired, the retries
// recorded, what a scan found.
import type { ChunkStore } from '../chunks.js';
import type { Db } from '../database.js';
import type { DocumentStore } from '../documents.js';
import type { DocumentFreshness, JobCounts, JobEnqueue, JobRow, JobStore } from '../jobs.js';
import type { ClaimedJobs, JobQueue } from '../storage.js';
import { applyIndexBatch } from './index-writer.js';
import type { OcrRows } from './ocr.js';

type Outcome = Parameters<ClaimedJobs['complete']>[0];

export class SqliteJobQueue implements JobQueue {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobStore,
    private readonly documents: DocumentStore,
    private readonly chunks: ChunkStore,
    private readonly ocr: OcrRows,
  ) {}

  async recordEvents(jobs: readonly JobEnqueue[]): Promise<void> {
    this.jobs.recordEvents(jobs);
  }

  async addIfAbsent(jobs: readonly JobEnqueue[]): Promise<void> {
    this.db.transaction(() => {
      for (const j of jobs) this.jobs.addIfAbsent(j);
    })();
  }

  /**
   * A write holds the engine's thread, so the parse workers go on only with documents already
   * claimed. With two batches behind the one written, the bench corpus's 10,112 documents used the
   * two cores 92% of the run against 89.5% with one (three did no better): bench/RESULTS.md.
   */
  readonly claimsAhead = 2;

  /** Ids of the jobs claimed and not yet completed or released: no later claim takes them. */
  private readonly held = new Set<number>();

  async claim(now: number, limit: number, opts: { only?: number; collections?: readonly number[] } = {}): Promise<ClaimedJobs | null> {
    const batch = this.jobs.nextBatch(now, limit, opts.only, opts.collections, this.held);
    if (!batch.length) return null;
    for (const j of batch) this.held.add(j.id);
    return new SqliteClaim(this, batch);
  }

  /** A claim ended (completed or given back): its jobs may be claimed again, those still queued. */
  letGo(jobs: readonly JobRow[]): void {
    for (const j of jobs) this.held.delete(j.id);
  }

  /** One transaction: a scan's findings, retries, retirements, then the index writes (keyword rows last). */
  completeNow(outcome: Outcome): boolean[] {
    let applied: boolean[] = [];
    this.db
      .transaction(() => {
        if (outcome.revive !== undefined) this.jobs.reviveGivenUp(outcome.revive, Date.now());
        for (const j of outcome.found ?? []) this.jobs.addIfAbsent(j);
        for (const r of outcome.retry ?? []) this.jobs.retry(r.job, r.attempts, r.nextRunAt, r.error);
        for (const j of outcome.retire) this.jobs.retire(j);
        if (outcome.write) applied = applyIndexBatch(this.documents, this.chunks, this.ocr, outcome.write);
        for (const r of outcome.retireIfApplied ?? []) if (applied[r.write]) this.jobs.retire(r.job);
      })
      .immediate();
    return applied;
  }

  async nextDueAt(): Promise<number | null> {
    return this.jobs.nextDueAt();
  }

  async dueCount(collectionId: number, now: number): Promise<number> {
    return this.jobs.dueCount(collectionId, now);
  }

  async counts(): Promise<Map<number, JobCounts>> {
    return this.jobs.counts();
  }

  async failures(collectionId: number | undefined, limit: number): Promise<JobRow[]> {
    return this.jobs.failures(collectionId, limit);
  }

  async hasPendingFile(collectionId: number, path: string): Promise<boolean> {
    return this.jobs.hasPendingFile(collectionId, path);
  }

  async makeDue(collectionId: number, now: number): Promise<void> {
    this.jobs.makeDue(collectionId, now);
  }

  async postponeFiles(collectionId: number, now: number, until: number): Promise<void> {
    this.jobs.postponeFiles(collectionId, now, until);
  }

  async deleteForCollection(collectionId: number): Promise<void> {
    this.jobs.deleteForCollection(collectionId);
  }

  async freshness(documentIds: readonly number[]): Promise<DocumentFreshness[]> {
    return this.jobs.freshness(documentIds);
  }

  async pauses(): Promise<Set<number>> {
    return this.jobs.pauses();
  }

  async setPaused(collectionId: number, paused: boolean): Promise<void> {
    this.jobs.setPaused(collectionId, paused);
  }
}

class SqliteClaim implements ClaimedJobs {
  constructor(
    private readonly queue: SqliteJobQueue,
    readonly jobs: readonly JobRow[],
  ) {}

  /** FTS5 makes its terms inside the write: nothing to ready. */
  async stage(): Promise<void> {}

  async complete(outcome: Outcome): Promise<boolean[]> {
    try {
      return this.queue.completeNow(outcome);
    } finally {
      this.queue.letGo(this.jobs);
    }
  }

  async release(): Promise<void> {
    this.queue.letGo(this.jobs);
  }
}
