// bench:seed-clients [<beir-dir>] [--queries N] [--rounds N]: what serving the seed systems'
// clients unchanged costs.
//   1. A FAISS dataset whose manifest names no model (the dataset-registry spec's form) against
//      the same files with the model named: the load until Ready in a fresh profile (the inferred
//      one checks every installed model of the index's dimension), and again with the checks
//      remembered (dataset_checks), as every later load is. The committed fixture `ip` (24 MiniLM
//      vectors) is the index.
//   2. knowledge.search (in process) over a BEIR corpus indexed for keyword search, asked with
//      Trove's `sources: ["documents"]` and with the knowledge spec's `["notes", "media"]` (two runs
//      of the documents source, by kind, merged) and `["notes"]`: p50 / p95 per query.
// Prints figures, asserts nothing (test/ asserts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { readBeir } from './lib/beir.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { queries: { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' } } });
const env = readEnvironment(process.env).engine;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-seed-bench-'));
const FIXTURE = path.resolve(import.meta.dirname, '..', 'test', 'fixtures', 'datasets', 'datasets', 'ip');
const log = (s: string) => process.stderr.write(`${s}\n`);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** Ready in a fresh profile, then again in the same profile (checks remembered). */
async function loadTimes(named: boolean): Promise<{ fresh: number; remembered: number }> {
  const project = fs.mkdtempSync(path.join(work, 'project-'));
  const dir = path.join(project, 'datasets', 'ip');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const manifest = { id: 'ip', name: 'ip', description: 'ip', index: './datasets/ip/docs.index', metadata: './datasets/ip/metadata.json', ...(named ? { model: 'all-MiniLM-L6-v2' } : {}) };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  const profileDir = fs.mkdtempSync(path.join(work, 'profile-'));
  const times: number[] = [];
  for (let i = 0; i < 2; i++) {
    const engine = await Engine.open({ ...env, profileDir, embeddings: { ...env.embeddings, workers: 1 }, datasets: { projectRoot: project } });
    const t = performance.now();
    const [d] = await engine.datasets.settled();
    times.push(performance.now() - t);
    if (d?.state !== 'ready') throw new Error(`ip is ${d?.state}: ${d?.reason}`);
    await engine.close();
  }
  return { fresh: times[0]!, remembered: times[1]! };
}

const rounds = Number(values.rounds);
for (const named of [true, false]) {
  const runs: { fresh: number; remembered: number }[] = [];
  for (let r = 0; r < rounds; r++) runs.push(await loadTimes(named));
  const fresh = runs.map((x) => x.fresh).sort((a, b) => a - b);
  const remembered = runs.map((x) => x.remembered).sort((a, b) => a - b);
  console.log(`dataset load, model ${named ? 'named   ' : 'inferred'}: fresh ${fresh.map((x) => x.toFixed(0)).join(' / ')} ms, checks remembered ${remembered.map((x) => x.toFixed(0)).join(' / ')} ms (${rounds} rounds, sorted)`);
}

const beir = positionals[0];
if (beir) {
  const data = await readBeir(beir);
  const corpus = path.join(work, 'corpus');
  fs.mkdirSync(corpus);
  data.corpus.forEach((d, i) => fs.writeFileSync(path.join(corpus, `${String(i).padStart(7, '0')}.md`), d.title ? `# ${d.title}\n\n${d.text}\n` : `${d.text}\n`));
  const engine = await Engine.open({ ...env, profileDir: path.join(work, 'beir-home') });
  await engine.addCollection({ root: corpus, name: 'beir' });
  let t = performance.now();
  await engine.index();
  log(`indexed ${data.corpus.length} documents in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const questions = [...data.queries.values()].slice(0, Number(values.queries));
  for (const sources of [['documents'], ['notes', 'media'], ['notes'], ['documents'], ['notes', 'media'], ['notes']]) {
    const took: number[] = [];
    for (const query of questions) {
      t = performance.now();
      await engine.knowledge.search({ query, sources, mode: 'keyword', limit: 10 });
      took.push(performance.now() - t);
    }
    console.log(`knowledge.search keyword, sources ${JSON.stringify(sources).padEnd(19)}: p50 ${pct(took, 50).toFixed(2)} ms, p95 ${pct(took, 95).toFixed(2)} ms (${questions.length} queries)`);
  }
  await engine.close();
}
fs.rmSync(work, { recursive: true, force: true });
