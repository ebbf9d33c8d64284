// reliability:load [--seconds 300] [--clients 32] [--notes 5000] [--small]: a real `trove serve`
// (its own process, so its RSS is its own) over a stable collection, a large one it indexes at
// start-up while the load runs, and a watched folder that keeps changing; 32 MCP clients — v1 and
// v2 SDKs (2025 sessions and 2026-07-28), over HTTP and through `trove mcp` on stdio — calling
// search, query, get and multi_get for the whole time. Prints calls, errors, p50/p99 per tool, the
// host's RSS over time (and its growth over the last half), where the CPU went (host, its threads,
// the clients), and one JSON line. Needs the built CLI.
// `busy` answers (the host's admission control) are retried after their hint and counted, not
// errors. --database postgresql://…: the same run on a fresh database made on that server (dropped
// at the end), every `trove` command and the host on it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { readRuntimeFile } from '../../src-main/host/runtime-file.js';
import { childrenCpuSeconds } from '../lib/children-cpu.js';
import { writeNotes } from '../../test/reliability/lib/generated-corpus.js';
import { runLoad, type ClientKind } from '../../test/reliability/lib/load.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, clients: { type: 'string' }, notes: { type: 'string' }, small: { type: 'boolean', default: false }, database: { type: 'string' }, 'cpu-prof-dir': { type: 'string' }, 'host-flags': { type: 'string' } },
});
const seconds = Number(values.seconds ?? (values.small ? 20 : 300));
const clientCount = Number(values.clients ?? (values.small ? 8 : 32));
const notes = Number(values.notes ?? (values.small ? 300 : 5000));
const BIN = path.resolve(import.meta.dirname, '../../bin/trove.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-load-'));
const profile = path.join(dir, 'profile');
const database = values.database ? await freshDatabase(values.database) : undefined;
const env = { ...process.env, TROVE_HOME: profile, TROVE_PORT: '0', ...(database ? { TROVE_DATABASE_URL: database.url } : {}) };
const trove = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });

const stable = writeNotes(path.join(dir, 'stable'), 200).map((p) => `stable/${p}`);
writeNotes(path.join(dir, 'big'), notes, 3);
fs.mkdirSync(path.join(dir, 'live'));
trove('collection', 'add', path.join(dir, 'stable'), '--name', 'stable');
trove('collection', 'add', path.join(dir, 'big'), '--name', 'big', '--no-index'); // the host indexes it at start-up, under load
trove('collection', 'add', path.join(dir, 'live'), '--name', 'live');

// --cpu-prof-dir <dir>: the host writes a V8 CPU profile of its main thread there when it shuts down
const profiling = values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof-dir'])}`] : [];
// --host-flags="--flag …" (with "=": the value starts with a dash): node/V8 flags for the host process alone
const hostFlags = values['host-flags']?.split(/\s+/).filter(Boolean) ?? [];
const serve = spawn(process.execPath, [...profiling, ...hostFlags, BIN, 'serve', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const mcpUrl = await new Promise<string>((resolve, reject) => {
  let out = '';
  serve.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const line = out.split('\n').find((l) => l.includes('"mcpUrl"'));
    if (line) resolve((JSON.parse(line) as { mcpUrl: string }).mcpUrl);
  });
  serve.once('exit', (code) => reject(new Error(`trove serve exited with ${code}`)));
});
const token = readRuntimeFile(profile)!.token;

const rss: { t: number; mb: number }[] = [];
const t0 = performance.now();
const sample = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${serve.pid}/status`, 'utf8'));
  if (m) rss.push({ t: (performance.now() - t0) / 1000, mb: Number(m[1]) / 1024 });
};
sample();
const sampler = setInterval(sample, 1000);
let n = 0;
const churn = setInterval(() => fs.writeFileSync(path.join(dir, 'live', `file-${n++ % 50}.md`), `# Live ${n}\n\nkeeper lantern harbour ${n}\n`), 50);

// CPU seconds over the load window: the host's (all its threads) and this driver's (its 24 HTTP
// clients; the stdio clients' `trove mcp` processes count once they exit): what the 2 cores went to.
const hostCpu0 = hostCpuSeconds(serve.pid!);
const threadCpu0 = threadCpuSeconds(serve.pid!);
const driverCpu0 = process.cpuUsage();
const childrenCpu0 = childrenCpuSeconds();
const quarter = Math.max(1, Math.round(clientCount / 8));
const clients: Record<ClientKind, number> = { 'v1-http': clientCount / 2 - quarter, 'v2-http': clientCount / 2 - quarter, 'v1-stdio': quarter, 'v2-stdio': quarter };
try {
  const out = await runLoad({
    mcpUrl,
    token,
    profileDir: profile,
    clients,
    durationMs: seconds * 1000,
    paths: stable,
    glob: 'stable/notes-0/note-000*.md',
    queries: ['keeper wind swell', 'retries jitter herd', 'lantern harbour', 'gannets puffins cliff', 'compass glacier summit', 'copper signal orchard'],
  });
  clearInterval(churn);
  clearInterval(sampler);
  sample();
  const hostCpu = hostCpuSeconds(serve.pid!) - hostCpu0;
  const threads = [...threadCpuSeconds(serve.pid!)].map(([tid, t]) => ({ ...t, cpu: t.cpu - (threadCpu0.get(tid)?.cpu ?? 0) })).filter((t) => t.cpu >= 0.05).sort((a, b) => b.cpu - a.cpu);
  const driverUsage = process.cpuUsage(driverCpu0);
  const driverCpu = (driverUsage.user + driverUsage.system) / 1e6;
  const shimCpu = childrenCpuSeconds() - childrenCpu0;
  const status = JSON.parse(execFileSync(process.execPath, [BIN, 'status', '--json'], { env, encoding: 'utf8' })) as { collections: { name: string; documents: number }[] };
  const bigIndexed = status.collections.find((c) => c.name === 'big')?.documents ?? 0;
  const half = rss.filter((s) => s.t >= rss[rss.length - 1]!.t / 2);
  const slope = regression(half.map((s) => [s.t, s.mb]));
  const growth = half.length ? half[half.length - 1]!.mb - half[0]!.mb : 0;
  console.log(`${database ? 'PostgreSQL' : 'SQLite'}, ${clientCount} clients (${JSON.stringify(clients)}) for ${seconds} s: ${out.calls} calls (${(out.calls / (out.wallMs / 1000)).toFixed(0)}/s), ${out.errors.length} errors, ${out.busy} busy answers retried`);
  for (const e of out.errors.slice(0, 10)) console.log(`  error: ${e}`);
  for (const [tool, s] of Object.entries(out.perTool)) console.log(`  ${tool.padEnd(10)} n=${String(s.n).padStart(6)}  p50 ${s.p50.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms  max ${s.max.toFixed(0)} ms`);
  const f = out.firstCalls;
  console.log(`  each client's first call (a search, all ${f.n} at once): p50 ${f.p50.toFixed(0)} ms, max ${f.max.toFixed(0)} ms (by kind: ${Object.entries(f.maxByKind).map(([k, ms]) => `${k} ${ms.toFixed(0)}`).join(', ')}); search p99 after them ${f.searchP99After.toFixed(1)} ms`);
  console.log(`big collection indexed under load: ${bigIndexed} of ${notes} notes`);
  console.log(`CPU seconds over the run: host ${hostCpu.toFixed(1)}, this driver ${driverCpu.toFixed(1)}, its trove mcp children ${shimCpu.toFixed(1)}`);
  console.log(`  host threads alive at the end (tid:name CPU s; tid 0 = the main thread): ${threads.map((t) => `${t.tid}:${t.name}${t.nice ? ` (nice ${t.nice})` : ''} ${t.cpu.toFixed(1)}`).join(', ')}`);
  const kinds = Object.fromEntries([...fs.readFileSync(`/proc/${serve.pid}/status`, 'utf8').matchAll(/^(RssAnon|RssFile|RssShmem):\s+(\d+) kB/gm)].map((m) => [m[1]!, Math.round(Number(m[2]) / 1024)]));
  console.log(`host RSS at the end by kind (MB): ${JSON.stringify(kinds)}`);
  console.log(`host RSS: start ${rss[0]!.mb.toFixed(0)} MB, max ${Math.max(...rss.map((s) => s.mb)).toFixed(0)} MB, end ${rss[rss.length - 1]!.mb.toFixed(0)} MB; last half: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB (${(slope * 60).toFixed(2)} MB/min)`);
  console.log(`RSS over time (MB, every ~${Math.max(1, Math.round(rss.length / 20))} s): ${rss.filter((_, i) => i % Math.max(1, Math.round(rss.length / 20)) === 0).map((s) => s.mb.toFixed(0)).join(' ')}`);
  console.log(JSON.stringify({ bench: 'reliability:load', backend: database ? 'postgres' : 'sqlite', seconds, clients: clientCount, calls: out.calls, callsPerS: Math.round(out.calls / (out.wallMs / 1000)), errors: out.errors.length, busy: out.busy, perTool: out.perTool, firstCalls: out.firstCalls, bigIndexed, notes, rssStartMb: Math.round(rss[0]!.mb), rssMaxMb: Math.round(Math.max(...rss.map((s) => s.mb))), rssEndMb: Math.round(rss[rss.length - 1]!.mb), rssEndKindsMb: kinds, lastHalfGrowthMb: Math.round(growth * 10) / 10, lastHalfMbPerMin: Math.round(slope * 600) / 10, hostCpuS: Math.round(hostCpu * 10) / 10, driverCpuS: Math.round(driverCpu * 10) / 10, childrenCpuS: Math.round(shimCpu * 10) / 10 }));
  process.exitCode = out.errors.length ? 1 : 0;
} finally {
  clearInterval(churn);
  clearInterval(sampler);
  serve.kill('SIGTERM');
  await new Promise((r) => serve.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
  await database?.drop();
}

/** A database of its own on the server `url` names, with the extensions Trove's migrations expect. */
async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `trove_load_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async <T>(u: string, f: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: u });
    await c.connect();
    try {
      return await f(c);
    } finally {
      await c.end();
    }
  };
  await admin(url, (c) => c.query(`CREATE DATABASE ${name}`));
  const own = new URL(url);
  own.pathname = `/${name}`;
  await admin(own.toString(), (c) => c.query('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm'));
  return { url: own.toString(), drop: () => admin(url, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined) };
}

/** A process's user + system CPU seconds, all its threads (/proc/<pid>/stat, in clock ticks of 1/100 s on Linux). */
function hostCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Each thread's name, nice value (background workers are niced) and user + system CPU seconds (/proc/<pid>/task/<tid>/stat), by thread id. */
function threadCpuSeconds(pid: number): Map<number, { tid: number; name: string; nice: number; cpu: number }> {
  const out = new Map<number, { tid: number; name: string; nice: number; cpu: number }>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      out.set(tid, { tid: tid === pid ? 0 : tid, name, nice: Number(fields[16]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** Least-squares slope of y over x. */
function regression(points: number[][]): number {
  if (points.length < 2) return 0;
  const mx = points.reduce((a, p) => a + p[0]!, 0) / points.length;
  const my = points.reduce((a, p) => a + p[1]!, 0) / points.length;
  const num = points.reduce((a, p) => a + (p[0]! - mx) * (p[1]! - my), 0);
  const den = points.reduce((a, p) => a + (p[0]! - mx) ** 2, 0);
  return den ? num / den : 0;
}
