// bench:app-api [dir] [--queries 300]: what the UI feels. Adds the corpus (default
// ../shared/bench/corpora/powershell-docs) through the web UI's HTTP API on a fresh profile and
// follows the server-sent index.activity events to the end (how many arrive, how often), then
// measures warm round trips of /api/search and /api/get against calling the engine directly.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { mountAppApi } from '../src-main/host/app-api-mount.js';
import { startHost } from '../src-main/host/host.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { queries: { type: 'string', default: '300' } } });
const root = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(positionals[0] ?? path.join(root, '../shared/bench/corpora/powershell-docs'));
const N = Number(values.queries);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-appapi-'));

const words: string[] = [];
const walk = (d: string) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.md') && words.length < 50_000) for (const m of fs.readFileSync(p, 'utf8').matchAll(/^#{1,3} +(.{12,80})$/gm)) words.push(m[1]!.replace(/[`*_]/g, ''));
  }
};
walk(dir);
let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const queries = Array.from({ length: N + 20 }, () => words[Math.floor(rand() * words.length)]!);

const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: profile });
const host = await startHost({ engine, port: 0, writeRuntimeFile: false });
const mounted = mountAppApi(host, { ui: true });
const signIn = await fetch(mounted.signInUrl()!, { redirect: 'manual' });
const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;

async function api<T>(method: string, params: unknown): Promise<T> {
  const res = await fetch(`${host.url}/api/${method}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(params) });
  const reply = (await res.json()) as { ok: boolean; result: T; error?: { message: string } };
  if (!reply.ok) throw new Error(`${method}: ${reply.error!.message}`);
  return reply.result;
}

// index through the UI path, following the event stream
const events: { at: number; done: number; total: number }[] = [];
const started = performance.now();
const finished = new Promise<void>((resolve) => {
  const req = http.get(`${host.url}/api/events`, { headers: { cookie } }, (res) => {
    res.setEncoding('utf8');
    let buf = '';
    res.on('data', (chunk: string) => {
      buf += chunk;
      for (let i = buf.indexOf('\n\n'); i !== -1; i = buf.indexOf('\n\n')) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (!frame.startsWith('data: ')) continue;
        const e = JSON.parse(frame.slice(6)) as { type: string; activity?: { running: { done: number; total: number } | null; recent: { state: string }[] } };
        if (e.type !== 'index.activity') continue;
        const run = e.activity!.running;
        events.push({ at: performance.now() - started, done: run?.done ?? -1, total: run?.total ?? -1 });
        if (!run && e.activity!.recent[0]?.state === 'done') {
          req.destroy();
          resolve();
        }
      }
    });
  });
  req.on('error', () => undefined);
});
await api('collections.add', { root: dir, name: 'corpus' });
await finished;
const indexMs = performance.now() - started;
const [info] = await api<{ documents: number; chunks: number }[]>('collections.list', {});
const gaps = events.slice(1).map((e, i) => e.at - events[i]!.at);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
async function time(fn: (q: string) => Promise<unknown>): Promise<number[]> {
  for (const q of queries.slice(0, 20)) await fn(q); // warm-up
  const out: number[] = [];
  for (const q of queries.slice(20)) {
    const t = performance.now();
    await fn(q);
    out.push(performance.now() - t);
  }
  return out;
}
const direct = await time((q) => engine.search({ query: q, limit: 20 }));
const overHttp = await time((q) => api('search', { query: q, limit: 20 }));
const hits = await api<{ results: { uri: string }[] }>('search', { query: queries[0]!, limit: 50 });
let k = 0;
const gets = await time(() => api('get', { locator: hits.results[k++ % hits.results.length]!.uri, lineNumbers: true }));

const f = (n: number) => n.toFixed(2);
console.log(`corpus ${dir}: ${info!.documents} documents, ${info!.chunks} chunks`);
console.log(`index via POST /api/collections.add → last SSE event: ${(indexMs / 1000).toFixed(1)} s; ${events.length} index.activity events, median gap ${f(pct(gaps, 50))} ms, p95 ${f(pct(gaps, 95))} ms`);
console.log(`search (limit 20, ${N} queries)  engine direct p50 ${f(pct(direct, 50))} ms p95 ${f(pct(direct, 95))} ms | POST /api/search p50 ${f(pct(overHttp, 50))} ms p95 ${f(pct(overHttp, 95))} ms`);
console.log(`get (line-numbered)             POST /api/get p50 ${f(pct(gets, 50))} ms p95 ${f(pct(gets, 95))} ms`);

await mounted.close();
await host.close();
await engine.close();
fs.rmSync(profile, { recursive: true, force: true });
