// bench:embed-priority [--files 300] [--backlog 3000] [--queries 200] [--rate 10] [--policies idle,low,plain]:
// does search stay fast while the background embedding stage runs? An engine as a host opens it
// (background embedding on) searches a small, fully embedded slice of powershell-docs while the
// stage embeds a backlog (a slice of cpp-docs, indexed but without vectors). Queries arrive at
// --rate per second (open loop, like a person or an assistant, not back to back), alternating
// keyword and vector search. Policies:
//   idle   no background work (the baseline)
//   low    Trove's default: background chunks on one of the two workers, its thread niced (Linux),
//          no new chunk within 100 ms of a search
//   quiet0 the same without giving way to searches (searchQuietMs 0)
//   plain  what `auto` did before: every worker, normal priority, no giving way
// Prints keyword and vector p50/p95 per policy and the stage's rate meanwhile, then one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment, type EngineOptions } from '../src-main/engine/index.js';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '300' },
    backlog: { type: 'string', default: '3000' },
    queries: { type: 'string', default: '200' },
    rate: { type: 'string', default: '10' },
    policies: { type: 'string', default: 'idle,low,quiet0,plain' },
    home: { type: 'string' },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const corpora = path.join(root, '../shared/bench/corpora');
const work = path.resolve(values.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-embed-priority-')));
const env = readEnvironment(process.env).engine;
if (!env.embeddings?.modelsDir) throw new Error('set TROVE_MODELS_DIR (e.g. ../shared/models)');

/** The first n Markdown files of a corpus (sorted paths), copied into a folder of their own. */
function slice(corpus: string, n: number, into: string): void {
  if (fs.existsSync(into)) return;
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= n) return;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) files.push(p);
    }
  };
  walk(corpus);
  for (const f of files) {
    const to = path.join(into, path.relative(corpus, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
}
const searchDir = path.join(work, 'powershell');
const backlogDir = path.join(work, 'cpp');
slice(path.join(corpora, 'powershell-docs'), Number(values.files), searchDir);
slice(path.join(corpora, 'cpp-docs'), Number(values.backlog), backlogDir);

// questions from the searched slice's headings, as in bench:search
const headings: string[] = [];
const walk = (d: string) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else for (const m of fs.readFileSync(p, 'utf8').matchAll(/^#{1,3} +(.{12,80})$/gm)) headings.push(m[1]!.replace(/[`*_]/g, ''));
  }
};
walk(searchDir);
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const questions = Array.from({ length: Number(values.queries) }, () => `how do I ${headings[Math.floor(rand() * headings.length)]!.toLowerCase()}`);

const profile = path.join(work, 'profile');
const POLICIES: Record<string, EngineOptions['embeddings'] | null> = {
  idle: null,
  low: {},
  quiet0: { searchQuietMs: 0 },
  plain: { backgroundWorkers: 2, backgroundNice: 0, searchQuietMs: 0 },
};

// the searched collection, indexed and embedded once
{
  const e = await Engine.open({ ...env, profileDir: profile });
  if (!(await e.listCollections()).some((c) => c.name === 'search')) {
    await e.addCollection({ root: searchDir, name: 'search' });
    await e.index({ collection: 'search' });
  }
  console.error('embedding the searched slice …');
  await e.embed({ collection: 'search' });
  await e.compactIndex();
  const c = (await e.status()).collections.find((x) => x.name === 'search')!;
  console.error(`searched: ${c.documents} documents, ${c.chunks} chunks`);
  await e.close();
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2);
};

interface Row {
  policy: string;
  keyword_p50_ms: number;
  keyword_p95_ms: number;
  vector_p50_ms: number;
  vector_p95_ms: number;
  embedded_chunks: number;
  chunks_per_second: number;
  stage_ran_throughout: boolean;
}

async function measure(policy: string): Promise<Row> {
  const extra = POLICIES[policy];
  if (extra === undefined) throw new Error(`unknown policy ${policy} (${Object.keys(POLICIES).join(', ')})`);
  const e = await Engine.open({ ...env, profileDir: profile, embeddings: { ...env.embeddings, auto: extra !== null, ...extra } });
  // a fresh backlog: the collection's vectors go with it
  if ((await e.listCollections()).some((c) => c.name === 'backlog')) await e.removeCollection('backlog');
  const started = new Promise<void>((resolve) => {
    const off = e.onEmbeddingProgress((p) => p.collection === 'backlog' && p.phase === 'filling' && (off(), resolve()));
    if (extra === null) resolve();
  });
  await e.addCollection({ root: backlogDir, name: 'backlog' });
  await e.index({ collection: 'backlog' });
  for (const q of questions.slice(0, 20)) {
    await e.search({ query: q, collections: ['search'] });
    await e.search({ query: q, mode: 'vector', collections: ['search'] }); // warm: model loaded, caches
  }
  await started;
  const before = (await e.status()).embeddings.collections.find((c) => c.collection === 'backlog')!.vectors;
  const t0 = performance.now();
  const keyword: number[] = [];
  const vector: number[] = [];
  const gap = 1000 / Number(values.rate);
  for (const [i, q] of questions.entries()) {
    const due = t0 + i * gap;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const s = performance.now();
    if (i % 2) {
      await e.search({ query: q, mode: 'vector', collections: ['search'] });
      vector.push(performance.now() - s);
    } else {
      await e.search({ query: q, collections: ['search'] });
      keyword.push(performance.now() - s);
    }
  }
  const secs = (performance.now() - t0) / 1000;
  const st = (await e.status()).embeddings.collections.find((c) => c.collection === 'backlog')!;
  const row: Row = {
    policy,
    keyword_p50_ms: pct(keyword, 0.5),
    keyword_p95_ms: pct(keyword, 0.95),
    vector_p50_ms: pct(vector, 0.5),
    vector_p95_ms: pct(vector, 0.95),
    embedded_chunks: st.vectors - before,
    chunks_per_second: +((st.vectors - before) / secs).toFixed(1),
    stage_ran_throughout: extra !== null && st.needsEmbedding > 0,
  };
  await e.close();
  return row;
}

const rows: Row[] = [];
for (const policy of values.policies.split(',')) {
  const row = await measure(policy.trim());
  rows.push(row);
  console.error(
    `${row.policy.padEnd(7)} keyword p50 ${row.keyword_p50_ms} ms p95 ${row.keyword_p95_ms} ms | vector p50 ${row.vector_p50_ms} ms p95 ${row.vector_p95_ms} ms | ` +
      `stage ${row.chunks_per_second} chunks/s${row.policy !== 'idle' && !row.stage_ran_throughout ? ' (backlog ran out: raise --backlog)' : ''}`,
  );
}
console.log(JSON.stringify({ bench: 'embed-priority', files: Number(values.files), backlog: Number(values.backlog), queries: questions.length, rate: Number(values.rate), cores: os.availableParallelism(), load1: +os.loadavg()[0]!.toFixed(2), rows }));
