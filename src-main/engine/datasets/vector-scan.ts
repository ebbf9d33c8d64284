// Exact nearest-neighbour search over a FAISS index's vectors, held in memory as one Float32Array:
// an inner product per row (unrolled by four: V8 keeps the accumulators in registers), each row's
// key folded into its document's group (several vectors of one document collapse to its best),
// and the top groups kept in a small min-heap. Exact, so an IndexHNSWFlat answers at least as well
// as its graph would.

/** Inner product of the query with every row, into `out` (length n). */
export function innerProducts(vectors: Float32Array, d: number, n: number, q: Float32Array, out: Float32Array): void {
  const d4 = d - (d % 4);
  for (let r = 0, base = 0; r < n; r++, base += d) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < d4; j += 4) {
      s0 += vectors[base + j]! * q[j]!;
      s1 += vectors[base + j + 1]! * q[j + 1]!;
      s2 += vectors[base + j + 2]! * q[j + 2]!;
      s3 += vectors[base + j + 3]! * q[j + 3]!;
    }
    for (; j < d; j++) s0 += vectors[base + j]! * q[j]!;
    out[r] = s0 + s1 + s2 + s3;
  }
}

/** Squared length of every row. */
export function squaredNorms(vectors: Float32Array, d: number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let r = 0, base = 0; r < n; r++, base += d) {
    let s = 0;
    for (let j = 0; j < d; j++) s += vectors[base + j]! * vectors[base + j]!;
    out[r] = s;
  }
  return out;
}

export interface GroupHit {
  group: number;
  /** The group's best row. */
  row: number;
  key: number;
}

/**
 * The `count` best groups by key (higher is better), best first, and how many groups had any row.
 * Ties go to the lower group number, so results are stable.
 */
export function topGroups(keys: Float32Array, groupOf: Int32Array, groups: number, count: number): { hits: GroupHit[]; matched: number } {
  const best = new Float32Array(groups).fill(-Infinity);
  const bestRow = new Int32Array(groups).fill(-1);
  for (let r = 0; r < keys.length; r++) {
    const g = groupOf[r]!;
    if (keys[r]! > best[g]!) {
      best[g] = keys[r]!;
      bestRow[g] = r;
    }
  }
  const heap: GroupHit[] = []; // min-heap by (key, then higher group first out)
  let matched = 0;
  for (let g = 0; g < groups; g++) {
    if (bestRow[g]! < 0) continue;
    matched++;
    const hit = { group: g, row: bestRow[g]!, key: best[g]! };
    if (heap.length < count) push(heap, hit);
    else if (count > 0 && worse(heap[0]!, hit)) {
      heap[0] = hit;
      siftDown(heap, 0);
    }
  }
  return { hits: heap.sort((a, b) => b.key - a.key || a.group - b.group), matched };
}

/** a ranks below b. */
function worse(a: GroupHit, b: GroupHit): boolean {
  return a.key < b.key || (a.key === b.key && a.group > b.group);
}

function push(heap: GroupHit[], hit: GroupHit): void {
  heap.push(hit);
  for (let i = heap.length - 1; i > 0; ) {
    const parent = (i - 1) >> 1;
    if (!worse(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function siftDown(heap: GroupHit[], i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
    if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m]!, heap[i]!];
    i = m;
  }
}
