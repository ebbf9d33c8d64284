// bench:knowledge [--scifact dir] [--cpp dir] [--queries 300] [--warmup 100] [--work dir] [--skip scifact|cpp]
//                 [--faiss-datasets <folder> --dataset <id>]:
// the knowledge toolset over MCP HTTP, through the real `trove serve` in its own process, as
// assistants reach it (stateless 2026-07-28 requests, one at a time).
//   SciFact, indexed and embedded (all-MiniLM-L6-v2): knowledge.search hybrid nDCG@10 and latency,
//     beside the engine's own hybrid at the same limit in process (no loss allowed), and
//     knowledge.get chunk_with_siblings at max_tokens 2000 on each query's best result;
//   with --faiss-datasets (a folder holding datasets/<id>/manifest.json: bench:datasets leaves
//     SciFact as a FAISS IndexFlatIP of Trove's MiniLM chunk vectors in its work folder), the
//     dataset path: knowledge.search {dataset, query, topK: 10} nDCG@10 and latency, beside the
//     engine's own vector leg on the same model;
//   cpp-docs: knowledge.search keyword latency on questions from the corpus's headings (beside
//     QMD's `search` on the same questions in the same run), and knowledge.get
//     chunk_with_siblings at max_tokens 2000 on its (longer) documents.
// Profiles are kept in --work (default <tmp>/trove-bench-knowledge) between runs: SciFact is
// embedded once. Prints figures and ends with one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { scoreRun } from './lib/beir.js';
import { openBeirProfile } from './lib/beir-profile.js';
import { call, percentile, serveProfile, type Served } from './lib/mcp-http.js';

const { values } = parseArgs({
  options: {
    scifact: { type: 'string' },
    cpp: { type: 'string' },
    queries: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '100' },
    work: { type: 'string' },
    skip: { type: 'string', multiple: true, default: [] },
    'faiss-datasets': { type: 'string' },
    dataset: { type: 'string' },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const scifactDir = path.resolve(values.scifact ?? path.join(root, '../shared/bench/beir/scifact'));
const cppDir = path.resolve(values.cpp ?? path.join(root, '../shared/bench/corpora/cpp-docs'));
const work = path.resolve(values.work ?? path.join(os.tmpdir(), 'trove-bench-knowledge'));
const N = Number(values.queries);
const WARMUP = Number(values.warmup);
const skip = new Set(values.skip);

interface Timing {
  calls: number;
  p50_ms: number;
  p95_ms: number;
}

function timing(times: number[]): Timing {
  const sorted = [...times].sort((a, b) => a - b);
  return { calls: sorted.length, p50_ms: round(percentile(sorted, 0.5), 2), p95_ms: round(percentile(sorted, 0.95), 2) };
}

/**
 * Times fn over each input, after untimed calls over `warm` (V8 compiles the HTTP and MCP paths
 * over the first few hundred calls). The warm-up inputs differ from the timed ones, so no cache
 * (query embeddings, document text) has seen a timed input before.
 */
async function timed<T>(warm: readonly T[], inputs: readonly T[], fn: (x: T, i: number) => Promise<unknown>): Promise<number[]> {
  for (const [i, x] of warm.entries()) await fn(x, -1 - i);
  const times: number[] = [];
  for (const [i, x] of inputs.entries()) {
    const t0 = performance.now();
    await fn(x, i);
    times.push(performance.now() - t0);
  }
  return times;
}

interface Item {
  uri: string;
  path: string;
  loc: { chunk_index: number } | null;
}

const search = async (s: Served, args: Record<string, unknown>, id: number): Promise<Item[]> => {
  const r = await call(s.mcpUrl, s.auth, 'knowledge.search', { limit: 10, dedupe: false, ...args }, id);
  if (r.isError) throw new Error(`knowledge.search: ${r.content?.[0]?.text}`);
  return (r.structuredContent as { results: Item[] }).results;
};

const getSiblings = async (s: Served, item: Item, id: number) => {
  const r = await call(s.mcpUrl, s.auth, 'knowledge.get', { uri: item.uri, loc: item.loc ?? undefined, retrieval: { mode: 'chunk_with_siblings', max_tokens: 2000 } }, id);
  if (r.isError) throw new Error(`knowledge.get: ${r.content?.[0]?.text}`);
  const tokens = (r.structuredContent as { retrieval: { tokens: number } }).retrieval.tokens;
  if (tokens > 2000) throw new Error(`knowledge.get went over its budget: ${tokens} tokens`);
};

const result: Record<string, unknown> = { machine_load: os.loadavg().map((l) => round(l, 2)) };

// ---- SciFact: hybrid quality and latency ---------------------------------------------------
if (!skip.has('scifact')) {
  const p = await openBeirProfile(scifactDir, path.join(work, 'scifact'), { embed: true, model: 'all-MiniLM-L6-v2' });
  const qids = [...p.data.qrels.keys()].filter((q) => p.data.queries.has(q)).slice(0, N);
  const ids = (paths: string[]) => paths.map((f) => p.idByFile.get(f)!).filter(Boolean);
  const own = new Map<string, string[]>();
  for (const q of qids) own.set(q, ids((await p.engine.search({ query: p.data.queries.get(q)!, mode: 'hybrid', limit: 10, freshness: false })).results.map((h) => h.path)));
  const qrels = new Map([...p.data.qrels].filter(([q]) => own.has(q)));
  const engineNdcg = scoreRun(own, qrels).ndcg10;
  let dataset: { id: string; vectorLegNdcg: number } | null = null;
  if (values['faiss-datasets']) {
    await p.engine.datasets.addFolder(path.resolve(values['faiss-datasets']));
    const ready = (await p.engine.datasets.settled()).filter((d) => d.state === 'ready' && d.kind === 'faiss' && (!values.dataset || d.id === values.dataset));
    if (!ready.length) throw new Error(`no ready FAISS dataset${values.dataset ? ` "${values.dataset}"` : ''} in ${values['faiss-datasets']}`);
    const leg = new Map<string, string[]>();
    for (const q of qids) leg.set(q, ids((await p.engine.search({ query: p.data.queries.get(q)!, mode: 'vector', minScore: 0, limit: 10, freshness: false })).results.map((h) => h.path)));
    dataset = { id: ready[0]!.id, vectorLegNdcg: scoreRun(leg, qrels).ndcg10 };
  }
  await p.engine.compactIndex();
  await p.engine.close();

  const served = await serveProfile(root, p.profileDir);
  try {
    const run = new Map<string, string[]>();
    const best: Item[] = [];
    const warmBest: Item[] = [];
    // warm-up questions: the corpus's own titles, never a test query
    const warm = p.data.corpus.slice(0, WARMUP).map((d) => d.title || d.text.slice(0, 120));
    const times = await timed(warm.map((t) => ({ text: t, q: null as string | null })), qids.map((q) => ({ text: p.data.queries.get(q)!, q: q as string | null })), async (x, i) => {
      const items = await search(served, { query: x.text, mode: 'hybrid', sources: ['documents'] }, i);
      if (x.q === null) {
        if (items[0]) warmBest.push(items[0]);
        return;
      }
      run.set(x.q, ids(items.map((y) => y.path)));
      if (items[0]) best.push(items[0]);
    });
    const gets = await timed(warmBest, best, (item, i) => getSiblings(served, item, i));
    const ndcg = scoreRun(run, qrels).ndcg10;
    result.scifact = {
      queries: qids.length,
      documents: p.data.corpus.length,
      model: p.model,
      knowledge_hybrid_ndcg_at_10: round(ndcg, 4),
      engine_hybrid_ndcg_at_10: round(engineNdcg, 4),
      loss_vs_engine: round(engineNdcg - ndcg, 4),
      knowledge_search_hybrid: timing(times),
      knowledge_get_chunk_with_siblings_2000: timing(gets),
    };
    console.error(
      `scifact: knowledge.search hybrid nDCG@10 ${round(ndcg, 4)} (engine's own hybrid ${round(engineNdcg, 4)}) · p50 ${timing(times).p50_ms} ms · ` +
        `knowledge.get chunk_with_siblings@2000 p50 ${timing(gets).p50_ms} ms`,
    );
    if (dataset) {
      const dsRun = new Map<string, string[]>();
      const ds = dataset;
      const dsTimes = await timed(warm.map((t) => ({ text: t, q: null as string | null })), qids.map((q) => ({ text: p.data.queries.get(q)!, q: q as string | null })), async (x, i) => {
        const items = await search(served, { dataset: ds.id, query: x.text, topK: 10 }, i);
        if (x.q !== null) dsRun.set(x.q, ids(items.map((y) => y.path)));
      });
      const dsNdcg = scoreRun(dsRun, qrels).ndcg10;
      result.dataset_path = {
        dataset: ds.id,
        knowledge_search_dataset_ndcg_at_10: round(dsNdcg, 4),
        engine_vector_leg_ndcg_at_10: round(ds.vectorLegNdcg, 4),
        delta: round(dsNdcg - ds.vectorLegNdcg, 4),
        knowledge_search_dataset: timing(dsTimes),
      };
      console.error(`dataset path: knowledge.search {dataset: ${ds.id}, topK: 10} nDCG@10 ${round(dsNdcg, 4)} (vector leg ${round(ds.vectorLegNdcg, 4)}) · p50 ${timing(dsTimes).p50_ms} ms`);
    }
  } finally {
    await served.stop();
  }
}

// ---- cpp-docs: keyword latency ---------------------------------------------------------------
if (!skip.has('cpp')) {
  const profile = path.join(work, `cpp-${path.basename(cppDir)}`);
  const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: profile });
  if (!(await engine.listCollections()).length) {
    console.error(`trove: indexing ${cppDir} …`);
    await engine.addCollection({ root: cppDir, name: 'cpp', include: ['**/*.md'] });
  }
  await engine.index();
  await engine.compactIndex(); // a running host merges while idle (store/fts-merge.ts): start from there
  await engine.close();
  const queries = headingQuestions(cppDir, N);
  const served = await serveProfile(root, profile, {}, ['--no-embed']); // keyword latency: no vectors wanted
  try {
    const best: Item[] = [];
    const warmBest: Item[] = [];
    const warm = headingQuestions(cppDir, WARMUP, 11); // other questions than the timed ones
    const times = await timed(warm.map((q) => ({ q, warm: true })), queries.map((q) => ({ q, warm: false })), async (x, i) => {
      const items = await search(served, { query: x.q, mode: 'keyword', sources: ['documents'] }, i);
      if (items[0]) (x.warm ? warmBest : best).push(items[0]);
    });
    const gets = await timed(warmBest, best, (item, i) => getSiblings(served, item, i));
    // QMD's keyword `search` on the same questions in the same run: what the knowledge layer adds, whatever the machine's state
    const qmd = await timed([], queries, (q, i) => call(served.mcpUrl, served.auth, 'search', { query: q, limit: 10 }, i));
    result.cpp_docs = {
      queries: queries.length,
      knowledge_search_keyword: timing(times),
      qmd_search_same_queries: timing(qmd),
      knowledge_get_chunk_with_siblings_2000: timing(gets),
    };
    console.error(
      `cpp-docs: knowledge.search keyword p50 ${timing(times).p50_ms} ms (QMD search, same questions: ${timing(qmd).p50_ms} ms) · ` +
        `knowledge.get chunk_with_siblings@2000 p50 ${timing(gets).p50_ms} ms`,
    );
  } finally {
    await served.stop();
  }
}

console.log(JSON.stringify(result));

/** Natural-language questions from a corpus's own headings (as bench:search and bench:mcp build them). */
function headingQuestions(dir: string, n: number, seedValue = 7): string[] {
  const headings: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/^#{1,3} +(.{12,80})$/gm)) headings.push(m[1]!.replace(/[`*_]/g, ''));
    }
  };
  walk(dir);
  let seed = seedValue;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const templates = [(h: string) => `how do I ${h.toLowerCase()}`, (h: string) => `${h} example`, (h: string) => `what is ${h.toLowerCase()}`];
  return Array.from({ length: n }, () => templates[Math.floor(rand() * templates.length)]!(headings[Math.floor(rand() * headings.length)]!));
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
