// WAL checkpoints off the write path, for a long-running host. SQLite checkpoints inside the commit
// that crosses wal_autocheckpoint (store/database.ts): that one write copies ~16 MB of pages into
// the database file and syncs both files while its caller waits — a store_context_batch that
// usually takes 2–3 ms took ~20 ms then, a single store_context up to ~15 ms instead of ~0.1
// (bench:memory-engine). Here a thread of its own (checkpoint-worker.ts) copies the frames as they
// pile up, on its own connection and in parallel with the writer, so the writer's own checkpoint —
// still there, unchanged, as the safety net — finds little or nothing left to copy. Should the
// thread die, nothing changes but that: the writer checkpoints as it always did.
import type { Worker } from 'node:worker_threads';
import { startWorkerScript } from '../worker-script.js';
import type { CheckpointerInit, CheckpointerReply, CheckpointerRequest, CheckpointerStats } from './checkpoint-worker.js';
import { INLINE_CHECKPOINT_PAGES } from './database.js';

const DEFAULTS: Omit<CheckpointerInit, 'file'> = {
  pollMs: 50,
  // a quarter of the writer's threshold: the writer crosses it with at most a quarter left to copy
  batchFrames: INLINE_CHECKPOINT_PAGES / 4,
  quietMs: 1000,
};
/** How long close waits for the thread to finish a checkpoint under way before stopping it. */
const CLOSE_WAIT_MS = 5_000;

interface Waiter {
  reply: CheckpointerReply['type'];
  resolve: (r: CheckpointerReply) => void;
  reject: (err: Error) => void;
}

export class WalCheckpointer {
  private readonly waiting: Waiter[] = [];
  private readonly exited: Promise<void>;
  private running = true;
  private closing: Promise<void> | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: CheckpointerReply) => {
      const i = this.waiting.findIndex((w) => w.reply === m.type);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
    worker.on('error', (err) => {
      // the writer's own checkpoints go on as before: nothing is lost, they are only inline again
      if (!this.closing) process.stderr.write(`trove: the WAL checkpoint thread stopped (${err.message}); checkpoints run inside writes again\n`);
    });
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        this.running = false;
        for (const w of this.waiting.splice(0)) w.reject(new Error('the WAL checkpoint thread is not running'));
        resolve();
      }),
    );
    worker.unref(); // never what keeps a process alive; close() stops it
  }

  /** Starts the thread on the database file `file` (a WAL database another connection writes). */
  static start(file: string, opts: Partial<Omit<CheckpointerInit, 'file'>> = {}): WalCheckpointer {
    const init: CheckpointerInit = { ...DEFAULTS, ...opts, file };
    return new WalCheckpointer(startWorkerScript(import.meta.url, 'checkpoint-worker', { workerData: init }));
  }

  /** What the thread has done so far. */
  async stats(): Promise<CheckpointerStats> {
    const r = await this.ask({ type: 'stats' }, 'stats');
    return (r as Extract<CheckpointerReply, { type: 'stats' }>).stats;
  }

  /**
   * Stops the thread, after a checkpoint under way (or stops it anyway after CLOSE_WAIT_MS). Close
   * the writer's connection first: the thread's closing descriptor releases the process's locks on
   * the -shm file (checkpoint-worker.ts), and its connection, the last, takes the final checkpoint.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = this.ask({ type: 'close' }, 'closed').then(
        () => this.exited,
        () => undefined, // it had stopped already
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_WAIT_MS)));
      if ((await Promise.race([closed, late])) === 'late') await this.worker.terminate();
      clearTimeout(timer);
    })();
    return this.closing;
  }

  private ask(request: CheckpointerRequest, reply: CheckpointerReply['type']): Promise<CheckpointerReply> {
    return new Promise((resolve, reject) => {
      if (!this.running) return reject(new Error('the WAL checkpoint thread is not running'));
      this.waiting.push({ reply, resolve, reject });
      this.worker.postMessage(request);
    });
  }
}
