// bench:search-ab label=<tree>:<profile> … [--queries 1500] [--limit 10] [dir]: bench:search's
// questions asked of several builds in one process, each question of every build in turn (the
// order rotated), so the machine's load, which moves the p50 of one build ±20% between runs on
// this shared 2-core box, falls on all of them alike. Each build is a checkout (its
// src-main/engine, native extension built) opening its own indexed profile of the corpus (a copy:
// an older build must not meet a newer schema). Prints each build's p50 and its median
// per-question ratio to the first build, and how many questions got other result paths than the
// first build's (the answers should not change).
//   npx tsx bench/search-ab.ts base=/tmp/base:/tmp/home-base head=.:/tmp/home-head
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headingQuestions } from './lib/heading-questions.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { queries: { type: 'string', default: '1500' }, limit: { type: 'string', default: '10' } },
});
const root = path.resolve(import.meta.dirname, '..');
const builds = positionals.filter((p) => p.includes('='));
const dir = path.resolve(positionals.find((p) => !p.includes('=')) ?? path.join(root, '../shared/bench/corpora/cpp-docs'));
if (builds.length < 2) throw new Error('name two builds or more: label=<tree>:<profile>');

interface SearchingEngine {
  search(r: { query: string; limit: number }): Promise<{ results: { path: string }[] }>;
  compactIndex(): Promise<unknown>;
  close(): Promise<void>;
}
const engines: { label: string; engine: SearchingEngine }[] = [];
for (const b of builds) {
  const [label, spec] = b.split('=') as [string, string];
  const [tree, home] = spec.split(':') as [string, string];
  const m = (await import(path.join(path.resolve(tree), 'src-main/engine/index.js'))) as {
    Engine: { open(o: object): Promise<SearchingEngine> };
    readEnvironment(env: NodeJS.ProcessEnv): { engine: object };
  };
  const engine = await m.Engine.open({ ...m.readEnvironment(process.env).engine, profileDir: path.resolve(home) });
  await engine.compactIndex(); // as bench:search: the index as a running host keeps it
  engines.push({ label, engine });
}

const limit = Number(values.limit);
const queries = headingQuestions(dir, Number(values.queries));
for (const e of engines) for (const q of queries.slice(0, 50)) await e.engine.search({ query: q, limit }); // warm caches
const times = engines.map(() => [] as number[]);
let differ = 0;
for (const [i, query] of queries.entries()) {
  const paths: string[] = [];
  for (let k = 0; k < engines.length; k++) {
    const j = (i + k) % engines.length;
    const t0 = performance.now();
    const r = await engines[j]!.engine.search({ query, limit });
    times[j]!.push(performance.now() - t0);
    paths[j] = r.results.map((x) => x.path).join('\n');
  }
  if (paths.some((p) => p !== paths[0])) differ++;
}
for (const e of engines) await e.engine.close();

const median = (a: readonly number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const result = {
  corpus: path.basename(dir),
  queries: queries.length,
  load: Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
  builds: engines.map((e, j) => ({
    label: e.label,
    p50_ms: +median(times[j]!).toFixed(3),
    median_ratio_to_first: +median(times[j]!.map((t, i) => t / times[0]![i]!)).toFixed(3),
  })),
  differ_from_first: differ,
};
for (const b of result.builds) console.error(`${b.label}: p50 ${b.p50_ms} ms, median ratio to ${result.builds[0]!.label} ${b.median_ratio_to_first}`);
console.log(JSON.stringify(result));
