// The embedding stage: after keyword indexing, finds chunks without a vector in their
// collection's space (the current model at the current weights digest) and embeds them in
// batches. Resumable by construction: the work list is "chunks without a vector", so an
// interrupted run simply continues, and chunks that already have one are never re-embedded. Where
// several hosts share an index (PostgreSQL) each takes slices no other host holds
// (VectorRepository.claimPending; a claim expires, so a host that dies loses only time).
// In the background it waits its turn before every batch (embed/background.ts) and sends its
// chunks to the pool's background workers, and to every worker while nobody has searched for a
// while; an explicit run (`trove embed`) uses every worker.
// It embeds less. The model reads a Markdown chunk as the prose a reader of the page sees
// (text/markdown-prose.ts; its markup was a fifth of cpp-docs' model tokens) and any other chunk as
// its text. A chunk whose model input already has a vector in the space (the same text in another
// file, or an edited document's unchanged chunk, kept when it was re-indexed) gets a copy of that
// vector, and identical inputs in one batch are embedded once: the space is one model at one
// weights digest, so the same input means the same vector.
import { createHash } from 'node:crypto';
import { sliceWindow } from '../store/content-blocks.js';
import type { Storage, TextRange } from '../store/storage.js';
import { markdownProse } from '../text/markdown-prose.js';
import type { Lane, ModelPool } from './pool.js';
import type { EmbeddingProgress } from '../types/models.js';

export type { EmbeddingProgress };

/** Chunks per background batch: small, so a pause or a burst of searches is heeded within a few chunks. */
const BACKGROUND_BATCH = 8;
/** Progress events at most this often (the app relays each one to the window). */
const REPORT_EVERY_MS = 250;
/** How long a claim holds: far longer than a batch takes; a dead host's slice is free after it. */
const CLAIM_MS = 5 * 60_000;
/** How long a host waits before looking again when every chunk left is held by other hosts. */
const HELD_ELSEWHERE_MS = 100;

export interface StageTarget {
  collectionId: number;
  collection: string;
  spaceId: number;
  switching: boolean;
  pool: ModelPool;
}

export interface FillOptions {
  batch: number;
  /** background: one chunk per background worker at a time; normal: every worker. */
  lane: Extract<Lane, 'normal' | 'background'>;
  /** Resolves true when the next batch may start, false when the stage must stop (paused, turned off, closing). */
  turn: () => Promise<boolean>;
  /** The engine closed while a batch was embedded: its vectors are dropped (they stay pending). */
  closed: () => boolean;
  /** Why it stopped, as the last progress event says: paused (by the user) or not (closing). */
  pausedNow: () => boolean;
  /**
   * Chunks per model run (default 1: every vector exact, as a query's is). More: the batch's texts
   * go to the model in runs of similar length (little padding), faster on one thread, but an int8
   * model quantises a run as a whole, so a vector then depends on its neighbours (bench:embed-batching).
   */
  runBatch?: number;
  /** Background only: every worker may take this batch (nobody has searched for a while). */
  spare?: () => boolean;
  onProgress?: (p: EmbeddingProgress) => void;
}

/** The digest a vector is reused by: the model's exact input (its prefix is the space's, the same for all). */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** What the model reads of a chunk: a Markdown chunk's prose (unless it has none), any other chunk's text. */
export function modelInput(kind: string, text: string): string {
  return (kind === 'markdown' && markdownProse(text)) || text;
}

/** The texts to embed in model runs of `size`, each run of similar lengths (a run is padded to its longest). */
function runsOf<T extends { text: string }>(items: readonly T[], size: number): T[][] {
  if (size <= 1) return items.map((it) => [it]);
  const sorted = [...items].sort((a, b) => a.text.length - b.text.length);
  const runs: T[][] = [];
  for (let i = 0; i < sorted.length; i += size) runs.push(sorted.slice(i, i + size));
  return runs;
}

/** Each distinct text once: the items sharing it, by digest. */
function byText<T extends { hash: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const it of items) {
    const g = groups.get(it.hash);
    if (g) g.push(it);
    else groups.set(it.hash, [it]);
  }
  return groups;
}

/** Fills the space; true when no chunk is left without a vector, false when it was stopped first. */
export async function fillSpace(storage: Storage, t: StageTarget, opts: FillOptions): Promise<boolean> {
  const { vectors } = storage;
  let total = await vectors.pendingCount(t.spaceId, t.collectionId);
  const started = performance.now();
  let done = 0;
  let reused = 0;
  let reportedAt = -Infinity;
  const report = (phase: EmbeddingProgress['phase']) => {
    const now = performance.now();
    if (phase === 'filling' || phase === 'switching') {
      if (now - reportedAt < REPORT_EVERY_MS) return;
    }
    reportedAt = now;
    const secs = (performance.now() - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    opts.onProgress?.({
      collection: t.collection,
      model: t.pool.model.spec.id,
      phase,
      done,
      total,
      chunksPerSecond: Math.round(rate * 10) / 10,
      etaSeconds: rate > 0 ? Math.round((total - done) / rate) : null,
      reused,
    });
  };
  const working = t.switching ? 'switching' : 'filling';
  if (total === 0) return true; // nothing to do: no event (the stage looks after every index change)
  report(working);
  // one chunk per request: every vector is exact (see onnx-model.ts); the pool's workers take them as they come
  const batchSize = opts.lane === 'background' ? Math.max(t.pool.size, BACKGROUND_BATCH) : opts.batch;
  // An explicit run keeps one batch in flight ahead: the next batch's chunks are read and queued
  // while the last one's vectors are written, so neither worker waits at a batch's end for the
  // other's last chunk or for the writes (measured ~4% of both workers' time idle without it:
  // bench/RESULTS.md). The background lane stays one batch at a time, to give way between batches.
  const ahead = opts.lane === 'normal' ? 1 : 0;
  const queue: InFlight[] = [];
  /** The last chunk claimed: the next claim reads on from it (a claim from the first chunk passes every one embedded). */
  let cursor = 0;
  /** Writes the oldest batch's vectors (all of them made) and lets its claims go. */
  const finish = async (): Promise<boolean> => {
    const b = queue.shift()!;
    try {
      const have = new Map<string, Float32Array>();
      for (const [hash, v] of b.vectors) have.set(hash, await v);
      if (opts.closed()) return false;
      // chunks deleted while they were embedded are skipped here and gone from the pending list
      await vectors.insert(t.spaceId, t.collectionId, b.items.map((it) => ({ chunkId: it.chunk.id, vector: have.get(it.hash)!, textHash: it.hash })));
      reused += b.items.length - b.ran;
    } finally {
      if (!opts.closed()) await vectors.releaseClaims(t.spaceId, b.items.map((it) => it.chunk.id));
    }
    done += b.items.length;
    if (done > total) total = done; // chunks added meanwhile
    report(working);
    return true;
  };
  try {
    for (;;) {
      // requests that came in meanwhile (a pause, a search) are handled before the next batch starts
      await new Promise((resolve) => setImmediate(resolve));
      if (!(await opts.turn())) {
        while (queue.length) if (!(await finish())) return false;
        if (opts.pausedNow()) report('paused');
        return false;
      }
      const now = Date.now();
      const batch = await vectors.claimPending(t.spaceId, t.collectionId, batchSize, now, now + CLAIM_MS, cursor);
      if (!batch.length) {
        if (cursor > 0) {
          // chunks behind the cursor may have come free meanwhile (a claim given back, another host's run out): once more from the first
          cursor = 0;
          continue;
        }
        if (queue.length) {
          if (!(await finish())) return false;
          continue;
        }
        if ((await vectors.pendingCount(t.spaceId, t.collectionId)) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, HELD_ELSEWHERE_MS)); // the rest is held by other hosts
        continue;
      }
      cursor = batch.reduce((last, c) => Math.max(last, c.id), cursor);
      queue.push(await startBatch(storage, t, opts, batch, queue.at(-1)?.vectors));
      while (queue.length > ahead) if (!(await finish())) return false;
    }
  } finally {
    // a batch still in flight after an error or a stop: its vectors are dropped, its chunks stay pending
    for (const b of queue.splice(0)) {
      await Promise.allSettled(b.vectors.values());
      if (!opts.closed()) await vectors.releaseClaims(t.spaceId, b.items.map((it) => it.chunk.id));
    }
  }
  total = Math.max(done, total);
  done = total;
  report('done');
  return true;
}

interface InFlight {
  items: { chunk: { id: number }; hash: string }[];
  /** Each distinct text's vector, by digest: found in the space, taken from the batch before, or being made. */
  vectors: Map<string, Promise<Float32Array>>;
  /** How many texts this batch sends to the model. */
  ran: number;
}

/**
 * Reads a claimed batch's texts and queues the model runs for those without a vector: not in the
 * space, and not among the batch before's (still being made, so the space cannot know them yet).
 */
async function startBatch(storage: Storage, t: StageTarget, opts: FillOptions, batch: Awaited<ReturnType<Storage['vectors']['claimPending']>>, before?: ReadonlyMap<string, Promise<Float32Array>>): Promise<InFlight> {
  try {
    const texts = await chunkTexts(storage, batch);
    const items = batch.map((c, i) => {
      const text = modelInput(c.kind, texts[i]!);
      return { chunk: c, text, hash: textHash(text) };
    });
    const groups = byText(items);
    const have = await storage.vectors.reusable(t.spaceId, [...groups.keys()]);
    const vectors = new Map<string, Promise<Float32Array>>();
    for (const [hash, v] of have) vectors.set(hash, Promise.resolve(v));
    for (const hash of groups.keys()) {
      const v = !vectors.has(hash) ? before?.get(hash) : undefined;
      if (v) vectors.set(hash, v);
    }
    const anyWorker = opts.lane === 'background' && (opts.spare?.() ?? false);
    const run = [...groups.entries()].filter(([h]) => !vectors.has(h)).map(([h, g]) => ({ hash: h, text: g[0]!.text }));
    for (const r of runsOf(run, opts.runBatch ?? 1)) {
      const flat = t.pool.embed(r.map((x) => x.text), 'passage', { lane: opts.lane, anyWorker, batchSize: r.length });
      r.forEach((x, i) => {
        const v = flat.then((f) => f.slice(i * t.pool.dims, (i + 1) * t.pool.dims));
        v.catch(() => {}); // a failed run is thrown where its batch is written (finish); until then it must not count as unhandled
        vectors.set(x.hash, v);
      });
    }
    return { items, vectors, ran: run.length };
  } catch (err) {
    if (!opts.closed()) await storage.vectors.releaseClaims(t.spaceId, batch.map((c) => c.id));
    throw err;
  }
}

/**
 * The batch's chunk texts, in order: one range a document, from its first chunk's start to its
 * last one's end, so the stretch of a document the batch covers is read (on SQLite inflated) once
 * and never the rest of a long document.
 */
async function chunkTexts(storage: Storage, batch: readonly { documentId: number; charStart: number; charEnd: number }[]): Promise<string[]> {
  const spans = new Map<number, TextRange>();
  for (const c of batch) {
    const s = spans.get(c.documentId);
    if (!s) spans.set(c.documentId, { id: c.documentId, from: c.charStart, to: c.charEnd });
    else {
      s.from = Math.min(s.from, c.charStart);
      s.to = Math.max(s.to, c.charEnd);
    }
  }
  const ranges = [...spans.values()];
  const windows = new Map((await storage.documents.windows(ranges)).map((w, i) => [ranges[i]!.id, w]));
  return batch.map((c) => {
    const w = windows.get(c.documentId);
    return w ? sliceWindow(w, c.charStart, c.charEnd) : '';
  });
}
