// bench:datasets <beir-dir> [--max-docs N] [--max-queries N] [--type flat-ip|flat-l2|hnsw] [--python path] [--work dir]:
// the dataset path against Trove's own vector leg on the same model and the same vectors.
// The corpus is indexed and embedded by the engine (all-MiniLM-L6-v2, one Markdown file per
// document, as bench:beir does); its vector leg is measured; then every chunk vector is exported
// with its text and written by faiss.write_index (bench/datasets/make-faiss-index.py: Python with
// faiss-cpu, bench only) into a dataset folder with a manifest. The engine registers it like any
// dataset and each query goes through Engine.datasets.search(id, query, {topK: 10}) — the call
// knowledge.search {dataset, query, topK} makes. Prints nDCG@10 of both, the search p50/p95, and one
// JSON line. A document's several chunk vectors collapse to its best, as in the vector leg.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { wholeTextSql } from '../src-main/engine/store/content-blocks.js';
import { openDatabase } from '../src-main/engine/store/database.js';
import { VectorStore } from '../src-main/engine/store/vectors.js';
import { readBeir, scoreRun, type BeirData } from './lib/beir.js';

const MODEL = 'all-MiniLM-L6-v2';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'max-docs': { type: 'string' },
    'max-queries': { type: 'string' },
    type: { type: 'string', default: 'flat-ip' },
    python: { type: 'string', default: process.env.PYTHON ?? 'python3' },
    work: { type: 'string' },
  },
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: npm run bench:datasets -- <beir-dir> [--max-docs N] [--max-queries N] [--type flat-ip|flat-l2|hnsw] [--python path] [--work dir]');
  process.exit(2);
}
const name = path.basename(path.resolve(dir));
const work = path.resolve(values.work ?? path.join(os.tmpdir(), `trove-datasets-bench-${name}`));
fs.rmSync(work, { recursive: true, force: true });
const docsDir = path.join(work, 'corpus');
fs.mkdirSync(docsDir, { recursive: true });

const data = subset(await readBeir(dir), values['max-docs'] ? Number(values['max-docs']) : undefined, values['max-queries'] ? Number(values['max-queries']) : undefined);
const idByFile = new Map<string, string>();
data.corpus.forEach((d, i) => {
  const file = `${String(i).padStart(7, '0')}.md`;
  idByFile.set(file, d.id);
  fs.writeFileSync(path.join(docsDir, file), d.title ? `# ${d.title}\n\n${d.text}\n` : `${d.text}\n`);
});
const qids = [...data.qrels.keys()].filter((q) => data.queries.has(q));
const log = (s: string) => process.stderr.write(`${s}\n`);

// 1. Trove's own vector leg
const env = readEnvironment(process.env).engine;
const profileDir = path.join(work, 'home');
let engine = await Engine.open({ ...env, profileDir, embeddings: { ...env.embeddings, defaultModel: MODEL } });
await engine.addCollection({ root: docsDir, name: 'beir' });
let t = performance.now();
await engine.index();
log(`indexed ${data.corpus.length} documents in ${((performance.now() - t) / 1000).toFixed(1)} s`);
t = performance.now();
await engine.embed({ onProgress: (p) => p.phase === 'done' && log(`embedded ${p.total} chunks with ${p.model}`) });
const embedSeconds = (performance.now() - t) / 1000;
const vectorLeg = await measure(qids, async (q) => {
  const r = await engine.search({ query: q, mode: 'vector', minScore: 0, limit: 10, snippetChars: 40, freshness: false });
  return r.results.map((h) => idByFile.get(h.path)!);
});
await engine.close();

// 2. the same vectors as a FAISS dataset
const dsDir = path.join(work, 'datasets', 'datasets', name);
fs.mkdirSync(dsDir, { recursive: true });
const exported = exportVectors(profileDir, dsDir);
t = performance.now();
log(execFileSync(values.python!, [path.join(import.meta.dirname, 'datasets', 'make-faiss-index.py'), '--vectors', exported.file, '--dims', String(exported.dims), '--out', path.join(dsDir, 'index.faiss'), '--type', values.type!], { encoding: 'utf8' }).trim());
fs.rmSync(exported.file);
fs.writeFileSync(
  path.join(dsDir, 'manifest.json'),
  JSON.stringify({ id: name, name: `${name} (BEIR)`, description: `${name} as a FAISS ${values.type} index of Trove's ${MODEL} chunk vectors`, index: 'index.faiss', metadata: 'metadata.json', model: MODEL, defaultTopK: 10 }),
);

engine = await Engine.open({ ...env, profileDir, embeddings: { ...env.embeddings, defaultModel: MODEL } });
await engine.datasets.addFolder(path.join(work, 'datasets'));
t = performance.now();
const info = (await engine.datasets.settled()).find((d) => d.id === name)!;
const loadMs = performance.now() - t;
if (info.state !== 'ready') throw new Error(`the dataset did not load: ${info.state}: ${info.reason}`);
log(`dataset ${name}: ${info.indexType}, ${info.documents} vectors, loaded in ${loadMs.toFixed(0)} ms${info.warnings.length ? `; ${info.warnings.join('; ')}` : ''}`);
// warm the model workers on text that is not a query (queries are cached once embedded)
for (const d of data.corpus.slice(0, 5)) await engine.datasets.search(name, d.title || d.text.slice(0, 80), { topK: 10 });
const datasetPath = await measure(qids, async (q) => {
  const r = await engine.datasets.search(name, q, { topK: 10, snippetLength: 40 });
  return r.results.map((h) => idByFile.get(h.path)!);
});
await engine.close();

const result = {
  dataset: name,
  documents: data.corpus.length,
  vectors: info.documents,
  queries: datasetPath.queries,
  model: MODEL,
  index_type: info.indexType,
  embed_seconds: round(embedSeconds),
  load_ms: round(loadMs),
  vector_leg: { ndcg_at_10: round(vectorLeg.ndcg10), search_ms_p50: round(vectorLeg.p50), search_ms_p95: round(vectorLeg.p95) },
  dataset_search: { ndcg_at_10: round(datasetPath.ndcg10), search_ms_p50: round(datasetPath.p50), search_ms_p95: round(datasetPath.p95) },
  ndcg_delta: round(datasetPath.ndcg10 - vectorLeg.ndcg10),
};
log(
  `${name}: dataset search nDCG@10 ${result.dataset_search.ndcg_at_10} vs vector leg ${result.vector_leg.ndcg_at_10} (Δ ${result.ndcg_delta}); ` +
    `p50 ${result.dataset_search.search_ms_p50} ms (vector leg ${result.vector_leg.search_ms_p50} ms), p95 ${result.dataset_search.search_ms_p95} ms; ${result.queries} queries`,
);
console.log(JSON.stringify(result));

/** Runs every query once, in order: nDCG@10 and latency percentiles. */
async function measure(queries: string[], run: (q: string) => Promise<string[]>) {
  const results = new Map<string, string[]>();
  const times: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    results.set(q, await run(data.queries.get(q)!));
    times.push(performance.now() - started);
  }
  const m = scoreRun(results, new Map([...data.qrels].filter(([q]) => results.has(q))));
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { ...m, p50: pct(0.5), p95: pct(0.95) };
}

/** Every chunk vector of the collection's space, as raw float32 rows, and metadata.json with each chunk's document and text. */
function exportVectors(profile: string, out: string): { file: string; dims: number } {
  const db = openDatabase(path.join(profile, 'index.sqlite'));
  try {
    const vectors = new VectorStore(db);
    const collectionId = (db.prepare("SELECT id FROM collections WHERE name = 'beir'").get() as { id: number }).id;
    const spaceId = vectors.collection(collectionId).activeSpaceId!;
    const chunk = db.prepare<[number], { path: string; title: string; text: string }>(
      `SELECT d.path, d.title, substr(${wholeTextSql('d.id')}, c.char_start + 1, c.char_end - c.char_start) AS text
         FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?`,
    );
    const file = path.join(out, 'vectors.f32');
    const fd = fs.openSync(file, 'w');
    const metadata: { title: string; path: string; text: string }[] = [];
    let dims = 0;
    for (let after = 0; ; ) {
      const keys = vectors.keysAfter(spaceId, after, 1000);
      if (!keys.length) break;
      for (const id of keys) {
        const v = vectors.vectorOf(spaceId, id)!;
        dims = v.length;
        fs.writeSync(fd, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
        metadata.push(chunk.get(id)!);
      }
      after = keys.at(-1)!;
    }
    fs.closeSync(fd);
    fs.writeFileSync(path.join(out, 'metadata.json'), JSON.stringify(metadata));
    return { file, dims };
  } finally {
    db.close();
  }
}

/** The first N queries, and the documents they judge plus others up to M (so a small run still means something). */
function subset(d: BeirData, maxDocs?: number, maxQueries?: number): BeirData {
  const qrels = new Map([...d.qrels].filter(([q]) => d.queries.has(q)).slice(0, maxQueries));
  if (!maxDocs) return { ...d, qrels };
  const judged = new Set([...qrels.values()].flatMap((r) => [...r.keys()]));
  const corpus = [...d.corpus.filter((x) => judged.has(x.id)), ...d.corpus.filter((x) => !judged.has(x.id))].slice(0, Math.max(maxDocs, judged.size));
  return { corpus, queries: d.queries, qrels };
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
