// bench:search [dir] [--queries 500] [--limit 10]: in-process keyword search latency on an indexed
// corpus (default ../shared/bench/corpora/cpp-docs), with natural-language questions built
// deterministically from the corpus's own headings (bench/lib/heading-questions.ts). Prints
// p50/p95/p99, the plan mix, and how many queries found nothing.
// --database postgresql://…: the profile is migrated there (`trove migrate`; a finished copy is
// reused) and the same queries run on PostgreSQL (the same engine on a database); prints "backend": "postgres" and
// how many queries returned other documents than SQLite's (the ranking parity check).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, migrateProfile, readEnvironment, type SearchResponse } from '../src-main/engine/index.js';
import { headingQuestions } from './lib/heading-questions.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    queries: { type: 'string', default: '500' },
    limit: { type: 'string', default: '10' },
    home: { type: 'string' },
    reindex: { type: 'boolean', default: false },
    database: { type: 'string' },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(positionals[0] ?? path.join(root, '../shared/bench/corpora/cpp-docs'));
const home = path.resolve(values.home ?? path.join(os.tmpdir(), `trove-bench-search-${path.basename(dir)}`));
if (values.reindex) fs.rmSync(home, { recursive: true, force: true });

const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: home });
if (!(await engine.listCollections()).length) {
  console.error(`indexing ${dir} into ${home} …`);
  await engine.addCollection({ root: dir, name: 'bench' });
  await engine.index();
}
// search the index as a running host keeps it: merged in idle time (store/fts-merge.ts)
const mergeStarted = performance.now();
await engine.compactIndex();
const mergeMs = performance.now() - mergeStarted;
console.error(`keyword index merged in ${mergeMs.toFixed(0)} ms`);
const status = await engine.status();
console.error(`${status.totals.documents} documents, ${status.totals.chunks} chunks`);

const queries = headingQuestions(dir, Number(values.queries));

const limit = Number(values.limit);
let shared: Engine | null = null;
if (values.database) {
  const migrated = performance.now();
  await migrateProfile({ profileDir: home, url: values.database });
  console.error(`profile copied to PostgreSQL (or found there) in ${(performance.now() - migrated).toFixed(0)} ms`);
  shared = await Engine.open({ profileDir: home, database: values.database });
}
const search = async (query: string): Promise<SearchResponse> => (shared ?? engine).search({ query, limit });
for (const q of queries.slice(0, 50)) await search(q); // warm caches
const times: number[] = [];
const strategies = new Map<string, number>();
let empty = 0;
let differ = 0;
for (const q of queries) {
  const t0 = performance.now();
  const r = await search(q);
  times.push(performance.now() - t0);
  strategies.set(r.plan.strategy, (strategies.get(r.plan.strategy) ?? 0) + 1);
  if (!r.results.length) empty++;
  if (shared && (await engine.search({ query: q, limit })).results.map((x) => x.docid).join() !== r.results.map((x) => x.docid).join()) differ++;
}
await shared?.close();
await engine.close();
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
const result = {
  backend: shared ? 'postgres' : 'sqlite',
  corpus: path.basename(dir),
  documents: status.totals.documents,
  chunks: status.totals.chunks,
  queries: queries.length,
  limit,
  p50_ms: +pct(0.5).toFixed(2),
  p95_ms: +pct(0.95).toFixed(2),
  p99_ms: +pct(0.99).toFixed(2),
  without_results: empty,
  plans: Object.fromEntries(strategies),
  merge_ms: Math.round(mergeMs),
  ...(shared ? { differ_from_sqlite: differ } : {}),
};
console.error(`p50 ${result.p50_ms} ms  p95 ${result.p95_ms} ms  p99 ${result.p99_ms} ms  (${empty} of ${queries.length} found nothing)`);
console.log(JSON.stringify(result));
