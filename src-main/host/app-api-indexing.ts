// Index runs started from the app (add, reindex): one at a time, in order, with live progress
// kept as an IndexActivity snapshot and pushed to listeners. It drives index({onProgress}) of the
// Engine (SQLite's queue, or the SharedIndexer's runs and ProgressHub on PostgreSQL) directly; when the engine's own job queue and event stream land, this becomes a view onto them.
import type { IndexActivity, IndexRun } from '../api/results.js';
import type { Engine } from '../engine/index.js';

const RECENT_LIMIT = 20;
/** Progress events can arrive per file; the UI needs a few per second at most. */
const PUSH_INTERVAL_MS = 150;

export class IndexActivityTracker {
  private running: IndexRun | null = null;
  private readonly queue: string[] = [];
  private readonly recent: IndexRun[] = [];
  private readonly listeners = new Set<(a: IndexActivity) => void>();
  private readonly abort = new AbortController();
  private lastPush = 0;
  private pushTimer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;

  constructor(private readonly engine: Pick<Engine, 'index'>) {}

  snapshot(): IndexActivity {
    return { running: this.running ? { ...this.running } : null, queued: [...this.queue], recent: this.recent.map((r) => ({ ...r })) };
  }

  onChange(listener: (a: IndexActivity) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Queues a run (once: a collection already waiting is not queued twice). */
  enqueue(collection: string): IndexActivity {
    if (this.abort.signal.aborted) return this.snapshot();
    if (!this.queue.includes(collection)) this.queue.push(collection);
    this.push(true);
    this.draining ??= this.drain().finally(() => (this.draining = null));
    return this.snapshot();
  }

  /** Resolves when nothing is running or queued (tests and shutdown wait on this). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Stops the running index at its next file and drops the queue. */
  async close(): Promise<void> {
    this.queue.length = 0;
    this.abort.abort();
    await this.idle();
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.listeners.clear();
  }

  private async drain(): Promise<void> {
    for (let name = this.queue.shift(); name !== undefined; name = this.queue.shift()) {
      const run = newRun(name);
      this.running = run;
      this.push(true);
      try {
        const [report] = await this.engine.index({
          collection: name,
          signal: this.abort.signal,
          onProgress: (p) => {
            run.state = p.phase === 'scanning' ? 'scanning' : 'indexing';
            run.done = p.done;
            run.total = p.total;
            run.bytes = p.bytes;
            run.rate = p.rate ?? 0;
            run.etaSeconds = p.etaSeconds ?? null;
            run.currentFile = p.currentFile ?? null;
            this.push(false);
          },
        });
        run.state = 'done';
        if (report) {
          run.summary = {
            scanned: report.scanned,
            added: report.added,
            updated: report.updated,
            unchanged: report.unchanged,
            renamed: report.renamed,
            removed: report.removed,
            chunks: report.chunks,
            skipped: report.skipped.length,
            failed: report.failed.length,
            durationMs: Math.round(report.durationMs),
          };
          run.done = run.total = report.scanned;
        }
      } catch (err) {
        run.state = 'failed';
        run.error = err instanceof Error ? err.message : String(err);
      }
      run.finishedAt = new Date().toISOString();
      run.currentFile = null;
      run.etaSeconds = null;
      this.running = null;
      this.recent.unshift(run);
      this.recent.length = Math.min(this.recent.length, RECENT_LIMIT);
      this.push(true);
    }
  }

  private push(now: boolean): void {
    const elapsed = Date.now() - this.lastPush;
    if (!now && elapsed < PUSH_INTERVAL_MS) {
      this.pushTimer ??= setTimeout(() => {
        this.pushTimer = null;
        this.push(true);
      }, PUSH_INTERVAL_MS - elapsed);
      return;
    }
    if (this.pushTimer) {
      clearTimeout(this.pushTimer);
      this.pushTimer = null;
    }
    this.lastPush = Date.now();
    const snap = this.snapshot();
    for (const l of this.listeners) l(snap);
  }
}

function newRun(collection: string): IndexRun {
  return {
    collection,
    state: 'queued',
    done: 0,
    total: 0,
    bytes: 0,
    rate: 0,
    etaSeconds: null,
    currentFile: null,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    summary: null,
    error: null,
  };
}
