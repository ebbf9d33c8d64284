// OCR worker threads with one shared queue of page requests. Workers start when work arrives (at
// most one per core: recognition keeps a core busy for seconds a page) and leave after a quiet
// spell; each runs niced (ocr-worker.ts). Every request has a time limit: a worker past it is
// terminated (plain JavaScript and WebAssembly, safe to stop anywhere, unlike the ONNX workers)
// and that page fails with the reason while the queue goes on with a fresh worker. close() is
// graceful: queued pages are refused, each worker finishes the page it is on, releases Tesseract
// and exits.
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { TroveError } from '../errors.js';
import { startWorkerScript } from '../worker-script.js';
import type { OcrSource, OcrWorkerReply, OcrWorkerRequest } from './ocr-worker.js';
import type { LanguageFile } from './tesseract.js';
import type { OcrLimits, OcrPage } from './types.js';

export interface OcrPoolOptions {
  /** Worker threads at most (default: one per core). */
  workers: number;
  /** Niceness added to each worker's thread on Linux (default 10, as background embedding). */
  nice: number;
  /** An idle worker exits after this long (its Tesseract instance with it). */
  idleMs: number;
}

export const DEFAULT_OCR_POOL: OcrPoolOptions = { workers: Math.max(1, os.availableParallelism()), nice: 10, idleMs: 30_000 };

/** A page that could not be read; the message is the reason. */
export class OcrPageFailed extends Error {}

type Request = { op: 'count'; source: OcrSource } | { op: 'page'; source: OcrSource; page: number; languages: LanguageFile[]; limits: Pick<OcrLimits, 'maxPixelsPerPage'> };

interface Job {
  request: Request;
  timeoutMs: number;
  signal?: AbortSignal;
  resolve: (reply: OcrWorkerReply) => void;
  reject: (err: Error) => void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  id: number;
  timer: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
  exited: Promise<void>;
  /** Sent as soon as it is ready (ahead of any page). */
  warm?: OcrWorkerRequest;
}

export class OcrPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private readonly opts: OcrPoolOptions;

  constructor(opts: Partial<OcrPoolOptions> = {}) {
    this.opts = { ...DEFAULT_OCR_POOL, ...opts };
  }

  /** Worker threads alive now. */
  get workers(): number {
    return this.slots.size;
  }

  /** Pages (a PDF's, a TIFF's) in a file. */
  async count(source: OcrSource, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    const reply = await this.submit({ op: 'count', source }, timeoutMs, signal);
    return 'pages' in reply ? reply.pages : 0;
  }

  /** Recognises one page; rejects with OcrPageFailed (the reason), the signal's reason, or UNAVAILABLE once closed. */
  async page(source: OcrSource, page: number, languages: LanguageFile[], limits: OcrLimits, signal?: AbortSignal): Promise<OcrPage> {
    const reply = await this.submit({ op: 'page', source, page, languages, limits: { maxPixelsPerPage: limits.maxPixelsPerPage } }, limits.timePerPageMs, signal);
    if (!('page' in reply)) throw new OcrPageFailed('the OCR worker sent no page');
    return reply.page;
  }

  /**
   * A scan is on its way (its file is being parsed): one worker starts now, or the idle ones get
   * ready, loading the languages (and PDFium) while the file is parsed rather than after.
   */
  warm(languages: LanguageFile[], pdf: boolean): void {
    if (this.closed) return;
    const request = { op: 'warm', languages, pdf } satisfies OcrWorkerRequest;
    if (this.slots.size === 0) this.spawn();
    for (const s of this.slots) {
      if (s.ready) s.worker.postMessage(request);
      else s.warm = request;
    }
  }

  /** Lets the workers close a file they hold open (its pages are done). */
  forget(key: string): void {
    for (const s of this.slots) if (s.ready) s.worker.postMessage({ op: 'forget', key } satisfies OcrWorkerRequest);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, new TroveError('UNAVAILABLE', 'OCR was stopped'));
    await Promise.all([...this.slots].map(async (s) => {
      s.worker.ref(); // the caller waits for it to exit
      if (s.idle) clearTimeout(s.idle);
      // the page it is on runs to its end (or its time limit, which terminates the worker)
      if (s.job) await Promise.race([new Promise<void>((resolve) => s.worker.once('message', () => resolve())), s.exited]);
      this.clearTimer(s);
      if (s.idle) clearTimeout(s.idle);
      s.worker.postMessage({ op: 'close' } satisfies OcrWorkerRequest);
      await s.exited;
    }));
    this.slots.clear();
  }

  private submit(request: Request, timeoutMs: number, signal?: AbortSignal): Promise<OcrWorkerReply> {
    if (this.closed) return Promise.reject(new TroveError('UNAVAILABLE', 'OCR was stopped'));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const job: Job = { request, timeoutMs, signal, resolve, reject };
      if (signal) {
        // a queued page is dropped; one a worker is on runs out (its result is not waited for)
        job.onAbort = () => {
          const i = this.queue.indexOf(job);
          if (i >= 0) this.queue.splice(i, 1);
          this.settle(job, abortReason(signal));
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let slot = [...this.slots].find((s) => s.ready && !s.job);
      if (!slot) {
        // a worker still starting (one warmed ahead of a scan) takes the next page: no second cold start for it
        const starting = [...this.slots].filter((s) => !s.ready).length;
        if (this.slots.size < this.opts.workers && starting < this.queue.length) this.spawn();
        return;
      }
      this.run(slot, this.queue.shift()!);
    }
  }

  private spawn(): void {
    const worker = startWorkerScript(import.meta.url, 'ocr-worker', { workerData: { nice: this.opts.nice } });
    const slot: Slot = { worker, ready: false, job: null, id: -1, timer: null, idle: null, exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
    worker.on('message', (m: OcrWorkerReply) => {
      if ('ready' in m) {
        if (!m.ready) return this.lose(slot, m.error, true);
        slot.ready = true;
        worker.unref();
        if (slot.warm) worker.postMessage(slot.warm);
        this.idleLater(slot);
        return this.pump();
      }
      if (m.id !== slot.id || !slot.job) return;
      const job = slot.job;
      slot.job = null;
      this.clearTimer(slot);
      worker.unref();
      if ('error' in m) this.settle(job, new OcrPageFailed(m.error));
      else this.settle(job, null, m);
      this.idleLater(slot);
      this.pump();
    });
    worker.on('error', (err) => this.lose(slot, `the OCR worker crashed: ${err.message}`, !slot.ready));
    worker.on('exit', (code) => this.lose(slot, `the OCR worker exited unexpectedly (code ${code})`, !slot.ready));
    this.slots.add(slot);
  }

  private run(slot: Slot, job: Job): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    slot.job = job;
    slot.id = this.nextId++;
    slot.worker.ref(); // someone awaits this reply
    slot.timer = setTimeout(() => {
      this.lose(slot, `the page took longer than ${seconds(job.timeoutMs)} and was stopped`, false);
      void slot.worker.terminate();
    }, job.timeoutMs);
    slot.worker.postMessage({ ...job.request, id: slot.id } satisfies OcrWorkerRequest);
  }

  /**
   * A worker is gone (crash, time limit, failed start): its page fails with the reason. A worker
   * that could not even start fails every queued page too, since the next one would fail alike.
   */
  private lose(slot: Slot, reason: string, atStart: boolean): void {
    if (!this.slots.delete(slot)) return;
    this.clearTimer(slot);
    if (slot.idle) clearTimeout(slot.idle);
    const job = slot.job;
    slot.job = null;
    if (job) this.settle(job, new OcrPageFailed(reason));
    if (atStart) {
      for (const queued of this.queue.splice(0)) this.settle(queued, new TroveError('UNAVAILABLE', reason));
      void slot.worker.terminate();
    }
    this.pump();
  }

  private settle(job: Job, err: Error | null, reply?: OcrWorkerReply): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    job.onAbort = undefined;
    if (err) job.reject(err);
    else job.resolve(reply!);
    // later settles of the same job (an abort, then the worker's reply) are no-ops for a Promise
  }

  private idleLater(slot: Slot): void {
    slot.idle = setTimeout(() => {
      if (slot.job || !this.slots.delete(slot)) return;
      slot.worker.postMessage({ op: 'close' } satisfies OcrWorkerRequest);
    }, this.opts.idleMs);
    slot.idle.unref();
  }

  private clearTimer(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('OCR was aborted', 'AbortError');
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
