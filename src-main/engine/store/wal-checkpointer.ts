// WAL checkpoints off the write path, for a long-running host. By default SQLite checkpoints
// inside the commit that crosses wal_autocheckpoint: that one write copies ~16 MB of pages into
// the database file and syncs both files while its caller waits (a store_context_batch that
// usually takes 2–3 ms took ~20 ms then; bench:memory-engine). Here a thread of its own
// (checkpoint-worker.ts) does it a few times a second on its own connection, in parallel with
// the writer, and the engine's connection keeps a far larger wal_autocheckpoint only as a
// safety net: should the thread fall behind or die, the writer checkpoints by itself as before.
import type { Worker } from 'node:worker_threads';
import { startWorkerScript } from '../worker-script.js';
import type { CheckpointerInit, CheckpointerReply, CheckpointerRequest, CheckpointerStats } from './checkpoint-worker.js';
import type { Db } from './database.js';
import { INLINE_CHECKPOINT_PAGES } from './database.js';

/** The writer's own checkpoint threshold while the thread runs: 64 MB of WAL (4x the inline one). */
const SAFETY_NET_PAGES = 16_000;
const DEFAULT_PERIOD_MS = 250;
/** How long close waits for the thread to finish a checkpoint under way before stopping it. */
const CLOSE_WAIT_MS = 5_000;

export class WalCheckpointer {
  private readonly waiting = new Map<CheckpointerReply['type'], ((s: CheckpointerStats) => void)[]>();
  private readonly exited: Promise<void>;
  private stopped = false;

  private constructor(
    private readonly db: Db,
    private readonly worker: Worker,
  ) {
    worker.on('message', (m: CheckpointerReply) => {
      for (const settle of this.waiting.get(m.type)?.splice(0) ?? []) settle(m.stats);
    });
    worker.on('error', (err) => {
      // the writer takes its checkpoints back; nothing is lost, they only run inline again
      if (!this.stopped) this.inline(`the WAL checkpoint thread failed (${err.message}); checkpoints run inline again`);
    });
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    void this.exited.then(() => {
      if (!this.stopped) this.inline('the WAL checkpoint thread stopped; checkpoints run inline again');
    });
    worker.unref(); // never what keeps a process alive; close() stops it
  }

  /** Starts the thread on the database file `file`, which `db` (the engine's connection) writes. */
  static start(db: Db, file: string, opts: { periodMs?: number } = {}): WalCheckpointer {
    const init: CheckpointerInit = { file, periodMs: opts.periodMs ?? DEFAULT_PERIOD_MS };
    const worker = startWorkerScript(import.meta.url, 'checkpoint-worker', { workerData: init });
    db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    return new WalCheckpointer(db, worker);
  }

  /** What the thread has done so far. */
  stats(): Promise<CheckpointerStats> {
    return this.ask({ type: 'stats' }, 'stats');
  }

  /** Stops the thread (after a checkpoint under way) and gives the writer its checkpoints back. Call before closing the connection. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
    const closed = this.ask({ type: 'close' }, 'closed').then(() => this.exited);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_WAIT_MS)));
    if ((await Promise.race([closed, late])) === 'late') await this.worker.terminate();
    clearTimeout(timer);
  }

  private ask(request: CheckpointerRequest, reply: CheckpointerReply['type']): Promise<CheckpointerStats> {
    return new Promise((resolve, reject) => {
      const settle = (s: CheckpointerStats) => resolve(s);
      this.waiting.set(reply, [...(this.waiting.get(reply) ?? []), settle]);
      this.exited.then(() => reject(new Error('the WAL checkpoint thread is not running')), reject);
      this.worker.postMessage(request);
    });
  }

  private inline(why: string): void {
    this.stopped = true;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
    process.stderr.write(`trove: ${why}\n`);
  }
}
