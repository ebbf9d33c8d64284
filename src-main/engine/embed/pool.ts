// A pool of model workers with one shared queue: each free worker takes the next request.
// Queries jump the queue so a search never waits behind a whole indexing backlog (at most
// behind the one chunk each worker is running). Background work (the automatic embedding
// stage) runs only on the pool's background workers: the last `backgroundWorkers` of them, at a
// lower OS thread priority where the platform has per-thread priorities (Linux), so the other
// workers stay free for queries and the main thread wins the CPU over them. close() is graceful:
// queued work is rejected, each worker finishes its current run, releases its session and exits.
import type { Worker } from 'node:worker_threads';
import { TroveError } from '../errors.js';
import { startWorkerScript } from '../worker-script.js';
import { prepareModelFiles } from './model-prepare.js';
import type { ResolvedModel } from './resolver.js';
import type { TextKind } from './onnx-model.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './worker.js';

export interface PoolOptions {
  workers: number;
  intraOpThreads: number;
  /** The exact int8 weight rewrite where this CPU allows it (signed-weights.ts). */
  signedWeights: boolean;
  /**
   * Where the rewritten file is kept (model-rewrites.ts: made here once, named by the original's
   * sha256), so the workers load a path: each worker making its own in-memory copy held ~60 MB more
   * for good (bench/RESULTS.md, issue 29). Without it (or when it cannot be written) each worker rewrites.
   */
  signedCacheDir?: string;
  /** Workers that take background requests (the last ones). Default 0: background requests go to any worker. */
  backgroundWorkers?: number;
  /** Niceness of the background workers' threads and of the one that prepares the model files (Linux; 0 leaves them alone). Default 10. */
  backgroundNice?: number;
}

/** urgent: a query, ahead of everything; normal: an explicit request; background: the automatic stage. */
export type Lane = 'urgent' | 'normal' | 'background';

type Payload = { op: 'embed'; texts: string[]; kind: TextKind; batchSize: number } | { op: 'score'; query: string; passages: string[]; batchSize: number };

interface Job {
  payload: Payload;
  lane: Lane;
  /** A background job any worker may take (nobody is searching: the stage lends it every core). */
  anyWorker: boolean;
  resolve: (buf: ArrayBuffer) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  exited: Promise<void>;
  background: boolean;
}

export class ModelPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private broken: Error | null = null;
  private readonly pending = new Map<number, { slot: Slot; job: Job }>();

  private constructor(readonly model: ResolvedModel, readonly dims: number) {}

  static async start(model: ResolvedModel, opts: PoolOptions): Promise<ModelPool> {
    if (model.spec.role === 'ocr') throw new TroveError('INTERNAL', `"${model.spec.id}" is OCR language data, not an ONNX model`);
    const rewrites = { quantized: model.variant === 'int8', signedWeights: opts.signedWeights };
    const backgroundNice = opts.backgroundNice ?? 10;
    // made in a thread of their own; when they cannot be made, each worker rewrites in memory
    const prepared = opts.signedCacheDir
      ? await prepareModelFiles({ file: model.weightsFile, sha256: model.weightsSha256, cacheDir: opts.signedCacheDir, rewrites, nice: backgroundNice }).catch(() => null)
      : null;
    const init: WorkerInit = {
      role: model.spec.role,
      spec: model.spec,
      dir: model.dir,
      weightsFile: prepared?.file ?? model.weightsFile,
      unmaskedFile: model.spec.role === 'embed' ? (prepared?.unmasked ?? null) : null,
      variant: model.variant,
      intraOpThreads: opts.intraOpThreads,
      signedWeights: opts.signedWeights,
      prepared: prepared !== null, // the prepared file (or the original, when no rewrite applies to it) is what this CPU should load
      nice: 0,
    };
    const count = Math.max(1, opts.workers);
    const wanted = Math.max(0, opts.backgroundWorkers ?? 0);
    const background = Math.min(count, wanted);
    const started = Array.from({ length: count }, (_, i) => {
      const isBackground = i >= count - background;
      const worker = startWorkerScript(import.meta.url, 'worker', { workerData: { ...init, nice: isBackground ? backgroundNice : 0 } });
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      const ready = new Promise<number>((resolve, reject) => {
        worker.once('message', (m: WorkerReply) => ('ready' in m && m.ready ? resolve(m.dims) : reject(replyError(m))));
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new TroveError('INTERNAL', `model worker exited during start-up (code ${code})`)));
      });
      return { worker, exited, ready, isBackground };
    });
    const results = await Promise.allSettled(started.map((s) => s.ready));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      // close the ones that did start, then report why the others did not
      await Promise.all(started.map(async (s, i) => {
        if (results[i]!.status === 'fulfilled') s.worker.postMessage({ op: 'close' } satisfies WorkerRequest);
        await s.exited;
      }));
      const err = (failed as PromiseRejectedResult).reason as unknown;
      throw err instanceof TroveError ? err : new TroveError('INTERNAL', `cannot start a model worker: ${String(err)}`);
    }
    const pool = new ModelPool(model, (results[0] as PromiseFulfilledResult<number>).value);
    for (const s of started) pool.adopt(s.worker, s.exited, s.isBackground);
    return pool;
  }

  get size(): number {
    return this.slots.length;
  }

  /** Workers running a request now. */
  get running(): number {
    return this.slots.filter((s) => s.job).length;
  }

  /** Workers that take background requests. */
  get backgroundSize(): number {
    return this.slots.filter((s) => s.background).length;
  }

  /**
   * Unit vectors, flat [texts.length * dims]. `urgent` requests (queries) go to the head of the
   * queue; `background` ones wait for a background worker (and go to any worker in a pool that has
   * none, or when `anyWorker`: they still queue behind everything else).
   */
  async embed(texts: string[], kind: TextKind, opts: { batchSize?: number; lane?: Lane; anyWorker?: boolean } = {}): Promise<Float32Array> {
    const buf = await this.submit({ op: 'embed', texts, kind, batchSize: opts.batchSize ?? 1 }, opts.lane ?? 'normal', opts.anyWorker ?? false);
    return new Float32Array(buf);
  }

  async score(query: string, passages: string[], batchSize = 1): Promise<Float32Array> {
    return new Float32Array(await this.submit({ op: 'score', query, passages, batchSize }, 'urgent', false));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new TroveError('UNAVAILABLE', 'the model was unloaded'));
    for (const s of this.slots) {
      s.worker.ref();
      s.worker.postMessage({ op: 'close' } satisfies WorkerRequest);
    }
    await Promise.all(this.slots.map((s) => s.exited));
  }

  private adopt(worker: Worker, exited: Promise<void>, background: boolean): void {
    const slot: Slot = { worker, job: null, exited, background };
    worker.unref(); // idle workers must not keep a process alive; busy ones are ref'd (see pump)
    worker.on('message', (m: WorkerReply) => this.onReply(slot, m));
    worker.on('error', (err) => this.fail(slot, err));
    worker.on('exit', () => {
      if (!this.closed) this.fail(slot, new Error('model worker exited unexpectedly'));
    });
    this.slots.push(slot);
  }

  private submit(payload: Payload, lane: Lane, anyWorker = false): Promise<ArrayBuffer> {
    if (this.closed) return Promise.reject(new TroveError('UNAVAILABLE', 'the model was unloaded'));
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      const job = { payload, lane, anyWorker, resolve, reject };
      if (lane === 'urgent') this.queue.unshift(job);
      else this.queue.push(job);
      this.pump();
    });
  }

  /** The next queued job this worker may take: background jobs only on background workers (when the pool has any). */
  private takeFor(slot: Slot): Job | undefined {
    const anyBackground = this.slots.some((s) => s.background);
    const i = this.queue.findIndex((j) => j.lane !== 'background' || j.anyWorker || slot.background || !anyBackground);
    return i < 0 ? undefined : this.queue.splice(i, 1)[0];
  }

  private pump(): void {
        // foreground workers first: a query arriving while a background chunk runs finds one free
    const order = [...this.slots.filter((s) => !s.background), ...this.slots.filter((s) => s.background)];
    for (const slot of order) {
      if (slot.job || !this.queue.length) continue;
      const job = this.takeFor(slot);
      if (!job) continue;
      const id = this.nextId++;
      slot.job = job;
      slot.worker.ref(); // someone awaits this reply: keep the process alive until it comes
      this.pending.set(id, { slot, job });
      slot.worker.postMessage({ id, ...job.payload } satisfies WorkerRequest);
    }
  }

  private onReply(slot: Slot, m: WorkerReply): void {
    if (!('id' in m)) return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    slot.job = null;
    // closing: the worker stays ref'd until it has exited, or the process could end before it does
    if (!this.closed) slot.worker.unref();
    if ('error' in m) p.job.reject(replyError(m));
    else p.job.resolve('vectors' in m ? m.vectors : m.scores);
    this.pump();
  }

  private fail(slot: Slot, err: Error): void {
    this.broken = new TroveError('INTERNAL', `model worker failed: ${err.message}`);
    for (const [id, p] of this.pending) {
      if (p.slot !== slot) continue;
      this.pending.delete(id);
      p.job.reject(this.broken);
    }
    slot.job = null;
  }
}

function replyError(m: WorkerReply): TroveError {
  const e = 'error' in m ? m.error : { code: 'INTERNAL', message: 'model worker failed' };
  return new TroveError(e.code as TroveError['code'], e.message);
}
