// bench:memory-engine [--entries 10000] [--single 1000] [--scale 0] [--queries 200] [--profile DIR] [--anatomy [--rounds 3]]:
// memory's engine-side cost with no MCP in the way — what store_context_batch, store_context and
// fts_search_context cost inside Engine.memory, on the bench:memory workload (SciFact slices,
// 2 tags, 3 metadata keys). `--scale N` first grows the store to N entries (batches of 100), then
// times the natural-language queries. Run under `node --cpu-prof` (via tsx) to see the steps.
// `--anatomy`: instead, where a batch write's time goes, piece by piece, and what each piece costs
// in all (bench/lib/memory-write-anatomy.ts), on `--entries` entries. Prints a summary and one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { writeAnatomy } from './lib/memory-write-anatomy.js';
import { entry, lat, readSciFact, rng, workloadQueries, workloadTexts } from './lib/memory-workload.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '10000' },
    single: { type: 'string', default: '1000' },
    scale: { type: 'string', default: '0' },
    queries: { type: 'string', default: '200' },
    profile: { type: 'string' },
    anatomy: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
  },
});
const ROOT = path.resolve(import.meta.dirname, '..');
const SCIFACT = path.resolve(ROOT, '../shared/bench/beir/scifact');
const N = Number(values.entries);
const SINGLE = Number(values.single);
const SCALE = Number(values.scale);
const NQ = Number(values.queries);
const BATCH = 100;
const log = (s: string) => process.stderr.write(`${s}\n`);

if (values.anatomy) {
  const random = rng(42);
  const texts = workloadTexts(readSciFact(SCIFACT), N, random);
  const entries = texts.map((text, i) => {
    const e = entry(text, `t${i % 50}`, random);
    return { threadId: e.thread_id, source: e.source, text: e.text, tags: e.tags, metadata: e.metadata };
  });
  const loadBefore = os.loadavg().map((x) => +x.toFixed(2));
  const rows = writeAnatomy(entries, Number(values.rounds));
  for (const r of rows) log(`${r.variant.padEnd(34)} cpu ${String(r.cpu_us_per_entry).padStart(5)} µs/entry  wall ${String(r.wall_us_per_entry).padStart(5)}  ${JSON.stringify(r.us)}${r.wal_pages_per_batch === null ? '' : `  WAL pages/batch ${r.wal_pages_per_batch}`}`);
  console.log(JSON.stringify({ anatomy: rows, entries: N, rounds: Number(values.rounds), cpus: os.cpus().length, load_before: loadBefore, load_after: os.loadavg().map((x) => +x.toFixed(2)) }));
  process.exit(0);
}

const profile = values.profile ?? path.join(os.tmpdir(), `trove-bench-memory-engine-${process.pid}`);
const fresh = !values.profile || !fs.existsSync(path.join(profile, 'trove.db'));
if (!values.profile) fs.rmSync(profile, { recursive: true, force: true });
fs.mkdirSync(profile, { recursive: true });
const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: profile });
const result: Record<string, unknown> = { entries: N, single: SINGLE, cpus: os.cpus().length, load_before: os.loadavg().map((x) => +x.toFixed(2)) };
try {
  const docs = readSciFact(SCIFACT);
  const random = rng(42);
  const texts = workloadTexts(docs, Math.max(N + SINGLE, SCALE), random);
  const input = (text: string, thread: string) => {
    const e = entry(text, thread, random);
    return { threadId: e.thread_id, source: e.source as 'agent', text: e.text, tags: e.tags, metadata: e.metadata };
  };
  if (fresh) {
    // batches: entries/s and µs per entry
    // inputs built first: the timing is the engine's alone. CPU time too: on a shared machine it moves less than the wall clock
    const batches: ReturnType<typeof input>[][] = [];
    for (let b = 0; b < N; b += BATCH) batches.push(texts.slice(b, b + BATCH).map((x, i) => input(x, `t${(b + i) % 50}`)));
    let t = performance.now();
    const cpu = process.cpuUsage();
    for (const batch of batches) await engine.memory.storeBatch(batch);
    const batchMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    result.store_batch = { entries_per_s: Math.round(N / (batchMs / 1000)), us_per_entry: +((batchMs * 1000) / N).toFixed(1), cpu_us_per_entry: +((used.user + used.system) / N).toFixed(1) };
    // single writes
    const ls: number[] = [];
    const singles = texts.slice(N, N + SINGLE).map((x) => input(x, 'single'));
    t = performance.now();
    const cpu1 = process.cpuUsage();
    for (const one of singles) {
      const t0 = performance.now();
      await engine.memory.store(one);
      ls.push(performance.now() - t0);
    }
    const used1 = process.cpuUsage(cpu1);
    result.store_single = { per_s: Math.round(SINGLE / ((performance.now() - t) / 1000)), ...lat(ls), cpu_us_per_call: SINGLE ? +((used1.user + used1.system) / SINGLE).toFixed(1) : null };
    // grow to the scale
    if (SCALE > N + SINGLE) {
      t = performance.now();
      for (let b = N + SINGLE; b < SCALE; b += BATCH) await engine.memory.storeBatch(texts.slice(b, Math.min(SCALE, b + BATCH)).map((x, i) => input(x, `s${(b + i) % 50}`)));
      log(`grown to ${SCALE} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
  }
  const total = (await engine.memory.statistics()).entries;
  result.stored = total;
  const queries = workloadQueries(texts.slice(0, total), NQ, rng(13)).raw;
  await engine.compactIndex(); // as a host does when idle (bench:memory waits for it)
  for (const [name, extra] of [['fts', {}], ['fts_thread', { threadId: 't7' }]] as const) {
    const ls: number[] = [];
    let errors = 0;
    let zero = 0;
    for (const [i, query] of queries.entries()) {
      const t0 = performance.now();
      try {
        const r = await engine.memory.search({ query, mode: 'keyword', limit: 5, ...extra });
        if (!r.hits.length) zero++;
      } catch {
        errors++;
      }
      if (i >= 10) ls.push(performance.now() - t0); // the first few warm the caches
    }
    result[name] = { ...lat(ls), errors, zero_hit: zero };
  }
} finally {
  await engine.close();
  if (!values.profile) fs.rmSync(profile, { recursive: true, force: true });
}
result.load_after = os.loadavg().map((x) => +x.toFixed(2));
for (const [k, v] of Object.entries(result)) log(`${k}: ${JSON.stringify(v)}`);
console.log(JSON.stringify(result));
