// Document parsing (PDF, Office, OpenDocument, EPUB, RTF, e-mail) in worker threads, so the
// thread that writes the index and answers searches never runs a parser. Workers start when the
// first document arrives (one per core, at most four) and leave after a quiet spell. Every file
// gets a time limit and each worker a heap limit: a parser that hangs is terminated, one that
// runs out of memory dies alone, and either way that file fails with the reason while the run
// goes on (a new worker takes the next file). Parsers are plain JavaScript, so terminating a
// worker mid-parse is safe (unlike the ONNX workers in embed/pool.ts).
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { ChunkOptions } from './chunker.js';
import { documentParserFor } from './parsers/index.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parsers/types.js';
import type { ParseReply, ParseRequest } from './parse-worker.js';
import type { OcrMerge, Prepared } from './prepare.js';
import { startWorkerScript } from '../worker-script.js';

export interface ParsePoolOptions {
  /** Worker threads (default: one per core, at most four). */
  workers: number;
  /** Longest one file may parse before its worker is stopped. */
  timeoutMs: number;
  /** Heap limit of one worker (V8 old generation), in MB. */
  maxHeapMb: number;
  /** An idle worker exits after this long (its parser caches go with it). */
  idleMs: number;
  limits: ParseLimits;
}

export const DEFAULT_PARSE_POOL: ParsePoolOptions = {
  workers: Math.max(1, Math.min(4, os.availableParallelism())),
  timeoutMs: 120_000,
  maxHeapMb: 1024,
  idleMs: 30_000,
  limits: DEFAULT_PARSE_LIMITS,
};

interface Job {
  path: string;
  bytes: Uint8Array;
  ocr?: OcrMerge;
  resolve: (p: Prepared) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  id: number;
  timer: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
  exited: Promise<void>;
}

export class ParsePool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private readonly opts: ParsePoolOptions;

  constructor(
    private readonly chunking: ChunkOptions,
    opts: Partial<ParsePoolOptions> = {},
  ) {
    this.opts = { ...DEFAULT_PARSE_POOL, ...opts, limits: { ...DEFAULT_PARSE_LIMITS, ...opts.limits } };
  }

  get workers(): number {
    return this.slots.size;
  }

  /** Parses and chunks one document in a worker (`ocr`: recognised pages merged in first). Never rejects: a failure is a Prepared with the reason. */
  prepare(bytes: Uint8Array, path: string, ocr?: OcrMerge): Promise<Prepared> {
    const kind = documentParserFor(path)?.kind ?? 'unknown';
    if (this.closed) return Promise.resolve({ ok: false, status: 'failed', reason: 'the engine was closed while the file was being read', kind });
    return new Promise((resolve) => {
      this.queue.push({ path, bytes, resolve, ...(ocr ? { ocr } : {}) });
      this.pump();
    });
  }

  /** Stops every worker (queued files fail as "closed"). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve(failure(job.path, 'the engine was closed while the file was being read'));
    const exits = [...this.slots].map((s) => {
      this.clearTimers(s);
      if (s.job) s.job.resolve(failure(s.job.path, 'the engine was closed while the file was being parsed'));
      s.job = null;
      void s.worker.terminate();
      return s.exited;
    });
    await Promise.all(exits);
    this.slots.clear();
  }

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let slot = [...this.slots].find((s) => !s.job);
      if (!slot) {
        if (this.slots.size >= this.opts.workers) return;
        slot = this.spawn();
      }
      const job = this.queue.shift()!;
      this.run(slot, job);
    }
  }

  private spawn(): Slot {
    const worker = startWorkerScript(import.meta.url, 'parse-worker', { resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb } });
    const slot: Slot = { worker, job: null, id: -1, timer: null, idle: null, exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
    worker.on('message', (m: ParseReply) => {
      if (m.id !== slot.id || !slot.job) return;
      const job = slot.job;
      slot.job = null;
      this.clearTimers(slot);
      worker.unref();
      job.resolve(m.result);
      this.idleLater(slot);
      this.pump();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const reason =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `the parser ran out of memory (over ${this.opts.maxHeapMb} MB) and was stopped`
          : `the parser crashed: ${err.message}`;
      this.lose(slot, reason);
    });
    worker.on('exit', (code) => this.lose(slot, `the parser exited unexpectedly (code ${code})`));
    this.slots.add(slot);
    return slot;
  }

  private run(slot: Slot, job: Job): void {
    this.clearTimers(slot);
    slot.job = job;
    slot.id = this.nextId++;
    slot.worker.ref(); // someone awaits this reply
    slot.timer = setTimeout(() => {
      this.lose(slot, `parsing took longer than ${duration(this.opts.timeoutMs)} and was stopped`);
      void slot.worker.terminate();
    }, this.opts.timeoutMs);
    slot.worker.postMessage({ id: slot.id, path: job.path, bytes: job.bytes, chunking: this.chunking, limits: this.opts.limits, ...(job.ocr ? { ocr: job.ocr } : {}) } satisfies ParseRequest);
  }

  /** A worker is gone (crash, heap limit, time limit): its file fails with the reason; the next file gets a new worker. */
  private lose(slot: Slot, reason: string): void {
    if (!this.slots.delete(slot)) return;
    this.clearTimers(slot);
    const job = slot.job;
    slot.job = null;
    if (job) job.resolve(failure(job.path, reason));
    this.pump();
  }

  private idleLater(slot: Slot): void {
    slot.idle = setTimeout(() => {
      if (slot.job || !this.slots.delete(slot)) return;
      void slot.worker.terminate();
    }, this.opts.idleMs);
    slot.idle.unref();
  }

  private clearTimers(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.idle) clearTimeout(slot.idle);
    slot.timer = slot.idle = null;
  }
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function failure(path: string, reason: string): Prepared {
  return { ok: false, status: 'failed', reason, kind: documentParserFor(path)?.kind ?? 'unknown' };
}
