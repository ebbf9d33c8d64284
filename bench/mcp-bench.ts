// bench:mcp [dir] [--queries 300]: warm round-trip latency of MCP tool calls over HTTP on a
// corpus (default ../shared/bench/corpora/cpp-docs), Trove side by side with qmd in one run.
// The same client (fetch with keep-alive, one request at a time, 2026-07-28 requests that need
// no session) calls `trove serve` (its own process, like qmd's server) for `search` and `query`
// (labelled by what it runs: hybrid + rerank with embeddings, the keyword leg alone without) and
// qmd's keyword-only `query` ({searches: [{type: "lex"}], rerank: false}). Every server is measured
// through each protocol generation it answers (Trove: 2026-07-28 stateless and a 2025-11-25
// session; qmd: 2026-07-28 headers and a 2025-06-18 session, its faster path), and the ratio is
// taken against the peer's fastest path.
// qmd runs from ../shared/bench/peers/qmd.sh's install (QMD_PEER_DIR, default /tmp/qmd-peer)
// with its own scratch HOME, so other benchmarks' qmd state is left alone.
// --database postgresql://…: the profile is copied there (`trove migrate`; a finished copy is
// reused) and `trove serve --database` answers from it; the JSON line says "backend": "postgres".
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, migrateProfile, readEnvironment } from '../src-main/engine/index.js';
import { call, legacySession, serveProfile } from './lib/mcp-http.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { queries: { type: 'string', default: '300' }, warmup: { type: 'string', default: '300' }, 'no-qmd': { type: 'boolean', default: false }, database: { type: 'string' } } });
const root = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(positionals[0] ?? path.join(root, '../shared/bench/corpora/cpp-docs'));
const scratch = path.join(os.tmpdir(), `trove-bench-mcp-${path.basename(dir)}`);
const N = Number(values.queries);
// calls before timing starts, for every server alike: V8 needs a few hundred round trips to compile
// the hot paths of the HTTP and MCP layers (p50 kept falling over the first ~600 calls)
const WARMUP = Number(values.warmup);

// natural-language questions from the corpus's own headings (as bench:search builds them)
const headings: string[] = [];
const walk = (d: string) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.md')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/^#{1,3} +(.{12,80})$/gm)) headings.push(m[1]!.replace(/[`*_]/g, ''));
  }
};
walk(dir);
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const templates = [(h: string) => `how do I ${h.toLowerCase()}`, (h: string) => `${h} example`, (h: string) => `what is ${h.toLowerCase()}`];
const queries = Array.from({ length: N + WARMUP }, () => templates[Math.floor(rand() * templates.length)]!(headings[Math.floor(rand() * headings.length)]!));

async function measure(label: string, fn: (q: string, i: number) => Promise<unknown>) {
  for (let i = 0; i < WARMUP; i++) await fn(queries[i]!, i);
  const times: number[] = [];
  for (let i = WARMUP; i < queries.length; i++) {
    const t0 = performance.now();
    await fn(queries[i]!, i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => +times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
  const row = { label, calls: times.length, p50_ms: pct(0.5), p99_ms: pct(0.99) };
  console.error(`${label.padEnd(40)} p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms`);
  return row;
}

const rows: { label: string; calls: number; p50_ms: number; p99_ms: number }[] = [];

// ---- Trove ----------------------------------------------------------------------------
// Indexed in process, then served by the real `trove serve` in its own process, as assistants
// reach it (and as qmd is measured below).
const profile = path.join(scratch, 'trove');
{
  const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: profile });
  if (!(await engine.listCollections()).length) {
    console.error(`trove: indexing ${dir} …`);
    await engine.addCollection({ root: dir, name: 'bench', include: ['**/*.md'] });
    await engine.index();
  }
  await engine.compactIndex(); // a running host merges while idle (store/fts-merge.ts): start from there
  await engine.close();
}
if (values.database) {
  const started = performance.now();
  await migrateProfile({ profileDir: profile, url: values.database });
  console.error(`trove: profile copied to PostgreSQL (or found there) in ${(performance.now() - started).toFixed(0)} ms`);
}
// QMD's keyword tools, as qmd's own search is measured: a keyword-only profile, so the host must not
// spend many minutes embedding it first (on PostgreSQL too, where `serve --database` embeds as it serves)
const served = await serveProfile(root, profile, {}, values.database ? ['--database', values.database, '--no-embed'] : ['--no-embed']);
try {
  const { mcpUrl, auth } = served;
  rows.push(await measure('trove search (2026-07-28, stateless)', (q, i) => call(mcpUrl, auth, 'search', { query: q, limit: 10 }, i)));
  const session = await legacySession(mcpUrl, auth, '2025-11-25');
  rows.push(await measure('trove search (2025-11-25 session)', (q, i) => call(mcpUrl, session, 'search', { query: q, limit: 10 }, i, false)));
  // say what `query` really runs here: without vectors it is the keyword leg alone
  const status = await call(mcpUrl, auth, 'status', {}, 0);
  const vectors = status.structuredContent?.hasVectorIndex === true;
  const queryLabel = vectors ? 'trove query (hybrid + rerank)' : 'trove query (no vectors: keyword leg only)';
  rows.push(await measure(`${queryLabel} (2026-07-28)`, (q, i) => call(mcpUrl, auth, 'query', { query: q, limit: 10 }, i)));
} finally {
  await served.stop();
}

// ---- qmd ------------------------------------------------------------------------------
if (!values['no-qmd']) rows.push(...(await benchQmd()));

async function benchQmd() {
  const peer = process.env.QMD_PEER_DIR ?? '/tmp/qmd-peer';
  const node = path.join(peer, 'n22/node_modules/.bin/node');
  const cli = path.join(peer, 'app/node_modules/@tobilu/qmd/dist/cli/qmd.js');
  if (!fs.existsSync(cli)) {
    console.error(`qmd: not installed (run ../shared/bench/peers/qmd.sh install) — skipped`);
    return [];
  }
  const home = path.join(scratch, 'qmd-home');
  const env = { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}`, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true', HOME: home, XDG_CACHE_HOME: `${home}/.cache`, XDG_CONFIG_HOME: `${home}/.config`, QMD_CONFIG_DIR: `${home}/.config/qmd` };
  fs.mkdirSync(`${home}/.config/qmd`, { recursive: true });
  fs.mkdirSync(`${home}/.cache`, { recursive: true });
  const list = spawnSync(node, [cli, 'collection', 'list'], { env, encoding: 'utf8' });
  if (!list.stdout.includes('bench')) {
    console.error(`qmd: indexing ${dir} …`);
    const add = spawnSync(node, [cli, 'collection', 'add', dir, '--name', 'bench', '--mask', '**/*.md'], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'inherit'] });
    if (add.status !== 0) throw new Error('qmd collection add failed');
  }
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child: ChildProcess = spawn(node, [cli, 'mcp', '--http', '--port', String(port), '--host', '127.0.0.1'], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
      } catch {
        if (i > 300) throw new Error('qmd mcp did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const args = (q: string) => ({ searches: [{ type: 'lex', query: q }], limit: 10, rerank: false });
    const modern = await measure('qmd query lex, rerank:false (2026-07-28)', (q, i) => call(url, {}, 'query', args(q), i));
    const session = await legacySession(url, {}, '2025-06-18');
    const legacy = await measure('qmd query lex, rerank:false (2025-06-18 session)', (q, i) => call(url, session, 'query', args(q), i, false));
    return [modern, legacy];
  } finally {
    child.kill('SIGTERM');
  }
}

const trove = rows.find((r) => r.label.startsWith('trove search (2026'));
// each peer through its fastest path
const qmdRows = rows.filter((r) => r.label.startsWith('qmd'));
const qmd = qmdRows.length ? qmdRows.reduce((a, b) => (b.p50_ms < a.p50_ms ? b : a)) : undefined;
const result = {
  corpus: path.basename(dir),
  backend: values.database ? 'postgres' : 'sqlite',
  queries: N,
  rows,
  qmd_fastest: qmd?.label ?? null,
  trove_vs_qmd_p50: trove && qmd ? +(trove.p50_ms / qmd.p50_ms).toFixed(3) : null,
  trove_vs_qmd_p50_per_path: Object.fromEntries(qmdRows.map((q) => [q.label, trove ? +(trove.p50_ms / q.p50_ms).toFixed(3) : null])),
};
if (result.trove_vs_qmd_p50 !== null) console.error(`trove/qmd p50 ratio (qmd's fastest path: ${result.qmd_fastest}): ${result.trove_vs_qmd_p50}`);
console.log(JSON.stringify(result));
