// Talking MCP over HTTP the way the benchmarks do: the real `trove serve` in its own process on
// a profile, and tool calls as a client sends them (fetch with keep-alive, one at a time), either
// as stateless 2026-07-28 requests or inside a 2025 session.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

export interface ToolResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** One tools/call: a 2026-07-28 request (modern) or a request inside a 2025 session (its headers in `headers`). */
export async function call(url: string, headers: Record<string, string>, tool: string, args: unknown, id: number, modern = true): Promise<ToolResult> {
  const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args, ...(modern ? { _meta: ENVELOPE } : {}) } };
  const h: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers };
  if (modern) Object.assign(h, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': tool });
  const res = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('event-stream') ? /^data: (.+)$/m.exec(text)![1]! : text;
  const msg = JSON.parse(json) as { result?: ToolResult; error?: { message: string } };
  if (msg.error) throw new Error(`${tool}: ${msg.error.message}`);
  return msg.result!;
}

/** Opens a 2025-era session (initialize + initialized); the headers its requests carry. */
export async function legacySession(url: string, headers: Record<string, string>, version: string): Promise<Record<string, string>> {
  const base = { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  const session: Record<string, string> = { ...headers, 'MCP-Protocol-Version': version, ...(id ? { 'Mcp-Session-Id': id } : {}) };
  const note = await fetch(url, { method: 'POST', headers: { ...base, ...session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await note.text();
  return session;
}

/** Share of one core a process used over `ms` (Linux /proc). */
export async function cpuShare(pid: number, ms: number): Promise<number> {
  const ticks = () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0);
  const before = ticks();
  await new Promise((r) => setTimeout(r, ms));
  return ((ticks() - before) * 10) / ms; // USER_HZ = 100: one tick is 10 ms
}

export async function waitFor<T>(probe: () => T | null | Promise<T | null>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await probe();
      if (v !== null) return v;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('trove serve did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Served {
  mcpUrl: string;
  auth: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Builds the CLI, then runs `trove serve` on `profile` (with `args`, e.g. `--no-embed` for a
 * keyword-only profile, which a host would otherwise spend many minutes embedding; `nodeArgs`
 * before the script, e.g. a preload); resolves once
 * it has gone quiet (its start-up scans, and background embedding if on, done).
 */
export async function serveProfile(root: string, profile: string, env: Record<string, string> = {}, args: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<Served> {
  spawnSync('npx', ['tsc', '-p', 'tsconfig.node.json'], { cwd: root, stdio: 'inherit' });
  const runtimeFile = path.join(profile, 'runtime.json');
  fs.rmSync(runtimeFile, { force: true });
  const server = spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/trove.js'), 'serve', '--port', String(20000 + Math.floor(Math.random() * 20000)), ...args], {
    env: { ...process.env, ...env, TROVE_HOME: profile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (server.exitCode !== null) return resolve();
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
    });
  try {
    const runtime = await waitFor(() => (fs.existsSync(runtimeFile) ? (JSON.parse(fs.readFileSync(runtimeFile, 'utf8')) as { mcpUrl: string; token: string }) : null));
    // the host's start-up work (the watcher's first walk, the reconcile scan) runs first:
    // measure once the process has gone quiet, as a host that has been running for a while is
    await waitFor(async () => ((await cpuShare(server.pid!, 1000)) < 0.05 ? true : null), 300_000);
    return { mcpUrl: runtime.mcpUrl, auth: { Authorization: `Bearer ${runtime.token}` }, pid: server.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** p-th percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
