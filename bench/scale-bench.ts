// bench:scale [--documents 100000] [--seed 29] [--queries 500] [--embed] [--starts 3] [--profile dir]
//             [--cache dir] [--home dir] [--chromium path] [--corpus-only]
// Trove at a hundred thousand documents, as a user gets it: a corpus drawn from the bench corpora
// (lib/scale-corpus.ts: Markdown, code, papers, and PDF/DOCX/PPTX/XLSX; a fixed seed; written once
// into ~/.cache/trove-bench/scale-<N>-seed<S>/ and reused), indexed by the real CLI on a fresh
// TROVE_HOME (`trove collection add --no-index`, then `trove index`, timed); with --embed, `trove
// embed`. Then, in process (lib/scale-engine.ts), the keyword index merged as a running host merges
// it and the corpus's own questions searched one after another (and hybrid with --embed); then
// `trove serve` started --starts times, each timed to its first MCP answer (a raw HTTP POST, see
// lib/scale-serve.ts) and its RSS read once idle. Models come from TROVE_MODELS_DIR.
// Progress on stderr; one JSON line on stdout. --profile <dir>: CPU profiles of the index run, the
// in-process searches and the first start, summed up on stderr (lib/cpu-profile.ts). --corpus-only:
// write the corpus and stop.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatSummary, profiled, readProfile, summarize } from './lib/cpu-profile.js';
import { percentile } from './lib/mcp-http.js';
import { buildScaleCorpus, corpusFolder, readManifest, scaleCorpusDir, type ScaleManifest } from './lib/scale-corpus.js';
import { openScaleEngine, type ScaleEngine, type ScaleMode } from './lib/scale-engine.js';
import { coldStart, type ColdStart } from './lib/scale-serve.js';
import { loadSources } from './lib/scale-sources.js';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '29' },
    queries: { type: 'string', default: '500' },
    embed: { type: 'boolean', default: false },
    starts: { type: 'string', default: '3' },
    profile: { type: 'string' },
    cache: { type: 'string', default: path.join(os.homedir(), '.cache', 'trove-bench') },
    home: { type: 'string' },
    chromium: { type: 'string', default: process.env.TROVE_CHROMIUM ?? '/usr/bin/chromium' },
    'corpus-only': { type: 'boolean', default: false },
  },
});
const positive = (name: string, v: string, max = 10_000_000) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`bench:scale: --${name} must be a whole number from 1 to ${max} (got "${v}")`);
    process.exit(2);
  }
  return n;
};
const documents = positive('documents', values.documents, 1_000_000);
const seed = positive('seed', values.seed, 2 ** 31);
const queryCount = positive('queries', values.queries, 100_000);
const starts = positive('starts', values.starts, 20);
const root = path.resolve(import.meta.dirname, '..');
const log = (line: string) => console.error(`bench:scale: ${line}`);
const profileDir = values.profile ? path.resolve(values.profile) : null;

// ---- the corpus, made once --------------------------------------------------------------------------
const cacheDir = scaleCorpusDir(documents, seed, path.resolve(values.cache));
let manifest: ScaleManifest | null = readManifest(cacheDir, documents, seed);
if (!manifest || manifest.questions.length < queryCount) {
  log(`writing the corpus of ${documents} documents (seed ${seed}) into ${cacheDir} (once) …`);
  const t0 = performance.now();
  const sources = loadSources(path.resolve(root, '../shared/bench'));
  manifest = await buildScaleCorpus({ sources, cacheDir, documents, seed, questions: Math.max(queryCount, 500), chromium: values.chromium, log });
  log(`corpus written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}
const corpus = corpusFolder(cacheDir);
const questions = manifest.questions.slice(0, queryCount);
log(`corpus ${corpus}: ${JSON.stringify(manifest.kinds)}, ${(manifest.fileBytes / 1e6).toFixed(1)} MB of files, ${(manifest.textBytes / 1e6).toFixed(1)} MB of text`);
if (values['corpus-only']) process.exit(0);

// ---- indexing with the real CLI -----------------------------------------------------------------------
log('building the CLI (tsc) …');
if (spawnSync('npx', ['tsc', '-p', 'tsconfig.node.json'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('tsc failed');
const home = path.resolve(values.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-scale-')));
if (values.home && fs.existsSync(home)) {
  // --home is emptied for a fresh index: only ever a folder that is empty or a Trove profile
  const entries = fs.readdirSync(home);
  if (entries.length && !entries.includes('index.sqlite')) {
    console.error(`bench:scale: --home ${home} is neither empty nor a Trove profile (no index.sqlite): not emptying it`);
    process.exit(2);
  }
  fs.rmSync(home, { recursive: true, force: true });
}
fs.mkdirSync(home, { recursive: true });
const env = { ...process.env, TROVE_HOME: home };
const cpuProf = (name: string) => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []);

/** Runs the CLI under /usr/bin/time: wall seconds, peak RSS, its JSON. */
function trove(args: string[], nodeArgs: string[] = []): { seconds: number; peakRssMb: number; json: unknown } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...nodeArgs, path.join(root, 'bin/trove.js'), '--json', ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`trove ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { seconds, peakRssMb: Number(r.stderr.trim().split('\n').at(-1)) / 1024, json: JSON.parse(r.stdout) };
}
const profileBytes = () =>
  fs
    .readdirSync(home)
    .filter((f) => f.startsWith('index.sqlite'))
    .reduce((n, f) => n + fs.statSync(path.join(home, f)).size, 0);

trove(['collection', 'add', corpus, '--name', 'scale', '--no-index']);
log(`indexing with \`trove index\` into ${home} …`);
const indexed = trove(['index'], cpuProf('index'));
const report = (indexed.json as { reports: { added: number; chunks: number; bytesRead: number; skipped: unknown[]; failed: unknown[] }[] }).reports[0]!;
const indexBytes = profileBytes();
log(`indexed ${report.added} files (${report.skipped.length} skipped, ${report.failed.length} failed) in ${indexed.seconds.toFixed(1)} s; peak RSS ${indexed.peakRssMb.toFixed(0)} MB`);

let embedded: { seconds: number; peakRssMb: number; profileBytes: number } | null = null;
if (values.embed) {
  log('embedding with `trove embed` …');
  const r = trove(['embed'], cpuProf('embed'));
  // the whole profile: the vectors' tables and the saved ANN index files
  embedded = { ...r, profileBytes: fs.readdirSync(home, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).reduce((n, e) => n + fs.statSync(path.join(e.parentPath, e.name)).size, 0) };
  log(`embedded in ${r.seconds.toFixed(1)} s`);
}

// ---- in process: the corpus's questions, one after another ----------------------------------------------
async function latencies(engine: ScaleEngine, mode: ScaleMode): Promise<{ p50: number; p95: number; p99: number; empty: number; plans: Record<string, number> }> {
  for (const q of questions.slice(0, 50)) await engine.search(q, mode); // warm: page cache, statements, the model
  const run = async () => {
    const times: number[] = [];
    const plans: Record<string, number> = {};
    let empty = 0;
    for (const q of questions) {
      const t0 = performance.now();
      const r = await engine.search(q, mode);
      times.push(performance.now() - t0);
      if (!r.results.length) empty++;
      plans[r.plan.strategy] = (plans[r.plan.strategy] ?? 0) + 1;
    }
    return { times: times.sort((a, b) => a - b), empty, plans };
  };
  const { times, empty, plans } = profileDir ? await profiled(path.join(profileDir, `search-${mode}`, 'in-process.cpuprofile'), run) : await run();
  const ms = (p: number) => +percentile(times, p).toFixed(2);
  return { p50: ms(0.5), p95: ms(0.95), p99: ms(0.99), empty, plans };
}

const engine = await openScaleEngine(home);
const mergeMs = await engine.merge();
log(`${engine.documents} documents, ${engine.chunks} chunks; keyword index merged in ${mergeMs.toFixed(0)} ms; ${questions.length} keyword searches …`);
const keyword = await latencies(engine, 'keyword');
log(`keyword p50 ${keyword.p50} ms, p95 ${keyword.p95} ms (${keyword.empty} without results)`);
const hybrid = values.embed ? await latencies(engine, 'hybrid') : null;
if (hybrid) log(`hybrid p50 ${hybrid.p50} ms, p95 ${hybrid.p95} ms`);
const { documents: indexedDocuments, chunks } = engine;
await engine.close();
const mergedIndexBytes = profileBytes(); // what a host that merged in idle time keeps

// ---- cold starts of `trove serve` -----------------------------------------------------------------------------
const startRuns: ColdStart[] = [];
for (let i = 0; i < starts; i++) {
  const s = await coldStart({ root, profile: home, query: questions[i % questions.length]!, args: values.embed ? [] : ['--no-embed'], nodeArgs: i === 0 ? cpuProf('serve') : [] });
  log(`start ${i + 1}: runtime.json at ${s.runtimeFileMs.toFixed(0)} ms, first answer at ${s.firstAnswerMs.toFixed(0)} ms (${s.firstAnswerResults} results); idle RSS ${s.idleRssMb.toFixed(0)} MB`);
  startRuns.push(s);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (profileDir) {
  for (const dir of fs.readdirSync(profileDir)) {
    for (const f of fs.readdirSync(path.join(profileDir, dir)).filter((x) => x.endsWith('.cpuprofile'))) {
      console.error(formatSummary(`${dir}/${f}`, summarize(readProfile(path.join(profileDir, dir, f)))));
    }
  }
}
if (!values.home) fs.rmSync(home, { recursive: true, force: true });

const round = (x: number, d = 1) => +x.toFixed(d);
console.log(
  JSON.stringify({
    documents: indexedDocuments,
    chunks,
    corpus_documents: manifest.documents,
    kinds: manifest.kinds,
    skipped: report.skipped.length,
    failed: report.failed.length,
    index_seconds: round(indexed.seconds, 2),
    index_files_per_s: Math.round(report.added / indexed.seconds),
    index_peak_rss_mb: Math.round(indexed.peakRssMb),
    index_bytes: indexBytes,
    corpus_text_bytes: manifest.textBytes,
    corpus_file_bytes: manifest.fileBytes,
    corpus_duplicates: manifest.duplicates,
    index_to_text: round(indexBytes / manifest.textBytes, 3),
    merge_ms: Math.round(mergeMs),
    merged_index_bytes: mergedIndexBytes,
    cold_start_first_answer_ms: Math.round(median(startRuns.map((s) => s.firstAnswerMs))),
    cold_start_runs_ms: startRuns.map((s) => Math.round(s.firstAnswerMs)),
    cold_start_runtime_file_ms: Math.round(median(startRuns.map((s) => s.runtimeFileMs))),
    cold_start_client: 'raw HTTP POST, stateless 2026-07-28 tools/call search (bench/lib/mcp-http.ts)',
    idle_rss_mb: Math.round(median(startRuns.map((s) => s.idleRssMb))),
    serve_peak_rss_mb: Math.round(Math.max(...startRuns.map((s) => s.peakRssMb))),
    queries: questions.length,
    keyword_p50_ms: keyword.p50,
    keyword_p95_ms: keyword.p95,
    keyword_p99_ms: keyword.p99,
    keyword_without_results: keyword.empty,
    keyword_plans: keyword.plans,
    ...(embedded && hybrid
      ? { embed_seconds: round(embedded.seconds, 1), embed_peak_rss_mb: Math.round(embedded.peakRssMb), embedded_profile_bytes: embedded.profileBytes, hybrid_p50_ms: hybrid.p50, hybrid_p95_ms: hybrid.p95, hybrid_p99_ms: hybrid.p99 }
      : {}),
    load_average: os.loadavg().map((x) => round(x, 2)),
    at: new Date().toISOString(),
  }),
);
