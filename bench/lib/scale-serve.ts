// bench:scale's cold start: `trove serve` started as a user starts it, timed from the spawn to its
// first MCP answer — a raw HTTP POST of a stateless 2026-07-28 `tools/call` of `search` (mcp-http.ts's
// call, as bench:mcp sends it), sent the moment runtime.json (the port and token a client reads)
// appears — then the host's resident memory once it has gone quiet.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { call, cpuShare, waitFor } from './mcp-http.js';

export interface ColdStart {
  /** Spawn → runtime.json written (the host listening). */
  runtimeFileMs: number;
  /** Spawn → the first `search` answered. */
  firstAnswerMs: number;
  /** Results in that first answer (a figure for an empty answer would mean nothing). */
  firstAnswerResults: number;
  /** VmRSS of the host once its CPU use stayed under 5% of a core for a second. */
  idleRssMb: number;
  /** VmHWM: the host's peak resident memory up to then. */
  peakRssMb: number;
}

export interface ServeOptions {
  root: string;
  profile: string;
  query: string;
  /** Extra `trove serve` arguments (`--no-embed`). */
  args?: readonly string[];
  /** Node flags before the script (`--cpu-prof`, …). */
  nodeArgs?: readonly string[];
  env?: Record<string, string>;
}

/** One start of `trove serve` on `profile`, measured, then stopped (SIGTERM, awaited). */
export async function coldStart(opts: ServeOptions): Promise<ColdStart> {
  const runtimeFile = path.join(opts.profile, 'runtime.json');
  fs.rmSync(runtimeFile, { force: true });
  // the port is the host's to pick (0 is not accepted: a random high one, the next free if taken)
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const appeared = runtimeFileAppears(opts.profile);
  const t0 = performance.now();
  const server = spawn(process.execPath, [...(opts.nodeArgs ?? []), path.join(opts.root, 'bin/trove.js'), 'serve', '--port', port, ...(opts.args ?? [])], {
    env: { ...process.env, ...opts.env, TROVE_HOME: opts.profile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => server.once('exit', (code) => reject(new Error(`trove serve exited (${code}) before answering`))));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (server.exitCode !== null || server.signalCode !== null) return resolve();
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
    });
  try {
    await Promise.race([appeared.promise, exited]);
    const runtimeFileMs = performance.now() - t0;
    const runtime = JSON.parse(fs.readFileSync(runtimeFile, 'utf8')) as { mcpUrl: string; token: string };
    const answer = await Promise.race([call(runtime.mcpUrl, { Authorization: `Bearer ${runtime.token}` }, 'search', { query: opts.query, limit: 10 }, 1), exited]);
    const firstAnswerMs = performance.now() - t0;
    if (answer.isError) throw new Error(`the first search failed: ${answer.content?.[0]?.text ?? 'no message'}`);
    const results = (answer.structuredContent?.results as unknown[] | undefined)?.length ?? 0;
    // idle: the start-up scan of the folders (and any merging) done, as a host left running is
    await waitFor(async () => ((await cpuShare(server.pid!, 1000)) < 0.05 ? true : null), 600_000);
    const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { runtimeFileMs, firstAnswerMs, firstAnswerResults: results, idleRssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
  } finally {
    appeared.close();
    exited.catch(() => {});
    await stop();
  }
}

/** Resolves when `runtime.json` appears in `dir` (a directory watch: no polling interval in the figure). */
function runtimeFileAppears(dir: string): { promise: Promise<void>; close(): void } {
  let watcher: fs.FSWatcher | null = null;
  const promise = new Promise<void>((resolve) => {
    watcher = fs.watch(dir, (_event, name) => {
      if (name === 'runtime.json' && fs.existsSync(path.join(dir, 'runtime.json'))) resolve();
    });
  });
  return { promise, close: () => watcher?.close() };
}
