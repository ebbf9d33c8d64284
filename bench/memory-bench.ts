// bench:memory [--entries 5000] [--scale 100000] [--embed] [--queries 200] [--no-peer] [--no-stdio] [--no-scale] [--no-quality]
//   [--database <url>]: Trove's hosts serve memory from that PostgreSQL (`trove serve --database`; memory emptied before
//   each server run) and the JSON line says "backend": "postgres" (else "sqlite"); --embed and the quality run are SQLite only yet
//   [--quality-docs N] [--quality-queries N] [--server-cpu-prof DIR] [--clients N] [--fast-calls on|off]: Trove's memory tools side by side with the peer
// (mcp-context-server 2.2.2, installed from PyPI by ../shared/bench/peers/context-server.sh) on
// the same workload, in one run:
// 1. the peer's own run (`context-server.sh run N`: stdio, its official client) — one JSON line;
// 2. the same workload against `trove serve` over HTTP and over stdio (`trove mcp`, the SDK
//    client): 500 single store_context, N entries by store_context_batch (100 a call), the FTS
//    index checked in sync, 100 search_context (thread + tag), 5 get_statistics, and 200
//    natural-language fts_search_context queries (plus their keyword-only variant); then 500
//    single store_context again on the now warm host (store_context_warm);
// 3. latency at scale: `--scale` entries (default 100,000) in 50 threads stored, then fts_search_context (also within one thread) and —
//    with --embed, once every entry has its vector — hybrid_search_context, p50/p95;
// 2b. with --clients N: store_context and fts_search_context calls/s from 1 and from N clients at
//    once (each one call at a time), Trove over HTTP and the peer both over HTTP (one server) and
//    over stdio (a server per client, one database): bench/lib/concurrent-clients.ts;
// 4. quality: SciFact's corpus stored as entries (one thread, titles in metadata), its 300 test
//    queries through hybrid_search_context (and fts_search_context): nDCG@10.
// Trove over HTTP is called with a lean client (fetch, keep-alive, stateless 2026-07-28 JSON-RPC:
// bench/lib/mcp-callers.ts), as the peer is with its own; over stdio with the MCP SDK's client.
// --fast-calls off: Trove's servers answer tool calls through the SDK's per-request server
// (TROVE_MCP_FAST_CALLS=0) instead of the fast tools/call path, for an A/B run back to back.
// Prints a summary and ends with one JSON line. Embedding runs in process between server runs
// (the host does not embed in the background unless told to); TROVE_MODELS_DIR must hold the model.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { readBeir, scoreRun } from './lib/beir.js';
import { concurrently, peerInstalled, peerOverHttp, peerOverStdio, PEER_DIR } from './lib/concurrent-clients.js';
import { httpCaller, stdioCaller, type Caller } from './lib/mcp-callers.js';
import { entry, Errs, lat, pct, readSciFact, rng, TAGS, workloadQueries, workloadTexts } from './lib/memory-workload.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '5000' },
    scale: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    embed: { type: 'boolean', default: false },
    'no-peer': { type: 'boolean', default: false },
    'no-stdio': { type: 'boolean', default: false },
    'no-scale': { type: 'boolean', default: false },
    'no-quality': { type: 'boolean', default: false },
    'quality-docs': { type: 'string' },
    'quality-queries': { type: 'string' },
    'server-cpu-prof': { type: 'string' },
    clients: { type: 'string' },
    database: { type: 'string' },
    'fast-calls': { type: 'string', default: 'on' },
  },
});
if (!['on', 'off'].includes(values['fast-calls'])) throw new Error('--fast-calls is on or off');
const FAST_CALLS = values['fast-calls'] === 'on';
const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/trove.js');
const SHARED = path.resolve(ROOT, '../shared/bench');
const SCIFACT = path.join(SHARED, 'beir/scifact');
const SCRATCH = path.join(os.tmpdir(), 'trove-bench-memory');
const N = Number(values.entries);
const SCALE = Number(values.scale);
const NQ = Number(values.queries);
const SINGLE = 500;
const BATCH = 100;
const log = (s: string) => process.stderr.write(`${s}\n`);

fs.rmSync(SCRATCH, { recursive: true, force: true });
fs.mkdirSync(SCRATCH, { recursive: true });
spawnSync('npx', ['tsc', '-p', 'tsconfig.node.json'], { cwd: ROOT, stdio: 'inherit' });
const docs = readSciFact(SCIFACT);
const DATABASE = values.database;
const result: Record<string, unknown> = { backend: DATABASE ? 'postgres' : 'sqlite', fast_calls: FAST_CALLS, entries: N, cpus: os.cpus().length, load_before: os.loadavg().map((x) => +x.toFixed(2)) };

// ---- 1. the peer ----------------------------------------------------------------------------
if (!values['no-peer']) {
  log(`peer: mcp-context-server 2.2.2, ${N} batch entries (context-server.sh run ${N}) …`);
  const r = spawnSync('bash', [path.join(SHARED, 'peers/context-server.sh'), 'run', String(N)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  result.peer = line ? (JSON.parse(line) as Record<string, unknown>) : { fatal: `no JSON line from the peer (exit ${r.status})` };
}

// ---- 2. the same workload against Trove ---------------------------------------------------------
async function workload(caller: Caller): Promise<Record<string, unknown>> {
  const random = rng(42);
  const texts = workloadTexts(docs, SINGLE + N, random);
  const idOf = new Map<string, number>();
  const R: Record<string, unknown> = { client: caller.label };

  R.store_context = await storeOneByOne(caller, texts.slice(0, SINGLE), 't1', random, idOf);

  const e2 = new Errs();
  const lb: number[] = [];
  let stored = 0;
  let t = performance.now();
  for (let b = 0; b < N; b += BATCH) {
    const chunk = texts.slice(SINGLE + b, SINGLE + Math.min(b + BATCH, N));
    const o = await caller.call('store_context_batch', { entries: chunk.map((x) => entry(x, (b / BATCH) % 2 === 0 ? 't1' : 't2', random)), atomic: true });
    lb.push(o.ms);
    if (o.error) e2.add(o.error);
    else {
      stored += o.data!.succeeded as number;
      (o.data!.results as { context_id: number }[]).forEach((r, i) => idOf.set(chunk[i]!, r.context_id));
    }
  }
  const el = (performance.now() - t) / 1000;
  R.store_context_batch = { entries: N, batch: BATCH, entries_stored: stored, entries_per_s: round1(N / el), batch_p50_ms: pct(lb, 50), batch_p95_ms: pct(lb, 95), ...e2.out() };

  const e3 = new Errs();
  const lq: number[] = [];
  const hits: number[] = [];
  for (let i = 0; i < 100; i++) {
    const o = await caller.call('search_context', { thread_id: i % 2 === 0 ? 't1' : 't2', tags: [TAGS[i % TAGS.length]], limit: 30 });
    lq.push(o.ms);
    if (o.error) e3.add(o.error);
    else hits.push((o.data!.results as unknown[]).length);
  }
  R.search_context_filters = { calls: 100, ...lat(lq), mean_hits: mean(hits), ...e3.out() };

  const e4 = new Errs();
  const lg: number[] = [];
  let st: Record<string, unknown> | null = null;
  for (let i = 0; i < 5; i++) {
    const o = await caller.call('get_statistics', {});
    lg.push(o.ms);
    if (o.error) e4.add(o.error);
    else st = o.data;
  }
  const fts = (st?.fts ?? {}) as { indexed_entries?: number };
  R.get_statistics = { calls: 5, first_ms: round3(lg[0]!), ...lat(lg), ...e4.out(), total_entries: st?.total_entries, database_size_mb: st?.database_size_mb, fts_indexed_entries: fts.indexed_entries };
  R.fts_in_sync = st !== null && st.total_entries === SINGLE + N && fts.indexed_entries === st.total_entries;

  const stored_texts = texts.filter((x) => idOf.has(x));
  const q = workloadQueries(stored_texts, NQ, rng(7));
  const ftsRun = async (queries: string[], wantSource: boolean) => {
    const e = new Errs();
    const l: number[] = [];
    const h: number[] = [];
    let found = 0;
    for (const [i, query] of queries.entries()) {
      const o = await caller.call('fts_search_context', { query, mode: 'match', limit: 5 });
      l.push(o.ms);
      if (o.error) e.add(o.error);
      else {
        const res = o.data!.results as { id: number }[];
        h.push(res.length);
        if (wantSource && res.some((r) => r.id === idOf.get(stored_texts[q.source[i]!]!))) found++;
      }
    }
    return { queries: queries.length, ...lat(l), zero_hit: h.filter((x) => x === 0).length, mean_hits: mean(h), ...e.out(), ...(wantSource ? { source_entry_in_top5: found } : {}) };
  };
  R.fts_search_context_keywords = await ftsRun(q.clean, true);
  R.fts_search_context = { ...(await ftsRun(q.raw, false)), queries_with_punctuation: q.raw.filter((x) => /[^A-Za-z0-9 -]/.test(x)).length, example_queries: q.raw.slice(0, 3) };

  // The same 500 single writes once more, now that the host (and this client) have served the
  // workload: a host that has been running a while. The rows above are a fresh process's first
  // calls, which V8 runs before it has compiled the hot paths (the peer's CPython has no such phase).
  R.store_context_warm = await storeOneByOne(caller, workloadTexts(docs, SINGLE, rng(99)), 'warm', random, new Map());
  return R;
}

for (const via of values['no-stdio'] ? ['http'] : ['http', 'stdio']) {
  const profile = path.join(SCRATCH, `workload-${via}`);
  const server = await startServer(profile);
  try {
    log(`trove (${via}): the peer's workload …`);
    const caller = via === 'http' ? httpCaller(server.url, server.token) : await stdioCaller(BIN, profile);
    try {
      result[`trove_${via}`] = await workload(caller);
    } finally {
      await caller.close();
    }
  } finally {
    await server.stop();
  }
}

// ---- 2b. concurrent clients ---------------------------------------------------------------------
if (values.clients) {
  const n = Number(values.clients);
  const STORES = 1000;
  const SEARCHES = 100; // the peer's failing queries cost ~200 ms each
  const random = rng(21);
  const texts = workloadTexts(docs, 2 * STORES, random);
  const queries = workloadQueries(texts.slice(0, STORES), SEARCHES, rng(23)).raw;
  const run = async (callers: Caller[]) => ({
    store_context_1: await concurrently(callers.slice(0, 1), STORES / 2, (i) => ['store_context', entry(texts[i]!, 'c0', random)]),
    store_context_n: await concurrently(callers, STORES, (i, k) => ['store_context', entry(texts[STORES / 2 + i]!, `c${k}`, random)]),
    fts_search_context_n: await concurrently(callers, SEARCHES, (i) => ['fts_search_context', { query: queries[i]!, mode: 'match', limit: 5 }]),
  });
  const conc: Record<string, unknown> = { clients: n };
  log(`clients: ${n} at once, trove (http) …`);
  const server = await startServer(path.join(SCRATCH, 'clients'));
  try {
    conc.trove_http = await run(Array.from({ length: n }, () => httpCaller(server.url, server.token)));
  } finally {
    await server.stop();
  }
  if (!values['no-peer'] && peerInstalled()) {
    for (const [name, open] of [['peer_http', peerOverHttp], ['peer_stdio', peerOverStdio]] as const) {
      log(`clients: ${n} at once, ${name} …`);
      const dir = path.join(SCRATCH, name);
      fs.mkdirSync(dir, { recursive: true });
      const peer = await open(dir, n);
      try {
        conc[name] = await run(peer.callers);
      } finally {
        await peer.close();
      }
    }
  } else if (!values['no-peer']) conc.peer = `not measured: no peer in ${PEER_DIR} (../shared/bench/peers/context-server.sh install)`;
  const perS = (k: string, m: string) => ((conc[k] as Record<string, { per_s: number }> | undefined)?.[m]?.per_s ?? 0);
  const bestPeer = (m: string) => Math.max(perS('peer_http', m), perS('peer_stdio', m));
  conc.ratios = { store_context_1: ratio(perS('trove_http', 'store_context_1'), bestPeer('store_context_1')), store_context_n: ratio(perS('trove_http', 'store_context_n'), bestPeer('store_context_n')) };
  result.clients = conc;
}

// ---- 3. latency at scale ----------------------------------------------------------------------
if (!values['no-scale']) {
  const profile = path.join(SCRATCH, 'scale');
  const random = rng(11);
  const texts = workloadTexts(docs, SCALE, random);
  const queries = workloadQueries(texts, NQ, rng(13)).raw;
  let server = await startServer(profile);
  const scale: Record<string, unknown> = { entries: SCALE };
  try {
    const caller = httpCaller(server.url, server.token);
    const errs = new Errs();
    const t = performance.now();
    for (let b = 0; b < SCALE; b += BATCH) {
      const o = await caller.call('store_context_batch', { entries: texts.slice(b, b + BATCH).map((x, i) => entry(x, `s${(b + i) % 50}`, random)) });
      if (o.error) errs.add(o.error);
    }
    scale.store_entries_per_s = round1(SCALE / ((performance.now() - t) / 1000));
    log(`scale: ${SCALE} entries stored (${scale.store_entries_per_s}/s); waiting for the host to go idle (index merge) …`);
    await waitQuiet(server.child.pid!);
    scale.fts_search_context = await timed(caller, 'fts_search_context', queries.map((query) => ({ query, limit: 5 })));
    // one thread of the 50 (2% of the entries): the filter is applied inside each plan step
    scale.fts_search_context_thread = await timed(caller, 'fts_search_context', queries.map((query) => ({ query, limit: 5, thread_id: 's7' })));
    if (values.embed && DATABASE) scale.hybrid_search_context = 'not measured: --embed embeds in process on SQLite; not with --database yet';
    else if (values.embed) {
      await server.stop();
      const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: profile });
      const t1 = performance.now();
      log(`scale: embedding ${SCALE} entries …`);
      await engine.embed({ onProgress: (p) => p.done % 5000 < 32 && log(`  ${p.done}/${p.total} (${p.chunksPerSecond}/s)`), waitForAnnIndex: true }); // as `trove embed` does
      scale.embed_seconds = round1((performance.now() - t1) / 1000);
      await engine.close();
      server = await startServer(profile);
      const again = httpCaller(server.url, server.token);
      await timed(again, 'hybrid_search_context', queries.slice(0, 20).map((query) => ({ query, limit: 5 }))); // query-embedding workers start
      scale.hybrid_search_context = await timed(again, 'hybrid_search_context', queries.map((query) => ({ query, limit: 5 })));
    } else scale.hybrid_search_context = 'not measured: run with --embed (embeds every entry first)';
    scale.store_errors = errs.out();
  } finally {
    await server.stop();
  }
  result.scale = scale;
}

// ---- 4. quality: SciFact as entries ---------------------------------------------------------------
if (!values['no-quality'] && DATABASE) result.quality = 'not measured: the quality run embeds in process on SQLite; not with --database yet';
else if (!values['no-quality']) {
  const profile = path.join(SCRATCH, 'scifact');
  const beir = await readBeir(SCIFACT);
  const corpus = beir.corpus.slice(0, values['quality-docs'] ? Number(values['quality-docs']) : undefined);
  let server = await startServer(profile);
  try {
    const caller = httpCaller(server.url, server.token);
    for (let b = 0; b < corpus.length; b += BATCH) {
      const o = await caller.call('store_context_batch', { entries: corpus.slice(b, b + BATCH).map((d) => ({ thread_id: 'scifact', source: 'user', text: d.text, metadata: { title: d.title, doc_id: d.id } })) });
      if (o.error) throw new Error(`storing SciFact failed: ${o.error}`);
    }
  } finally {
    await server.stop();
  }
  const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: profile });
  log(`quality: embedding ${corpus.length} SciFact entries …`);
  const t1 = performance.now();
  await engine.embed({ onProgress: (p) => p.done % 2000 < 32 && log(`  ${p.done}/${p.total} (${p.chunksPerSecond}/s)`) });
  const embedSeconds = round1((performance.now() - t1) / 1000);
  const model = (await engine.memory.statistics()).semantic.model;
  await engine.close();
  server = await startServer(profile);
  try {
    const caller = httpCaller(server.url, server.token);
    const qids = [...beir.qrels.keys()].filter((q) => beir.queries.has(q)).slice(0, values['quality-queries'] ? Number(values['quality-queries']) : undefined);
    const quality: Record<string, unknown> = { dataset: 'scifact', documents: corpus.length, queries: qids.length, model, embed_seconds: embedSeconds };
    for (const tool of ['hybrid_search_context', 'fts_search_context']) {
      const run = new Map<string, string[]>();
      const times: number[] = [];
      for (const q of qids) {
        const o = await caller.call(tool, { query: beir.queries.get(q)!, limit: 10, thread_id: 'scifact' });
        times.push(o.ms);
        run.set(q, o.error ? [] : (o.data!.results as { metadata: { doc_id: string } }[]).map((r) => r.metadata.doc_id));
      }
      const m = scoreRun(run, new Map([...beir.qrels].filter(([q]) => run.has(q))));
      quality[tool] = { ndcg_at_10: round4(m.ndcg10), mrr_at_10: round4(m.mrr10), ...lat(times) };
    }
    result.quality = quality;
  } finally {
    await server.stop();
  }
}

// ---- summary ------------------------------------------------------------------------------------
const peer = result.peer as Record<string, Record<string, number> | undefined> | undefined;
const http = result.trove_http as Record<string, Record<string, number>> | undefined;
if (peer?.store_context_batch && http) {
  result.ratios = {
    batch_entries_per_s: ratio(http.store_context_batch!.entries_per_s, peer.store_context_batch.entries_per_s),
    store_context_per_s: ratio(http.store_context!.per_s, peer.store_context?.per_s),
    store_context_warm_per_s: ratio(http.store_context_warm!.per_s, peer.store_context?.per_s),
    store_context_p50: ratio(peer.store_context?.p50_ms, http.store_context!.p50_ms),
    fts_p50: ratio(peer.fts_search_context?.p50_ms, http.fts_search_context!.p50_ms),
  };
}
result.load_after = os.loadavg().map((x) => +x.toFixed(2));
for (const [k, v] of Object.entries(result)) log(`${k}: ${JSON.stringify(v)}`);
console.log(JSON.stringify(result));

// ---- helpers ------------------------------------------------------------------------------------
/** One store_context per text, one call at a time, as the peer's benchmark stores them; each stored text's id goes into `idOf`. */
async function storeOneByOne(caller: Caller, texts: readonly string[], thread: string, random: () => number, idOf: Map<string, number>) {
  const errs = new Errs();
  const times: number[] = [];
  const t = performance.now();
  for (const text of texts) {
    const o = await caller.call('store_context', entry(text, thread, random));
    times.push(o.ms);
    if (o.error) errs.add(o.error);
    else idOf.set(text, o.data!.context_id as number);
  }
  return { calls: texts.length, per_s: round1(texts.length / ((performance.now() - t) / 1000)), ...lat(times), ...errs.out() };
}

async function timed(caller: Caller, tool: string, calls: Record<string, unknown>[]) {
  const errs = new Errs();
  const times: number[] = [];
  const hits: number[] = [];
  for (const args of calls) {
    const o = await caller.call(tool, args);
    times.push(o.ms);
    if (o.error) errs.add(o.error);
    else hits.push((o.data!.results as unknown[]).length);
  }
  return { calls: calls.length, ...lat(times), zero_hit: hits.filter((h) => h === 0).length, ...errs.out() };
}

interface Server {
  url: string;
  token: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `trove serve` on its own profile (a random port, no background embedding), once it answers and has gone quiet. */
async function startServer(profile: string): Promise<Server> {
  fs.mkdirSync(profile, { recursive: true });
  const runtime = path.join(profile, 'runtime.json');
  fs.rmSync(runtime, { force: true });
  // --no-embed: the peer runs with embedding off; here the model runs in process between server runs
  // --server-cpu-prof DIR: each `trove serve` writes a V8 CPU profile there when it stops
  const prof = values['server-cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['server-cpu-prof'])}`] : [];
  const db: string[] = [];
  if (DATABASE) {
    // each server run starts from an empty memory, as a fresh profile does on SQLite
    const shared = await Engine.open({ profileDir: profile, database: DATABASE });
    try {
      await shared.memory.delete({ olderThanDays: 0 });
    } finally {
      await shared.close();
    }
    db.push('--database', DATABASE);
  }
  const child = spawn(process.execPath, [...prof, BIN, 'serve', ...db, '--no-embed', '--port', String(20000 + Math.floor(Math.random() * 20000))], {
    env: { ...process.env, TROVE_HOME: profile, TROVE_MCP_FAST_CALLS: FAST_CALLS ? '1' : '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const info = await waitFor(() => (fs.existsSync(runtime) ? (JSON.parse(fs.readFileSync(runtime, 'utf8')) as { mcpUrl: string; token: string }) : null));
  await waitQuiet(child.pid!);
  return {
    url: info.mcpUrl,
    token: info.token,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Until the process uses under 5% of a core for a second (Linux /proc), as a host that has settled. */
async function waitQuiet(pid: number): Promise<void> {
  const ticks = () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0);
  await waitFor(async () => {
    const before = ticks();
    await new Promise((r) => setTimeout(r, 1000));
    return (ticks() - before) * 10 < 50 ? true : null; // USER_HZ = 100: a tick is 10 ms
  }, 600_000);
}

async function waitFor<T>(probe: () => T | null | Promise<T | null>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await probe();
      if (v !== null) return v;
    } catch {
      /* not there yet */
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for trove serve');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function mean(xs: number[]): number | null {
  return xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : null;
}
function ratio(a: number | undefined, b: number | undefined): number | null {
  return a && b ? Math.round((a / b) * 100) / 100 : null;
}
function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
