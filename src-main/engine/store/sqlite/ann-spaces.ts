// The ANN indexes of the vector spaces big enough to need one (ANN_MIN_VECTORS): built in the
// background from sqlite-vec — as soon as a space is filled (embed/embeddings.ts), else at its
// first search — persisted in <profile>/vectors/space-<id>.usearch, kept in step with every insert
// and delete, and trusted only while their size matches the store's count. Until an index is
// ready, searches use exact sqlite-vec kNN.
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { VectorSpace, VectorStore } from '../vectors.js';
import { AnnIndex } from './ann-index.js';

export const ANN_MIN_VECTORS = 20_000;
/**
 * Vectors added per step of a build, between which searches and writes get the event loop: at
 * 100,000 vectors of 384 dimensions a step of 256 held it ~100 ms (every request during the 39 s
 * build waited for one: hybrid_search_context p50 169 ms), a step of 32 ~12 ms for a 45 s build.
 * An urgent build (a one-shot `trove embed` that waits for it) takes the large steps.
 */
const BUILD_STEP = 32;
const URGENT_BUILD_STEP = 256;

interface Entry {
  index: AnnIndex;
  dirty: boolean;
}

export class AnnSpaces {
  private readonly ready = new Map<number, Entry>();
  private readonly building = new Map<number, Promise<void>>();
  private readonly partial = new Map<number, AnnIndex>();
  private closed = false;

  constructor(private readonly vectors: VectorStore, private readonly dir: string, private readonly minVectors = ANN_MIN_VECTORS) {}

  private file(spaceId: number): string {
    return path.join(this.dir, `space-${Math.trunc(spaceId)}.usearch`);
  }

  /** The space's ANN index when it is ready and in step with the store; else null (and a build is started when worth it). */
  get(space: VectorSpace): AnnIndex | null {
    const e = this.ready.get(space.id);
    if (e) return e.index;
    void this.prepare(space);
    return null;
  }

  /** ensure(), its failure logged instead of thrown: searches stay exact and the next fill or search tries again. */
  prepare(space: VectorSpace, opts: { urgent?: boolean } = {}): Promise<void> {
    return this.ensure(space, opts).catch((err: unknown) => void process.stderr.write(`trove: building the ANN index of ${space.modelId} failed: ${(err as Error).message}\n`));
  }

  /** Loads or builds the index of a space that is big enough (in the background; `urgent`: in large steps, for a caller that waits). */
  ensure(space: VectorSpace, opts: { urgent?: boolean } = {}): Promise<void> {
    if (this.closed || this.ready.has(space.id)) return Promise.resolve();
    const running = this.building.get(space.id);
    if (running) return running;
    const n = this.vectors.size(space.id);
    if (n < this.minVectors) return Promise.resolve();
    const loaded = AnnIndex.load(this.file(space.id), space.dims);
    if (loaded && loaded.size === n) {
      this.ready.set(space.id, { index: loaded, dirty: false });
      return Promise.resolve();
    }
    const p = this.build(space, opts.urgent ? URGENT_BUILD_STEP : BUILD_STEP).finally(() => {
      this.building.delete(space.id);
      this.partial.delete(space.id);
    });
    this.building.set(space.id, p);
    return p;
  }

  private async build(space: VectorSpace, step: number): Promise<void> {
    const index = AnnIndex.create(space.dims);
    this.partial.set(space.id, index); // inserts and deletes during the build reach it too
    // page through keys and fetch each vector by key: no statement stays open across yields
    const flat = new Float32Array(step * space.dims);
    for (let after = 0; ; ) {
      if (this.closed) return;
      const ids = this.vectors.keysAfter(space.id, after, step);
      if (!ids.length) break;
      const keys: number[] = [];
      for (const id of ids) {
        if (index.contains(id)) continue; // inserted while this build ran
        const v = this.vectors.vectorOf(space.id, id);
        if (!v) continue;
        flat.set(v, keys.length * space.dims);
        keys.push(id);
      }
      index.addBatch(keys, flat.subarray(0, keys.length * space.dims), 0);
      after = ids[ids.length - 1]!;
      await yieldToLoop(); // searches and writes get their turn
    }
    if (this.closed) return;
    // changes made while building went to the store only; the count check catches a mismatch (rebuilt next time)
    if (index.size !== this.vectors.size(space.id)) return;
    fs.mkdirSync(this.dir, { recursive: true });
    index.save(this.file(space.id));
    this.ready.set(space.id, { index, dirty: false });
  }

  inserted(spaceId: number, rows: readonly { chunkId: number; vector: Float32Array }[]): void {
    const e = this.ready.get(spaceId);
    const index = e?.index ?? this.partial.get(spaceId);
    if (!index) return;
    for (const r of rows) index.upsert(r.chunkId, r.vector);
    if (e) e.dirty = true;
  }

  deleted(spaceId: number, chunkIds: readonly number[]): void {
    const e = this.ready.get(spaceId);
    const index = e?.index ?? this.partial.get(spaceId);
    if (!index) return;
    for (const id of chunkIds) index.remove(id);
    if (e) e.dirty = true;
  }

  dropped(spaceId: number): void {
    this.ready.delete(spaceId);
    fs.rmSync(this.file(spaceId), { force: true });
  }

  /** Saves changed indexes (derived data: a crash only means a rebuild). */
  close(): void {
    this.closed = true;
    for (const [id, e] of this.ready) if (e.dirty) e.index.save(this.file(id));
    this.ready.clear();
  }
}
