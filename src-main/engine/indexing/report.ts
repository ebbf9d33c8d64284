// Adds up what the queue did for one collection while `Engine.index` waited on it, in the
// shape the CLI prints (IndexReport). The folder may be scanned more than once meanwhile (the
// watcher's start-up reconcile and this call's own scan): each scan walks the whole folder, so
// the latest one says how many files there are, and a file is counted once, by what happened to it.
import type { FileOutcome, IndexReport, ReconcilePlan } from '../ingest/indexer.js';

export class ReportCollector {
  private readonly started = performance.now();
  readonly report: IndexReport;

  constructor(collection: string) {
    this.report = {
      collection,
      scanned: 0,
      added: 0,
      updated: 0,
      unchanged: 0,
      renamed: 0,
      removed: 0,
      skipped: [],
      failed: [],
      notices: [],
      chunks: 0,
      bytesRead: 0,
      durationMs: 0,
    };
  }

  private readonly noticed = new Set<string>();
  /** Paths the latest scan listed as new or changed. */
  private listed = new Set<string>();
  private ignored = 0;

  scanned(plan: ReconcilePlan): void {
    this.report.scanned = plan.scanned;
    this.listed = new Set(plan.changed.map((c) => c.path));
    for (const n of plan.notices) this.notice(n);
  }

  file(o: FileOutcome): void {
    const r = this.report;
    switch (o.result) {
      case 'added':
      case 'updated':
        r[o.result]++;
        r.chunks += o.chunks;
        r.bytesRead += o.bytes;
        break;
      case 'renamed':
        r.renamed++;
        r.bytesRead += o.bytes;
        break;
      case 'unchanged': // same content under a new mtime: counted by finish()
        r.bytesRead += o.bytes;
        break;
      case 'removed':
        r.removed++;
        break;
      case 'skipped':
      case 'failed':
        r[o.result].push({ path: o.path, reason: o.reason });
        break;
      case 'ignored':
        // listed by the scan, gone (or excluded) by the time it was read
        if (this.listed.has(o.path)) this.ignored++;
        if (o.reason) this.notice({ path: o.path, reason: o.reason });
        break;
    }
  }

  finish(): IndexReport {
    const r = this.report;
    // every scanned file was either unchanged (fast path or same hash) or has an outcome above
    r.unchanged = Math.max(0, r.scanned - r.added - r.updated - r.renamed - r.skipped.length - r.failed.length - this.ignored);
    r.durationMs = Math.round(performance.now() - this.started);
    return r;
  }

  private notice(n: { path: string; reason: string }): void {
    const key = `${n.path}\0${n.reason}`;
    if (this.noticed.has(key)) return;
    this.noticed.add(key);
    this.report.notices.push(n);
  }
}
