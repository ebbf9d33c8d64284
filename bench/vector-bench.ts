// bench:vector [--n 100000] [--queries 200]: vector search latency and recall@10 on synthetic
// clustered 384-d unit vectors. Exact search is sqlite-vec (the store of record, collections
// as partition keys); approximate is the usearch HNSW index Trove derives from it
// (store/sqlite/ann-index.ts). Filtered searches (one collection of ten) are measured for both.
// Prints a summary and ends with one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { AnnIndex } from '../src-main/engine/store/sqlite/ann-index.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '100000' }, queries: { type: 'string', default: '200' }, 'exact-queries': { type: 'string', default: '50' } } });
const N = Number(values.n);
const Q = Number(values.queries);
const DIMS = 384;
const CENTRES = 1000;
const COLLECTIONS = 10;
const K = 10;

// deterministic PRNG + Gaussian: the same data on every run
let seed = 20261122;
const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}
const centres = Array.from({ length: CENTRES }, () => unit(Float32Array.from({ length: DIMS }, gauss)));
const around = (c: Float32Array) => unit(Float32Array.from(c, (x) => x + gauss() * 0.033)); // cos to centre ~0.85

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-vector-bench-'));
const db = new Database(path.join(work, 'v.sqlite'));
db.pragma('journal_mode = WAL');
sqliteVec.load(db);
db.exec(`CREATE VIRTUAL TABLE v USING vec0(chunk_id INTEGER PRIMARY KEY, collection_id INTEGER PARTITION KEY, embedding float[${DIMS}] distance_metric=cosine)`);
const ins = db.prepare('INSERT INTO v (chunk_id, collection_id, embedding) VALUES (?, ?, ?)');
const flat = new Float32Array(N * DIMS);
const collectionOf = new Int32Array(N + 1);
let t0 = performance.now();
db.transaction(() => {
  for (let i = 0; i < N; i++) {
    const v = around(centres[Math.floor(rand() * CENTRES)]!);
    flat.set(v, i * DIMS);
    const key = i + 1;
    collectionOf[key] = 1 + (i % COLLECTIONS);
    ins.run(BigInt(key), BigInt(collectionOf[key]!), Buffer.from(v.buffer));
  }
})();
const insertSeconds = (performance.now() - t0) / 1000;
const queries = Array.from({ length: Q }, () => around(centres[Math.floor(rand() * CENTRES)]!));
console.error(`${N} vectors in sqlite-vec in ${insertSeconds.toFixed(1)} s`);

const knn = db.prepare('SELECT chunk_id AS key FROM v WHERE embedding MATCH ? AND k = ?');
const knnIn = db.prepare('SELECT chunk_id AS key FROM v WHERE embedding MATCH ? AND k = ? AND collection_id = ?');
const blob = (q: Float32Array) => Buffer.from(q.buffer, q.byteOffset, q.byteLength);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number) => Math.round(x * 100) / 100;

// exact: the ground truth (and its latency, on fewer queries at 1M)
const exactQ = Math.min(Q, Number(values['exact-queries']));
const truth: number[][] = [];
const truthFiltered: number[][] = [];
const exactMs: number[] = [];
const exactFilteredMs: number[] = [];
for (let i = 0; i < Q; i++) {
  t0 = performance.now();
  truth.push((knn.all(blob(queries[i]!), K) as { key: number }[]).map((r) => r.key));
  if (i < exactQ) exactMs.push(performance.now() - t0);
  t0 = performance.now();
  truthFiltered.push((knnIn.all(blob(queries[i]!), K, 1 + (i % COLLECTIONS)) as { key: number }[]).map((r) => r.key));
  if (i < exactQ) exactFilteredMs.push(performance.now() - t0);
}
console.error(`exact sqlite-vec: p50 ${r2(pct(exactMs, 0.5))} ms, filtered (1/${COLLECTIONS}) p50 ${r2(pct(exactFilteredMs, 0.5))} ms`);

// approximate: usearch HNSW built from the same vectors
const ann = AnnIndex.create(DIMS);
t0 = performance.now();
const BATCH = 10_000;
for (let i = 0; i < N; i += BATCH) {
  const m = Math.min(BATCH, N - i);
  ann.addBatch(Array.from({ length: m }, (_, j) => i + j + 1), flat.subarray(i * DIMS, (i + m) * DIMS), 0);
  process.stderr.write(`\rbuild ${i + m}/${N}`);
}
const buildSeconds = (performance.now() - t0) / 1000;
process.stderr.write('\n');
const file = path.join(work, 'v.usearch');
t0 = performance.now();
ann.save(file);
const saveMs = performance.now() - t0;
t0 = performance.now();
const loaded = AnnIndex.load(file, DIMS)!;
const loadMs = performance.now() - t0;

const recall = (got: number[], want: number[]) => want.filter((k) => got.includes(k)).length / Math.max(1, want.length);
const annMs: number[] = [];
const annFilteredMs: number[] = [];
let rec = 0;
let recFiltered = 0;
let fallbacks = 0;
for (let i = 0; i < Q; i++) {
  t0 = performance.now();
  const got = loaded.search(queries[i]!, K).map((m) => m.key);
  annMs.push(performance.now() - t0);
  rec += recall(got, truth[i]!);
  // filtered: over-fetch by the inverse selectivity (x2), keep the collection's keys; too few → exact partition kNN
  const c = 1 + (i % COLLECTIONS);
  t0 = performance.now();
  let kept = loaded.search(queries[i]!, K * COLLECTIONS * 2).map((m) => m.key).filter((k) => collectionOf[k] === c).slice(0, K);
  if (kept.length < K) {
    fallbacks++;
    kept = (knnIn.all(blob(queries[i]!), K, c) as { key: number }[]).map((r) => r.key);
  }
  annFilteredMs.push(performance.now() - t0);
  recFiltered += recall(kept, truthFiltered[i]!);
}
const result = {
  vectors: N,
  dims: DIMS,
  queries: Q,
  sqlite_vec_insert_s: r2(insertSeconds),
  exact_p50_ms: r2(pct(exactMs, 0.5)),
  exact_filtered_p50_ms: r2(pct(exactFilteredMs, 0.5)),
  ann_build_s: r2(buildSeconds),
  ann_save_ms: r2(saveMs),
  ann_load_ms: r2(loadMs),
  ann_file_mb: r2(fs.statSync(file).size / 1e6),
  ann_p50_ms: r2(pct(annMs, 0.5)),
  ann_p95_ms: r2(pct(annMs, 0.95)),
  ann_recall_at_10: Math.round((rec / Q) * 1000) / 1000,
  ann_filtered_p50_ms: r2(pct(annFilteredMs, 0.5)),
  ann_filtered_p95_ms: r2(pct(annFilteredMs, 0.95)),
  ann_filtered_recall_at_10: Math.round((recFiltered / Q) * 1000) / 1000,
  ann_filtered_fallbacks: fallbacks,
  cores: os.availableParallelism(),
};
console.error(
  `ANN: build ${result.ann_build_s} s, p50 ${result.ann_p50_ms} ms, recall@10 ${result.ann_recall_at_10}; ` +
    `filtered p50 ${result.ann_filtered_p50_ms} ms, recall@10 ${result.ann_filtered_recall_at_10} (${fallbacks} exact fallbacks)`,
);
console.log(JSON.stringify(result));
db.close();
fs.rmSync(work, { recursive: true, force: true });
