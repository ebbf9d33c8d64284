// The one progress stream of the engine: what the queue is doing for each collection (phase,
// done/total, rate, ETA, current file). The CLI bar, status, the app API and MCP status all
// subscribe here or read the latest snapshot.
import type { IndexProgress, ProgressEvent, ProgressPhase } from '../types/indexing.js';

export type { ProgressEvent, ProgressPhase };

export type ProgressListener = (e: ProgressEvent) => void;

interface Run {
  collection: string;
  phase: ProgressPhase;
  done: number;
  total: number;
  bytes: number;
  currentFile: string | null;
  samples: { t: number; done: number }[];
}

const RATE_WINDOW_MS = 10_000;

/** A queue progress event as an explicit index run reports it (`done` once the queue settles). */
export function indexProgressOf(e: ProgressEvent): IndexProgress {
  return {
    collection: e.collection,
    phase: e.phase === 'idle' || e.phase === 'paused' ? 'done' : e.phase,
    done: e.done,
    total: e.total,
    bytes: e.bytes,
    rate: e.rate,
    etaSeconds: e.etaSeconds,
    currentFile: e.currentFile,
  };
}

export class ProgressHub {
  private readonly listeners = new Set<ProgressListener>();
  private readonly runs = new Map<number, Run>();
  private readonly latest = new Map<number, ProgressEvent>();
  private readonly muted = new Set<number>();

  subscribe(listener: ProgressListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The latest event of every collection seen since the engine opened. */
  snapshot(): ProgressEvent[] {
    return [...this.latest.values()];
  }

  /** Some collection has a run under way (work taken and its queue not yet empty). */
  active(): boolean {
    return this.runs.size > 0;
  }

  /** The collections with a run under way. */
  running(): { collectionId: number; collection: string }[] {
    return [...this.runs].map(([collectionId, run]) => ({ collectionId, collection: run.collection }));
  }

  latestFor(collectionId: number): ProgressEvent | undefined {
    return this.latest.get(collectionId);
  }

  scanning(collectionId: number, collection: string): void {
    const run = this.run(collectionId, collection);
    run.phase = 'scanning';
    run.currentFile = null;
    this.emit(collectionId, run);
  }

  /** A batch starts; `due` counts the files still waiting, this batch included. */
  batch(collectionId: number, collection: string, due: number, first: string | null): void {
    const run = this.run(collectionId, collection);
    run.phase = 'indexing';
    run.total = run.done + due;
    run.currentFile = first;
    this.emit(collectionId, run);
  }

  /** A file is being read (throttled by the caller). */
  reading(collectionId: number, file: string): void {
    const run = this.runs.get(collectionId);
    if (!run) return;
    run.currentFile = file;
    this.emit(collectionId, run);
  }

  finished(collectionId: number, files: number, bytes: number): void {
    const run = this.runs.get(collectionId);
    if (!run) return;
    run.done += files;
    run.bytes += bytes;
    run.total = Math.max(run.total, run.done);
    run.samples.push({ t: performance.now(), done: run.done });
    this.emit(collectionId, run);
  }

  /** The collection's queue is empty (or it was paused): the run ends. */
  settle(collectionId: number, collection: string, phase: 'idle' | 'paused'): void {
    const run = this.runs.get(collectionId) ?? this.fresh(collection);
    run.phase = phase;
    run.currentFile = null;
    run.total = run.done;
    this.emit(collectionId, run);
    this.runs.delete(collectionId);
  }

  forget(collectionId: number): void {
    this.runs.delete(collectionId);
    this.latest.delete(collectionId);
  }

  /** A collection being removed: nothing more is said of it (a batch begun before the removal is dropped unheard) until unmute. */
  mute(collectionId: number): void {
    this.muted.add(collectionId);
    this.forget(collectionId);
  }

  unmute(collectionId: number): void {
    this.muted.delete(collectionId);
    this.forget(collectionId);
  }

  hasRun(collectionId: number): boolean {
    return this.runs.has(collectionId);
  }

  private run(collectionId: number, collection: string): Run {
    let run = this.runs.get(collectionId);
    if (!run) {
      run = this.fresh(collection);
      this.runs.set(collectionId, run);
    }
    run.collection = collection;
    return run;
  }

  private fresh(collection: string): Run {
    return { collection, phase: 'idle', done: 0, total: 0, bytes: 0, currentFile: null, samples: [{ t: performance.now(), done: 0 }] };
  }

  private emit(collectionId: number, run: Run): void {
    if (this.muted.has(collectionId)) return;
    const now = performance.now();
    while (run.samples.length > 2 && now - run.samples[1]!.t > RATE_WINDOW_MS) run.samples.shift();
    const first = run.samples[0]!;
    const secs = (now - first.t) / 1000;
    const rate = secs > 0.05 ? (run.done - first.done) / secs : 0;
    const left = run.total - run.done;
    const event: ProgressEvent = {
      collection: run.collection,
      phase: run.phase,
      done: run.done,
      total: run.total,
      bytes: run.bytes,
      rate: Math.round(rate * 10) / 10,
      etaSeconds: left === 0 ? 0 : rate > 0 ? Math.ceil(left / rate) : null,
      currentFile: run.currentFile,
      at: new Date().toISOString(),
    };
    this.latest.set(collectionId, event);
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        // a faulty listener must not stop indexing
        process.stderr.write(`trove: progress listener failed: ${(err as Error).message}\n`);
      }
    }
  }
}
