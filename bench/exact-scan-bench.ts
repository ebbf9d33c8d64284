// bench:exact-scan [--n 8713] [--d 384] [--queries 300]: the exact scan of a FAISS flat dataset, the
// datasets room's WebAssembly SIMD kernel (datasets/simd-dots.ts: every inner product) against
// usearch's exactSearch (already a dependency: SIMD, threads) asked for the top 100 and for every
// row, on the same random vectors — the figures behind keeping the kernel (issue 28: replace it if
// usearch is at least as fast). Prints p50/p95 per variant and one JSON line.
import { parseArgs } from 'node:util';
import usearch from 'usearch';
import { dotKernel } from '../src-main/engine/datasets/simd-dots.js';
import { innerProducts } from '../src-main/engine/datasets/vector-scan.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '8713' }, d: { type: 'string', default: '384' }, queries: { type: 'string', default: '300' } } });
const n = Number(values.n);
const d = Number(values.d);
const Q = Number(values.queries);
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
const vectors = Float32Array.from({ length: n * d }, rand);
const queries = Array.from({ length: Q }, () => Float32Array.from({ length: d }, rand));
const kernel = dotKernel(vectors, d, n);
if (!kernel) throw new Error('no SIMD kernel for these dimensions');
const out = new Float32Array(n);

function time(fn: (q: Float32Array) => void): { p50: number; p95: number } {
  for (const q of queries.slice(0, 20)) fn(q); // warm up
  const t: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    fn(q);
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  const at = (p: number) => Math.round(t[Math.min(t.length - 1, Math.floor(t.length * p))]! * 1000) / 1000;
  return { p50: at(0.5), p95: at(0.95) };
}

const rows = {
  simd_kernel_all: time((q) => kernel.innerProducts(q, out)),
  js_loop_all: time((q) => innerProducts(vectors, d, n, q, out)),
  usearch_top100_1t: time((q) => usearch.exactSearch(vectors, q, d, 100, usearch.MetricKind.IP, 1)),
  usearch_top100_2t: time((q) => usearch.exactSearch(vectors, q, d, 100, usearch.MetricKind.IP, 2)),
  usearch_all_1t: time((q) => usearch.exactSearch(vectors, q, d, n, usearch.MetricKind.IP, 1)),
};
for (const [k, v] of Object.entries(rows)) console.error(`${k.padEnd(20)} p50 ${v.p50} ms  p95 ${v.p95} ms`);
console.log(JSON.stringify({ bench: 'exact-scan', n, d, queries: Q, ...Object.fromEntries(Object.entries(rows).map(([k, v]) => [`${k}_p50_ms`, v.p50])) }));
