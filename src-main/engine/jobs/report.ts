// Adds up what the queue did for one collection while `Engine.index` waited on it, in the
// shape the CLI prints (IndexReport).
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

  scanned(plan: ReconcilePlan): void {
    this.report.scanned += plan.scanned;
    this.report.unchanged += plan.unchanged;
    this.report.notices.push(...plan.notices);
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
      case 'unchanged':
        r.unchanged++;
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
        if (o.reason) r.notices.push({ path: o.path, reason: o.reason });
        break;
    }
  }

  finish(): IndexReport {
    this.report.durationMs = Math.round(performance.now() - this.started);
    return this.report;
  }
}
