// Walks a faiss IndexHNSWFlat's own graph (faiss/impl/HNSW.cpp: greedy descent through the upper
// levels from the entry point, then a beam of `ef` candidates at level 0), for indexes too large to
// scan on every query. Keys are "higher is better" (inner product, or −d² for L2), as in
// vector-scan.ts. Returns the best rows found, best first.
import type { HnswGraph } from './faiss-format.js';

export interface GraphHit {
  row: number;
  key: number;
}

/** Reused between queries: a node is visited when its mark equals the current query's. */
export class VisitMarks {
  private marks: Uint32Array;
  private epoch = 0;

  constructor(n: number) {
    this.marks = new Uint32Array(n);
  }

  next(): number {
    if (++this.epoch === 0xffffffff) {
      this.marks.fill(0);
      this.epoch = 1;
    }
    return this.epoch;
  }

  /** true the first time a node is seen in this query. */
  visit(node: number, epoch: number): boolean {
    if (this.marks[node] === epoch) return false;
    this.marks[node] = epoch;
    return true;
  }
}

export function searchGraph(g: HnswGraph, key: (row: number) => number, ef: number, marks: VisitMarks): GraphHit[] {
  if (g.nodeLevels.length === 0) return [];
  let nearest = g.entryPoint;
  let best = key(nearest);
  for (let level = g.maxLevel; level >= 1; level--) {
    // greedy: move to a better neighbour until none is better
    for (let moved = true; moved; ) {
      moved = false;
      const base = g.offsets[nearest]!;
      for (let i = base + g.cum[level]!; i < base + g.cum[level + 1]!; i++) {
        const v = g.neighbors[i]!;
        if (v < 0) break;
        const k = key(v);
        if (k > best) [best, nearest, moved] = [k, v, true];
      }
    }
  }
  const epoch = marks.next();
  marks.visit(nearest, epoch);
  const candidates = new Heap((a, b) => a.key > b.key); // best first
  const results = new Heap((a, b) => a.key < b.key); // worst first
  candidates.push({ row: nearest, key: best });
  results.push({ row: nearest, key: best });
  while (candidates.size) {
    const c = candidates.pop()!;
    if (results.size >= ef && c.key < results.peek()!.key) break;
    const base = g.offsets[c.row]!;
    for (let i = base + g.cum[0]!; i < base + g.cum[1]!; i++) {
      const v = g.neighbors[i]!;
      if (v < 0) break;
      if (!marks.visit(v, epoch)) continue;
      const k = key(v);
      if (results.size < ef || k > results.peek()!.key) {
        candidates.push({ row: v, key: k });
        results.push({ row: v, key: k });
        if (results.size > ef) results.pop();
      }
    }
  }
  return results.drain().sort((a, b) => b.key - a.key || a.row - b.row);
}

/** A binary heap; `before(a, b)`: a comes out before b. */
class Heap {
  private readonly items: GraphHit[] = [];

  constructor(private readonly before: (a: GraphHit, b: GraphHit) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): GraphHit | undefined {
    return this.items[0];
  }

  push(x: GraphHit): void {
    const a = this.items;
    a.push(x);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): GraphHit | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length && last) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }

  drain(): GraphHit[] {
    return this.items.splice(0);
  }
}
