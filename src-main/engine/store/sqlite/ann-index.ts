// An approximate nearest-neighbour index (usearch HNSW, f16, cosine) over one vector space,
// derived from sqlite-vec (the store of record) and persisted beside the database. sqlite-vec
// scans every row (~0.5 s per query at 1M on 2 cores); HNSW answers in about a millisecond.
// usearch has no filter callback, so collection filters over-fetch and check, and callers
// fall back to exact sqlite-vec search when too few survive (see search/vector.ts).
import fs from 'node:fs';
import usearch from 'usearch';

const { Index } = usearch;

export const ANN_CONFIG = { metric: 'cos', quantization: 'f16', connectivity: 16, expansion_add: 128, expansion_search: 128, multi: false } as const;

export interface AnnMatch {
  key: number;
  distance: number;
}

export class AnnIndex {
  private constructor(private readonly index: InstanceType<typeof Index>, readonly dims: number) {}

  static create(dims: number): AnnIndex {
    return new AnnIndex(new Index({ dimensions: dims, ...ANN_CONFIG } as unknown as ConstructorParameters<typeof Index>[0]), dims);
  }

  /** A saved index, or null when the file is absent or unreadable (it is derived data: rebuild). */
  static load(file: string, dims: number): AnnIndex | null {
    if (!fs.existsSync(file)) return null;
    try {
      const a = AnnIndex.create(dims);
      a.index.load(file);
      return a;
    } catch {
      return null;
    }
  }

  get size(): number {
    return this.index.size();
  }

  /** Adds n vectors (flat n*dims) under their keys; `threads` 0 uses every core. */
  addBatch(keys: readonly number[], flat: Float32Array, threads = 0): void {
    if (!keys.length) return;
    this.index.add(BigUint64Array.from(keys.map((k) => BigInt(k))), flat, threads);
  }

  /** Adds or replaces one vector. */
  upsert(key: number, vector: Float32Array): void {
    const k = BigInt(key);
    if (this.index.contains(k)) this.index.remove(k);
    this.index.add(k, vector);
  }

  contains(key: number): boolean {
    return this.index.contains(BigInt(key)) as boolean;
  }

  remove(key: number): void {
    const k = BigInt(key);
    if (this.index.contains(k)) this.index.remove(k);
  }

  search(query: Float32Array, k: number): AnnMatch[] {
    const m = this.index.search(query, Math.max(1, Math.min(k, this.size || 1)), 1);
    const out: AnnMatch[] = [];
    for (let i = 0; i < m.keys.length; i++) out.push({ key: Number(m.keys[i]!), distance: m.distances[i]! });
    return out;
  }

  save(file: string): void {
    const tmp = `${file}.tmp`;
    this.index.save(tmp);
    fs.renameSync(tmp, file); // atomic: a crash mid-save leaves the old file
  }
}
