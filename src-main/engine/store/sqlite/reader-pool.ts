// Reads on every core for the SQLite backend (issue 29). better-sqlite3 runs every statement on the
// calling thread, so on one host every search's FTS5 query and every document text read ran on the
// one JavaScript thread that also routes calls, serialises answers and writes indexing batches:
// two cores served like one. Here a few worker threads (reader-worker.ts), each with a read-only
// connection to the same file, run the reads that dominate a loaded host; the engine's connection
// keeps every write (one writer) and the small reads.
//
// Consistency: WAL lets these readers run beside the writer, each statement on a snapshot of the
// last committed transaction — never a half-written batch (the writer's transactions run whole on
// the engine's thread). A read is sent after whatever the engine committed before it asked, so it
// sees at least that; it may see a batch committed after the caller looked at the index
// generation. That is the case PostgreSQL's pool already has, and the engine handles it the same
// way: its caches (keyword counts, term counts, texts, names) are keyed by the generation the writes
// bump on the engine's thread, and a page whose chunk left the index between ranking and reading
// is ranked again (search/keyword-search.ts PAGE_ATTEMPTS). The reads of one page (chunks,
// documents, texts) go in one message to one thread, but each statement has its own snapshot.
//
// Lifecycle: threads start on the first read, or as soon as a client calls (warm()); they keep the
// process alive only while they have reads to answer, and close with the storage, after the reads
// in flight. A thread that dies fails its reads with a clear error naming it (the storage's reads,
// through run(), are answered again on the engine's connection), and the next read starts another
// thread in its place.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { TroveError } from '../../errors.js';
import { startWorkerScript } from '../../worker-script.js';
import type { RankExtensionOptions } from '../rank-extension.js';
import { runStatement, type ReadMode } from './read-mode.js';
import type { ReadReply, ReadRequest, ReaderInit } from './reader-worker.js';

/**
 * A reader's JavaScript heap holds only the rows of the reads in flight: small limits keep each
 * thread's share of the host's RSS small (V8's defaults let an idle thread's heap grow to tens of
 * MB). A read whose rows would not fit stops the thread: it is answered on the engine's
 * connection instead (ReaderPool.run) and the next read starts another thread.
 */
const HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 };
/**
 * When the threads are worth their round trip. A read sent to a thread costs the caller a message
 * each way and the thread's wake-up: +0.6–1.3 ms a search measured with one client at a time
 * (bench:mcp, bench:search on this 2-core machine), more than the reads themselves on a small
 * page. Under load that wait is what lets the engine's thread serve other calls and indexing
 * meanwhile. So reads go to the threads once the engine's thread has been busy for nearly all of
 * a window (event loop utilisation), until it has real slack again, and while other reads already
 * wait there. One client calling as fast as it can keeps the host's loop 35–97% busy (median 78%,
 * bench:mcp, 250 ms windows): it stays below the mark and reads here as before.
 */
const LOAD_WINDOW_MS = 250;
const LOADED_FROM = 0.98;
/** Below this the reads come back: while they wait on the threads the loop itself has slack (hysteresis, not a flip every window). */
const LOADED_UNTIL = 0.85;
/** How long close() waits for reads in flight before stopping the threads. */
const CLOSE_WAIT_MS = 5_000;

/** A read whose thread stopped under it: answered again on the engine's connection (ReaderPool.run). */
export class ReaderStoppedError extends TroveError {
  constructor(why: string) {
    super('UNAVAILABLE', `a SQLite reader thread stopped during the read (${why}); try again`);
  }
}

interface Pending {
  resolve: (rows: unknown) => void;
  reject: (err: Error) => void;
}

class Reader {
  readonly pending = new Map<number, Pending>();
  /** Reads asked for in this turn of the event loop, sent together at its end. */
  readonly outbox: ReadRequest[] = [];
  readonly exited: Promise<void>;
  alive = true;

  constructor(
    readonly worker: Worker,
    onExit: (r: Reader) => void,
    onAnswer: () => void,
  ) {
    worker.on('message', (replies: ReadReply[]) => {
      for (const m of replies) {
        const p = this.pending.get(m.id);
        if (!p) continue;
        this.pending.delete(m.id);
        if ('error' in m) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
        else p.resolve(m.rows);
        onAnswer();
      }
      if (this.pending.size === 0) worker.unref();
    });
    let failure: Error | null = null;
    worker.on('error', (err) => (failure = err));
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.alive = false;
        const why = failure ? failure.message : `exit code ${code}`;
        for (const p of this.pending.values()) p.reject(new ReaderStoppedError(why));
        this.pending.clear();
        onExit(this);
        resolve();
      }),
    );
    worker.unref();
  }

  /**
   * Sends a read with the others asked for in the same turn of the event loop (a page's chunks,
   * documents and texts): one message each way for all of them. A message wakes the thread, and on
   * a loaded machine a wake-up can cost the sender its core (measured under reliability:load:
   * 2.4 s of the engine thread's 30 s in postMessage with one message per read). The thread
   * keeps the process alive while it has reads to answer, and only then.
   */
  send(request: ReadRequest, p: Pending): void {
    if (this.pending.size === 0) this.worker.ref();
    this.pending.set(request.id, p);
    if (this.outbox.push(request) === 1) queueMicrotask(() => this.worker.postMessage(this.outbox.splice(0)));
  }
}

export interface ReaderPoolOptions {
  /** Threads in the pool (0: none; every read stays on the engine's connection). */
  threads: number;
  /** `always`: every read to a thread (tests); `loaded` (default): only while the engine's thread is busy (LOADED_FROM). */
  offload?: 'always' | 'loaded';
  nativeRank?: RankExtensionOptions;
}

export class ReaderPool {
  private readonly readers: (Reader | null)[];
  private nextId = 1;
  private closing: Promise<void> | null = null;
  /** Reads sent and not yet answered, over every thread. */
  private inFlight = 0;
  /** Reads the threads have answered (tests, benches). */
  served = 0;
  /** Reads a thread failed and the engine's connection answered (tests: a thread lacking what a statement needs). */
  answeredHere = 0;
  private drained: (() => void) | null = null;
  private window: { start: number; elu: EventLoopUtilization } | null = null;
  private loaded = false;

  constructor(
    private readonly file: string,
    private readonly opts: ReaderPoolOptions,
  ) {
    this.readers = Array.from({ length: Math.max(0, Math.floor(opts.threads)) }, () => null);
  }

  /** False when reads must stay on the engine's connection (no threads, or closing). */
  get enabled(): boolean {
    return this.readers.length > 0 && !this.closing;
  }

  /** Rows of `sql` run with `params` on the least busy reader thread. */
  read<T>(sql: string, params: readonly unknown[], mode: ReadMode = 'all'): Promise<T> {
    if (!this.enabled) return Promise.reject(new TroveError('UNAVAILABLE', 'the SQLite reader threads are closed'));
    const reader = this.pick();
    const id = this.nextId++;
    this.inFlight++;
    return new Promise<T>((resolve, reject) => {
      reader.send({ id, sql, params: params as unknown[], mode }, { resolve: resolve as (rows: unknown) => void, reject });
    }).finally(() => {
      if (--this.inFlight === 0) this.drained?.();
    });
  }

  /**
   * `stmt` (a statement of the engine's connection) on a reader thread when the pool runs, else on
   * the engine's connection. A read that failed on a thread — its thread died, or the thread lacks
   * something the engine's connection has (the native rank function did not load there) — is run
   * there once more, and that answer or error is the read's: a thread costs a read time, never
   * an answer.
   */
  run<T>(stmt: Statement, params: readonly unknown[], mode: ReadMode = 'all'): Promise<T> {
    const here = (): T => runStatement(stmt, params, mode) as T;
    if (!this.enabled || !this.worthIt()) return Promise.resolve(here());
    return this.read<T>(stmt.source, params, mode).catch(() => {
      this.answeredHere++;
      return here();
    });
  }

  /**
   * Starts the threads not running yet, so a burst of reads does not wait for their start (loading
   * the modules, opening the file). Idle, they keep nothing alive and read nothing.
   */
  warm(): void {
    if (!this.enabled) return;
    for (let i = 0; i < this.readers.length; i++) if (!this.readers[i]?.alive) this.readers[i] = this.start(i);
  }

  /** Whether a read now goes to a thread (see LOADED_FROM). */
  private worthIt(): boolean {
    if (this.opts.offload === 'always' || this.inFlight > 0) return true;
    const now = performance.now();
    if (!this.window) this.window = { start: now, elu: performance.eventLoopUtilization() };
    else if (now - this.window.start >= LOAD_WINDOW_MS) {
      const elu = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(elu, this.window.elu).utilization;
      this.loaded = busy >= (this.loaded ? LOADED_UNTIL : LOADED_FROM);
      this.window = { start: now, elu };
    }
    return this.loaded;
  }

  /** The live threads (tests stop one to see the pool survive it). */
  threadsForTest(): Worker[] {
    return this.readers.filter((r): r is Reader => !!r?.alive).map((r) => r.worker);
  }

  /** Waits for the reads in flight (at most CLOSE_WAIT_MS), then stops the threads; reads after this are refused. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise<void>((r) => (this.drained = r)), new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
      }
      const live = this.readers.filter((r): r is Reader => !!r?.alive);
      for (const r of live) r.worker.postMessage({ type: 'close' });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), CLOSE_WAIT_MS)));
      if ((await Promise.race([Promise.all(live.map((r) => r.exited)), late])) === 'late') await Promise.all(live.map((r) => r.worker.terminate()));
      clearTimeout(timer);
    })();
    return this.closing;
  }

  /**
   * The thread whose batch of this turn is forming (one message for a search's reads), else an idle
   * one (started if need be), else the one with the fewest reads waiting.
   */
  private pick(): Reader {
    const forming = this.readers.find((r) => r?.alive && r.outbox.length > 0);
    if (forming) return forming;
    let best = -1;
    for (let i = 0; i < this.readers.length; i++) {
      const r = this.readers[i];
      if (!r || !r.alive) return (this.readers[i] = this.start(i));
      if (best < 0 || r.pending.size < this.readers[best]!.pending.size) best = i;
      if (r.pending.size === 0) break;
    }
    return this.readers[best]!;
  }

  private start(slot: number): Reader {
    const init: ReaderInit = { file: this.file, nativeRank: this.opts.nativeRank };
    const worker = startWorkerScript(import.meta.url, 'reader-worker', { workerData: init, name: `trove-sqlite-reader-${slot}`, resourceLimits: HEAP_LIMITS });
    return new Reader(worker, (r) => {
      if (this.readers[slot] === r) this.readers[slot] = null; // the next read starts another
    }, () => this.served++);
  }
}
