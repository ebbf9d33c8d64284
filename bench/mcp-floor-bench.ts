// bench:mcp-floor [--calls 2000] [--warmup 1000] [--only health|discover|tool|store] [--fast-calls on|off] [--server-cpu-prof DIR]:
// the floor of one MCP call over HTTP — a call
// that does no work, round trip, split into the client's share and the server's. The client is
// the benches' own (fetch with keep-alive, one call at a time, stateless 2026-07-28 requests:
// bench/lib/mcp-http.ts); the server is the real `trove serve --no-embed` on an empty profile,
// with bench/lib/server-timing.mjs preloaded to time each exchange inside it (node's http
// diagnostics channels: headers parsed → last byte handed to the socket). Three calls:
// - GET /health: node's HTTP server and the client alone, no MCP (the transport's floor);
// - server/discover: the MCP path with no tool (auth, classify, a server built for the request,
//   its answer sent; the 2026-07-28 revision has no ping);
// - list_threads on an empty memory: a tool with next to nothing to do (zod input parse, one
//   small SQL query, the output-schema check, the redaction wrapper, the SDK's result plumbing);
// and, for comparison, store_context of a one-line note (the memory goal's single write).
// client = round trip − server, per call; server CPU per call (its process's user + system time
// over the timed calls, /proc) is the figure least disturbed by a busy machine. Prints a table and one JSON line. --server-cpu-prof
// writes the server's CPU profile (1 ms sampling: finer keeps the server from looking idle) to DIR when it stops.
// --fast-calls off: the server answers tool calls through the SDK's per-request server (TROVE_MCP_FAST_CALLS=0), for an A/B
// against the fast tools/call path (mcp/transports/fast-call.ts) run back to back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ENVELOPE, serveProfile } from './lib/mcp-http.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' }, warmup: { type: 'string', default: '1000' }, only: { type: 'string' }, 'server-cpu-prof': { type: 'string' }, 'fast-calls': { type: 'string', default: 'on' } } });
if (!['on', 'off'].includes(values['fast-calls'])) throw new Error('--fast-calls is on or off');
const fastCalls = values['fast-calls'] === 'on';
const N = Number(values.calls);
const WARMUP = Number(values.warmup);
const root = path.resolve(import.meta.dirname, '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-floor-'));
const timingFile = path.join(scratch, 'server-timing.json');
const loadBefore = os.loadavg().map((x) => +x.toFixed(2));

const prof = values['server-cpu-prof'];
const served = await serveProfile(root, path.join(scratch, 'profile'), { TROVE_BENCH_TIMING_FILE: timingFile, TROVE_MCP_FAST_CALLS: fastCalls ? '1' : '0' }, ['--no-embed'], [
  '--import',
  path.join(root, 'bench/lib/server-timing.mjs'),
  ...(prof ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(prof)] : []),
]);

/** The server's durations since the last call (the preload writes them on SIGUSR2). */
async function serverTimes(): Promise<number[]> {
  fs.rmSync(timingFile, { force: true });
  process.kill(served.pid, 'SIGUSR2');
  for (let i = 0; i < 500 && !fs.existsSync(timingFile); i++) await new Promise((r) => setTimeout(r, 10));
  return JSON.parse(fs.readFileSync(timingFile, 'utf8')) as number[];
}

function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

type Call = (id: number) => Promise<void>;
const mcpHeaders = (method: string, name?: string) => ({
  ...served.auth,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2026-07-28',
  'Mcp-Method': method,
  ...(name ? { 'Mcp-Name': name } : {}),
});
async function expectOk(res: Response): Promise<void> {
  const text = await res.text();
  if (!res.ok || text.includes('"error":{') || text.includes('"isError":true')) throw new Error(`${res.status}: ${text.slice(0, 200)}`);
}

const health: Call = async () => expectOk(await fetch(served.mcpUrl.replace(/\/mcp$/, '/health')));
const discover: Call = async (id) =>
  expectOk(
    await fetch(served.mcpUrl, { method: 'POST', headers: mcpHeaders('server/discover'), body: JSON.stringify({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: ENVELOPE } }) }),
  );
const trivialTool: Call = async (id) =>
  expectOk(
    await fetch(served.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders('tools/call', 'list_threads'),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_threads', arguments: {}, _meta: ENVELOPE } }),
    }),
  );

const store: Call = async (id) =>
  expectOk(
    await fetch(served.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders('tools/call', 'store_context'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'store_context', arguments: { thread_id: 'floor', source: 'agent', text: `note ${id}: the build cache lives in ~/.cache/trove` }, _meta: ENVELOPE },
      }),
    }),
  );

const p = (sorted: number[], q: number) => +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(3);
async function measure(label: string, call: Call) {
  for (let i = 0; i < WARMUP; i++) await call(i);
  await serverTimes(); // start afresh
  const rt: number[] = [];
  const cpu0 = cpuTicks(served.pid);
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const s = performance.now();
    await call(i);
    rt.push(performance.now() - s);
  }
  const wall = performance.now() - t0;
  const cpuMs = (cpuTicks(served.pid) - cpu0) * 10; // USER_HZ = 100
  const srv = await serverTimes();
  if (srv.length !== N) throw new Error(`${label}: the server timed ${srv.length} exchanges, expected ${N}`);
  const client = rt.map((r, i) => r - srv[i]!).sort((a, b) => a - b);
  const row = {
    label,
    calls: N,
    calls_per_s: Math.round(N / (wall / 1000)),
    round_trip_p50_ms: p([...rt].sort((a, b) => a - b), 0.5),
    round_trip_p95_ms: p([...rt].sort((a, b) => a - b), 0.95),
    server_p50_ms: p([...srv].sort((a, b) => a - b), 0.5),
    client_p50_ms: p(client, 0.5),
    server_cpu_us_per_call: Math.round((cpuMs * 1000) / N),
  };
  console.error(`${label.padEnd(34)} ${String(row.calls_per_s).padStart(6)}/s  round trip p50 ${row.round_trip_p50_ms} ms (p95 ${row.round_trip_p95_ms})  server ${row.server_p50_ms}  client ${row.client_p50_ms}  server CPU ${row.server_cpu_us_per_call} µs/call`);
  return row;
}

try {
  const cases: [string, string, Call][] = [
    ['health', 'GET /health (no MCP)', health],
    ['discover', 'server/discover (no tool)', discover],
    ['tool', 'list_threads, empty memory', trivialTool],
    ['store', 'store_context, one line', store],
  ];
  const rows = [];
  for (const [key, label, call] of cases) if (!values.only || values.only === key) rows.push(await measure(label, call));
  console.log(JSON.stringify({ bench: 'mcp-floor', fast_calls: fastCalls, load_before: loadBefore, load_after: os.loadavg().map((x) => +x.toFixed(2)), rows }));
} finally {
  await served.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
}
