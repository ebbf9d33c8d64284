// bench:beir <dir> [--mode bm25|vector|hybrid|hybrid+rerank] [--model <id>] [--limit 100] [--via engine|knowledge] [--run-batch n]:
// retrieval quality on any BEIR-format folder. The corpus goes through the real pipeline: one
// Markdown file per document, indexed by the engine like any collection. --via knowledge asks the
// questions through the knowledge.search MCP tool of a real `trove serve` over HTTP (modes bm25 →
// keyword, vector → semantic, hybrid) instead of Engine.search in process. --database
// postgresql://… (an empty database): the indexed and embedded profile is copied there with
// `trove migrate` and the questions run on PostgreSQL (the same engine on the database: every mode, pgvector for the
// vectors); the JSON line says which "backend" ran. Prints a progress bar, a summary, and ends
// with one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { Engine, migrateProfile, readEnvironment, validatePostgresUrl } from '../src-main/engine/index.js';
import { readBeir, scoreRun } from './lib/beir.js';
import { call, serveProfile, type Served } from './lib/mcp-http.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mode: { type: 'string', default: 'bm25' },
    limit: { type: 'string', default: '100' },
    work: { type: 'string' },
    'max-queries': { type: 'string' },
    model: { type: 'string' },
    reranker: { type: 'string' },
    via: { type: 'string', default: 'engine' },
    database: { type: 'string' },
    'run-batch': { type: 'string' },
  },
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: npm run bench:beir -- <beir-dir> [--mode bm25] [--limit 100] [--work <dir>] [--max-queries N]');
  process.exit(2);
}
const MODES = { bm25: 'keyword', vector: 'vector', hybrid: 'hybrid', 'hybrid+rerank': 'rerank' } as const;
const modeNames = values.mode!.split(',');
if (modeNames.some((m) => !(m in MODES))) {
  console.error(`--mode ${values.mode}: use bm25, vector, hybrid or hybrid+rerank (or several, comma-separated)`);
  process.exit(2);
}
const via = values.via!;
const KNOWLEDGE_MODES: Record<string, string> = { bm25: 'keyword', vector: 'semantic', hybrid: 'hybrid' };
if (via !== 'engine' && via !== 'knowledge') {
  console.error(`--via ${via}: use engine (in process) or knowledge (the knowledge.search MCP tool over HTTP)`);
  process.exit(2);
}
if (via === 'knowledge' && modeNames.some((m) => !(m in KNOWLEDGE_MODES))) {
  console.error('--via knowledge runs bm25, vector and hybrid (knowledge.search has no rerank mode)');
  process.exit(2);
}
if (values.database !== undefined && via !== 'engine') {
  console.error('--database runs the questions in process (--via engine): `trove serve` does not run on PostgreSQL yet');
  process.exit(2);
}
const database = values.database === undefined ? null : validatePostgresUrl(values.database, '--database');
const needsVectors = modeNames.some((m) => m !== 'bm25');
const limit = Number(values.limit);
const name = path.basename(path.resolve(dir));
const work = path.resolve(values.work ?? path.join(os.tmpdir(), `trove-beir-${name}`));
fs.rmSync(work, { recursive: true, force: true });
const docsDir = path.join(work, 'corpus');
fs.mkdirSync(docsDir, { recursive: true });

const data = await readBeir(dir);
const bar = new cliProgress.SingleBar(
  { stream: process.stderr, format: '{phase} [{bar}] {percentage}% | {value}/{total} | ETA {eta}s', noTTYOutput: true, notTTYSchedule: 5000 },
  cliProgress.Presets.shades_classic,
);
bar.start(data.corpus.length, 0, { phase: 'write ' });
const idByFile = new Map<string, string>();
data.corpus.forEach((d, i) => {
  const file = `${String(i).padStart(7, '0')}.md`;
  idByFile.set(file, d.id);
  const body = d.title ? `# ${d.title}\n\n${d.text}\n` : `${d.text}\n`;
  fs.writeFileSync(path.join(docsDir, file), body);
  if (i % 500 === 0) bar.update(i + 1);
});
bar.update(data.corpus.length);

const env = readEnvironment(process.env).engine; // TROVE_MODELS_DIR, TROVE_FUSION, … as a user's run would have them
const engine = await Engine.open({
  ...env,
  profileDir: path.join(work, 'home'),
  embeddings: { ...env.embeddings, ...(values['run-batch'] ? { runBatch: Number(values['run-batch']) } : {}), defaultModel: values.model, ...(values.reranker ? { rerankModel: values.reranker } : {}) },
});
await engine.addCollection({ root: docsDir, name: 'beir' });
const t0 = performance.now();
bar.start(data.corpus.length, 0, { phase: 'index ' });
await engine.index({ onProgress: (p) => p.phase === 'indexing' && bar.update(p.done) });
bar.stop();
const indexSeconds = (performance.now() - t0) / 1000;
let embedSeconds = 0;
let embedModel: string | null = null;
if (needsVectors) {
  const t1 = performance.now();
  bar.start(1, 0, { phase: 'embed ' });
  const [st] = await engine.embed({ onProgress: (p) => { bar.setTotal(Math.max(1, p.total)); bar.update(p.done); } });
  bar.stop();
  embedSeconds = (performance.now() - t1) / 1000;
  embedModel = st?.model ?? null;
}

const qids = [...data.qrels.keys()].filter((q) => data.queries.has(q)).slice(0, values['max-queries'] ? Number(values['max-queries']) : undefined);
let served: Served | null = null;
if (via === 'knowledge') {
  await engine.compactIndex();
  await engine.close();
  served = await serveProfile(path.resolve(import.meta.dirname, '..'), path.join(work, 'home'));
}

let shared: Engine | null = null;
let migrateSeconds = 0;
if (database) {
  const t2 = performance.now();
  await engine.compactIndex();
  const report = await migrateProfile({ profileDir: path.join(work, 'home'), url: database });
  migrateSeconds = (performance.now() - t2) / 1000;
  console.error(`profile copied to PostgreSQL in ${migrateSeconds.toFixed(1)} s (${report.counts.length} counts checked)`);
  shared = await Engine.open({ ...env, profileDir: path.join(work, 'home'), database, embeddings: { ...env.embeddings, ...(values['run-batch'] ? { runBatch: Number(values['run-batch']) } : {}), defaultModel: values.model, ...(values.reranker ? { rerankModel: values.reranker } : {}) } });
}

/** The ranked corpus files for one question, by the route --via names (and the backend --database names). */
async function ask(query: string, mode: (typeof MODES)[keyof typeof MODES], modeName: string, i: number): Promise<string[]> {
  if (!served) {
    const r = await (shared ?? engine).search({ query, limit, snippetChars: 40, mode, ...(mode === 'vector' ? { minScore: 0 } : {}) });
    return r.results.map((h) => h.path);
  }
  const r = await call(served.mcpUrl, served.auth, 'knowledge.search', { query, limit, snippet_length: 50, mode: KNOWLEDGE_MODES[modeName], sources: ['documents'], dedupe: false }, i);
  if (r.isError) throw new Error(r.content?.[0]?.text ?? 'knowledge.search failed');
  return (r.structuredContent as { results: { path: string }[] }).results.map((h) => h.path);
}
// --mode may list several (e.g. vector,hybrid): the corpus is indexed and embedded once, each mode prints its JSON line
for (const modeName of modeNames) {
  const mode = MODES[modeName as keyof typeof MODES];
  const run = new Map<string, string[]>();
  const latencies: number[] = [];
  let empty = 0;
  for (const q of qids) {
    const started = performance.now();
    let ids: string[] = [];
    try {
      ids = (await ask(data.queries.get(q)!, mode, modeName, run.size)).map((p) => idByFile.get(p)!).filter(Boolean);
    } catch {
      // a query with no searchable words retrieves nothing
    }
    latencies.push(performance.now() - started);
    if (!ids.length) empty++;
    run.set(q, ids);
  }
  const qrels = new Map([...data.qrels].filter(([q]) => run.has(q)));
  const m = scoreRun(run, qrels);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  const result = {
    dataset: name,
    mode: modeName,
    via,
    backend: shared ? 'postgres' : 'sqlite',
    documents: data.corpus.length,
    queries: m.queries,
    ndcg_at_10: round(m.ndcg10),
    recall_at_100: round(m.recall100),
    mrr_at_10: round(m.mrr10),
    queries_without_results: empty,
    index_seconds: round(indexSeconds),
    model: mode === 'keyword' ? null : embedModel,
    embed_seconds: round(embedSeconds),
    ...(shared ? { migrate_seconds: round(migrateSeconds) } : {}),
    search_ms_p50: round(pct(0.5)),
    search_ms_p95: round(pct(0.95)),
  };
  console.error(
    `${name} (${modeName}): nDCG@10 ${result.ndcg_at_10}  Recall@100 ${result.recall_at_100}  MRR@10 ${result.mrr_at_10}  ` +
      `(${m.queries} queries, ${empty} without results; indexed ${data.corpus.length} docs in ${result.index_seconds} s)`,
  );
  console.log(JSON.stringify(result));
}
if (served) await served.stop();
else await engine.close();
await shared?.close();

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
