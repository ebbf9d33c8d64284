// What memory holds, counted on SQLite (threads, totals by source and content type, images, tags,
// keyword rows and segments), and the search metrics table: statements prepared once. The engine
// batches the metrics it records (memory/memory-service.ts) and writes them here in one transaction.
import type { Db } from '../database.js';
import type { MemoryCounts, MemorySearchMetric, MemoryThreadRow } from '../storage.js';

/** Metrics rows kept: the table is pruned back to this many every so often. */
const METRICS_KEPT = 10_000;

export class SqliteMemoryCounts {
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
  private readonly recordTx;

  constructor(db: Db) {
    this.threadsStmt = db.prepare<[], MemoryThreadRow>(
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
    this.recordTx = db.transaction((rows: readonly MemorySearchMetric[], prune: boolean) => {
      for (const r of rows) this.recordStmt.run(r.type, r.query, r.results, r.ms, r.at);
      if (prune) this.pruneStmt.run();
    });
  }

  threads(): MemoryThreadRow[] {
    return this.threadsStmt.all();
  }

  entriesAndThreads(): { entries: number; threads: number } {
    return { entries: this.totalStmt.get()!.n, threads: this.threadCountStmt.get()!.n };
  }

  counts(): MemoryCounts {
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

  record(rows: readonly MemorySearchMetric[], prune: boolean): void {
    if (rows.length) this.recordTx(rows, prune);
  }

  searches(): { type: string; count: number; avg: number; last: number | null }[] {
    return this.metricsStmt.all();
  }
}
