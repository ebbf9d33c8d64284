// Document parsing (PDF, Office, OpenDocument, EPUB, RTF, e-mail) in worker threads, so the
// thread that writes the index and answers searches never runs a parser; and a large batch's text
// files, read and prepared there too, so that thread only writes them. The threads are niced:
// indexing is background work. Workers start when the first job arrives (one per core, at most
// four) and leave after a quiet spell. Every file
// gets a time limit and each worker a heap limit: a parser that hangs is terminated, one that
// runs out of memory dies alone, and either way that file fails with the reason while the run
// goes on (a new worker takes the next file). Parsers are plain JavaScript, so terminating a
// worker mid-parse is safe (unlike the ONNX workers in embed/pool.ts).
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { ChunkOptions } from './chunker.js';
import { documentParserFor } from './parsers/index.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parsers/types.js';
import type { ParseReply, ParseRequest, ParseWorkerInit, TextFiles, TextResult } from './parse-worker.js';
import type { OcrMerge, Prepared } from './prepare.js';
import { startWorkerScript } from '../worker-script.js';

export interface ParsePoolOptions {
  /** Worker threads (default: one per core, at most four). */
  workers: number;
  /** Longest one file may parse before its worker is stopped. */
  timeoutMs: number;
  /** Heap limit of one worker (V8 old generation), in MB. */
  maxHeapMb: number;
  /** An idle worker that has parsed documents exits after this long (its parser caches go with it). */
  idleMs: number;
  /** An idle worker that has only read text files exits after this long: it holds no cache worth its memory. */
  textIdleMs: number;
  /** How much lower the workers' priority is than the threads answering searches (Linux). */
  nice: number;
  limits: ParseLimits;
}

export const DEFAULT_PARSE_POOL: ParsePoolOptions = {
  workers: Math.max(1, Math.min(4, os.availableParallelism())),
  timeoutMs: 120_000,
  maxHeapMb: 1024,
  idleMs: 30_000,
  textIdleMs: 5_000,
  // indexing is background work in a host: searches go first when the cores are busy
  nice: 10,
  limits: DEFAULT_PARSE_LIMITS,
};

/** What a worker is asked (a document, or a group of text files), and who waits for its answer. */
type Job =
  | { kind: 'document'; path: string; bytes: Uint8Array; ocr?: OcrMerge; resolve: (p: Prepared) => void }
  | { kind: 'texts'; files: TextFiles; resolve: (p: TextResult[] | null) => void };

interface Slot {
  worker: Worker;
  job: Job | null;
  id: number;
  timer: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
  /** It has parsed a document (and may hold a parser's caches: PDFium, fonts). */
  parsedDocuments: boolean;
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
      this.queue.push({ kind: 'document', path, bytes, resolve, ...(ocr ? { ocr } : {}) });
      this.pump();
    });
  }

  /**
   * Reads and prepares text files in the workers, one group for each; the results in input order,
   * or null when a worker could not answer (closed, crashed, timed out, out of memory): the caller
   * reads them itself. One group a worker, not many small ones: a worker that finished a group would
   * wait for the next until the calling thread is free to send it, and that thread is the index's
   * writer (90k notes in groups of 32 took 77 s, against 60 s in one group a worker and 71 s with
   * no worker at all).
   */
  async readTexts(job: TextFiles): Promise<TextResult[] | null> {
    if (this.closed || !job.files.length) return null;
    const size = Math.ceil(job.files.length / Math.min(this.opts.workers, job.files.length));
    const groups: TextFiles['files'][] = [];
    for (let i = 0; i < job.files.length; i += size) groups.push(job.files.slice(i, i + size));
    const answers = await Promise.all(
      groups.map(
        (files) =>
          new Promise<TextResult[] | null>((resolve) => {
            this.queue.push({ kind: 'texts', files: { ...job, files }, resolve });
            this.pump();
          }),
      ),
    );
    return answers.some((a) => a === null) ? null : answers.flatMap((a) => a!);
  }

  /** Stops every worker (queued files fail as "closed"). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) fail(job, 'the engine was closed while the file was being read');
    const exits = [...this.slots].map((s) => {
      this.clearTimers(s);
      if (s.job) fail(s.job, 'the engine was closed while the file was being parsed');
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
    const worker = startWorkerScript(import.meta.url, 'parse-worker', { workerData: { nice: this.opts.nice } satisfies ParseWorkerInit, resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb } });
    const slot: Slot = { worker, job: null, id: -1, timer: null, idle: null, parsedDocuments: false, exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
    worker.on('message', (m: ParseReply) => {
      if (m.id !== slot.id || !slot.job) return;
      const job = slot.job;
      slot.job = null;
      this.clearTimers(slot);
      worker.unref();
      if (job.kind === 'document' && m.kind === 'document') job.resolve(m.result);
      else if (job.kind === 'texts' && m.kind === 'texts') job.resolve(m.results);
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
    slot.parsedDocuments ||= job.kind === 'document';
    slot.id = this.nextId++;
    slot.worker.ref(); // someone awaits this reply
    slot.timer = setTimeout(() => {
      this.lose(slot, `parsing took longer than ${duration(this.opts.timeoutMs)} and was stopped`);
      void slot.worker.terminate();
    }, this.opts.timeoutMs);
    const request: ParseRequest =
      job.kind === 'texts'
        ? { id: slot.id, chunking: this.chunking, kind: 'texts', ...job.files }
        : { id: slot.id, chunking: this.chunking, kind: 'document', path: job.path, bytes: job.bytes, limits: this.opts.limits, ...(job.ocr ? { ocr: job.ocr } : {}) };
    slot.worker.postMessage(request);
  }

  /** A worker is gone (crash, heap limit, time limit): its file fails with the reason; the next file gets a new worker. */
  private lose(slot: Slot, reason: string): void {
    if (!this.slots.delete(slot)) return;
    this.clearTimers(slot);
    const job = slot.job;
    slot.job = null;
    if (job) fail(job, reason);
    this.pump();
  }

  private idleLater(slot: Slot): void {
    slot.idle = setTimeout(() => {
      if (slot.job || !this.slots.delete(slot)) return;
      void slot.worker.terminate();
    }, slot.parsedDocuments ? this.opts.idleMs : this.opts.textIdleMs);
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

/** A job's answer when its worker gave none: a document fails with the reason; text files go back to the caller. */
function fail(job: Job, reason: string): void {
  if (job.kind === 'texts') job.resolve(null);
  else job.resolve(failure(job.path, reason));
}

function failure(path: string, reason: string): Prepared {
  return { ok: false, status: 'failed', reason, kind: documentParserFor(path)?.kind ?? 'unknown' };
}
