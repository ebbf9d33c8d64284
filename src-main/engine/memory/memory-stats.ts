// What memory holds, counted: threads with their entries, sources and time ranges (list_threads),
// totals by source and content type, images, tags, keyword index rows; and the persistence
// server's search metrics (memory_search_metrics: one row per memory search, the newest kept).
// Metrics are written a second later, many in one transaction: a commit per search would cost a
// keyword search a good part of its time; a crash loses at most that second's metrics.
import type { Db } from '../store/database.js';
import type { MemoryThread } from '../types/memory.js';
import { isoTime } from './dates.js';

/** Metrics rows kept: the table is pruned back to this many every so often. */
const METRICS_KEPT = 10_000;
const METRICS_FLUSH_MS = 1000;
const METRICS_FLUSH_ROWS = 200;

export class MemoryStats {
  private readonly threadsStmt;
  private readonly totalStmt;
  private readonly bySourceStmt;
  private readonly byTypeStmt;
  private readonly imagesStmt;
  private readonly tagsStmt;
  private readonly threadCountStmt;
  private readonly ftsRowsStmt;
  private readonly segmentsStmt;
  private readonly recordStmt;
  private readonly pruneStmt;
  private readonly metricsStmt;
  private recorded = 0;
  private pending: [string, string, number, number, number][] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly flushTx;

  constructor(private readonly db: Db) {
    this.threadsStmt = db.prepare<[], { thread_id: string; entries: number; sources: number; multimodal: number; first: number; last: number; last_id: number }>(
      `SELECT thread_id, count(*) AS entries, count(DISTINCT source) AS sources, sum(content_type = 'multimodal') AS multimodal,
              min(created_at) AS first, max(created_at) AS last, max(id) AS last_id
         FROM memory_entries GROUP BY thread_id ORDER BY last DESC, thread_id`,
    );
    this.totalStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM memory_entries');
    this.bySourceStmt = db.prepare<[], { k: string; n: number }>('SELECT source AS k, count(*) AS n FROM memory_entries GROUP BY source');
    this.byTypeStmt = db.prepare<[], { k: string; n: number }>('SELECT content_type AS k, count(*) AS n FROM memory_entries GROUP BY content_type');
    this.imagesStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM memory_images');
    this.tagsStmt = db.prepare<[], { n: number }>('SELECT count(DISTINCT tag) AS n FROM memory_tags');
    this.threadCountStmt = db.prepare<[], { n: number }>('SELECT count(DISTINCT thread_id) AS n FROM memory_entries');
    this.ftsRowsStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM memory_fts_docsize');
    this.segmentsStmt = db.prepare<[], { n: number }>('SELECT count(DISTINCT segid) AS n FROM memory_fts_idx');
    this.recordStmt = db.prepare('INSERT INTO memory_search_metrics (query_type, query_text, result_count, execution_time_ms, created_at) VALUES (?, ?, ?, ?, ?)');
    this.pruneStmt = db.prepare(`DELETE FROM memory_search_metrics WHERE id <= (SELECT max(id) FROM memory_search_metrics) - ${METRICS_KEPT}`);
    this.metricsStmt = db.prepare<[], { type: string; count: number; avg: number; last: number | null }>(
      'SELECT query_type AS type, count(*) AS count, avg(execution_time_ms) AS avg, max(created_at) AS last FROM memory_search_metrics GROUP BY query_type ORDER BY query_type',
    );
    this.flushTx = db.transaction((rows: [string, string, number, number, number][]) => {
      for (const r of rows) this.recordStmt.run(...r);
      if (Math.floor(this.recorded / 500) !== Math.floor((this.recorded - rows.length) / 500)) this.pruneStmt.run();
    });
  }

  threads(): MemoryThread[] {
    return this.threadsStmt.all().map((r) => ({
      threadId: r.thread_id,
      entries: r.entries,
      sourceTypes: r.sources,
      multimodal: r.multimodal,
      firstEntry: isoTime(r.first),
      lastEntry: isoTime(r.last),
      lastId: r.last_id,
    }));
  }

  entriesAndThreads(): { entries: number; threads: number } {
    return { entries: this.totalStmt.get()!.n, threads: this.threadCountStmt.get()!.n };
  }

  counts() {
    const tally = (rows: { k: string; n: number }[]) => Object.fromEntries(rows.map((r) => [r.k, r.n]));
    return {
      entries: this.totalStmt.get()!.n,
      threads: this.threadCountStmt.get()!.n,
      bySource: tally(this.bySourceStmt.all()),
      byContentType: tally(this.byTypeStmt.all()),
      images: this.imagesStmt.get()!.n,
      uniqueTags: this.tagsStmt.get()!.n,
      ftsRows: this.ftsRowsStmt.get()!.n,
      segments: this.segmentsStmt.get()!.n,
    };
  }

  record(type: 'fts' | 'semantic' | 'hybrid', query: string, results: number, ms: number): void {
    this.pending.push([type, query.slice(0, 1000), results, Math.round(ms * 1000) / 1000, Date.now()]);
    this.recorded++;
    if (this.pending.length >= METRICS_FLUSH_ROWS) this.flush();
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), METRICS_FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /** Writes the metrics recorded since the last flush (before reading them, and when the engine closes). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (!this.pending.length || !this.db.open) return;
    const rows = this.pending;
    this.pending = [];
    this.flushTx(rows);
  }

  searches(): { type: string; count: number; avgMs: number; lastAt: string | null }[] {
    this.flush();
    return this.metricsStmt.all().map((r) => ({ type: r.type, count: r.count, avgMs: Math.round(r.avg * 1000) / 1000, lastAt: r.last === null ? null : isoTime(r.last) }));
  }
}
