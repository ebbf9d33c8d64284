// bench:freshness [--edits N] [--corpus dir] [--files N] [--vector]: how long after a save an edit is visible in search,
// with the engine watching an indexed copy of the cpp-docs collection. Each edit appends a unique
// word to a random document; the clock runs from the end of the write until keyword search finds
// that document by the word (and, when the engine has embeddings, until the document's
// pendingEmbedding flag clears, i.e. its new chunks are in vector search). Prints p50/p95/max.
// --vector turns on background embedding (models from TROVE_MODELS_DIR) and embeds the copy
// first; --files N copies only the first N files (the initial embedding of all of cpp-docs takes long).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { isTroveError } from '../src-main/engine/errors.js';

const { values } = parseArgs({
  options: {
    edits: { type: 'string', default: '200' },
    corpus: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/bench/corpora/cpp-docs/docs') },
    timeout: { type: 'string', default: '15000' },
    files: { type: 'string' },
    vector: { type: 'boolean', default: false },
  },
});
const EDITS = Number(values.edits);
const TIMEOUT_MS = Number(values.timeout);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-fresh-'));
const root = path.join(work, 'docs');
try {
  console.error(`copying ${values.corpus} → ${root}`);
  copyCorpus(values.corpus!, root, values.files ? Number(values.files) : Infinity);
  const env = readEnvironment(process.env).engine; // models from TROVE_MODELS_DIR
  const engine = await Engine.open({ ...env, profileDir: path.join(work, 'profile'), ...(values.vector ? { embeddings: { ...env.embeddings, auto: true } } : {}) });
  await engine.addCollection({ root, name: 'cpp-docs' });
  const t0 = performance.now();
  const [report] = await engine.index();
  console.error(`indexed ${report!.scanned} files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (values.vector) {
    const t1 = performance.now();
    await engine.embed();
    console.error(`embedded in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  }
  await engine.startWatching();
  await settle(engine);

  const files = (await engine.documentPaths('cpp-docs')).filter((p) => p.endsWith('.md'));
  const vectorCapable = await hasVectors(engine);
  const keyword: number[] = [];
  const vector: number[] = [];
  let misses = 0;
  for (let i = 0; i < EDITS; i++) {
    const rel = files[Math.floor(Math.random() * files.length)]!;
    const word = `zqfresh${i}x${Math.random().toString(36).slice(2, 8)}`;
    fs.appendFileSync(path.join(root, rel), `\n\nFreshness probe ${word}.\n`);
    const saved = performance.now();
    const seen = await until(async () => (await engine.search({ query: word, limit: 5 })).results.find((r) => r.path === rel), TIMEOUT_MS);
    if (!seen) {
      misses++;
      continue;
    }
    keyword.push(performance.now() - saved);
    if (vectorCapable) {
      const embedded = await until(async () => (await engine.search({ query: word, limit: 5 })).results.find((r) => r.path === rel && !r.pendingEmbedding), TIMEOUT_MS);
      if (embedded) vector.push(performance.now() - saved);
    }
    await sleep(20 + Math.random() * 80); // a person does not save 10 times a second
  }
  await engine.stopWatching();
  await engine.close();

  const line = (label: string, xs: number[]) =>
    xs.length
      ? `${label}: n=${xs.length} p50=${pct(xs, 50).toFixed(0)} ms p95=${pct(xs, 95).toFixed(0)} ms max=${Math.max(...xs).toFixed(0)} ms`
      : `${label}: n/a`;
  console.log(`freshness over ${EDITS} edits on ${files.length} cpp-docs files${values.vector ? ' (background embedding on)' : ''} (${misses} not visible within ${TIMEOUT_MS} ms)`);
  console.log(line('save → keyword search', keyword));
  console.log(vectorCapable ? line('save → vector search (pendingEmbedding cleared)', vector) : 'save → vector search: n/a (this engine has no embeddings configured)');
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

function copyCorpus(from: string, to: string, limit: number): void {
  if (!Number.isFinite(limit)) return fs.cpSync(from, to, { recursive: true });
  const files = (fs.readdirSync(from, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort()
    .slice(0, limit);
  for (const f of files) {
    const dest = path.join(to, path.relative(from, f));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(f, dest);
  }
}

async function hasVectors(engine: Engine): Promise<boolean> {
  try {
    await engine.search({ query: 'class template', mode: 'vector', limit: 1 });
    return true;
  } catch (err) {
    if (isTroveError(err) && err.code === 'UNAVAILABLE') return false;
    throw err;
  }
}

async function settle(engine: Engine): Promise<void> {
  await until(async () => (await engine.status()).indexing.collections.every((c) => c.queued === c.gaveUp + c.retrying), 600_000);
}

async function until<T>(probe: () => T | undefined | false, timeoutMs: number): Promise<T | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (performance.now() > deadline) return undefined;
    await sleep(5);
  }
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
