// Calls from N clients at once, for bench:memory --clients N: each client loops over its share of
// the calls, one at a time; the figure is calls per second over the whole run and each call's
// latency. The peer (mcp-context-server, installed by ../shared/bench/peers/context-server.sh in
// $CTX_PEER_DIR, default /tmp/ctx-peer) is reached two ways, to find its fastest: one server over
// streamable HTTP (stateless, as its settings default) with N SDK clients, and N servers over
// stdio (one per client, as N agents would each start one) sharing one database file.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Caller, CallOutcome } from './mcp-callers.js';
import { lat } from './memory-workload.js';

export const PEER_DIR = process.env.CTX_PEER_DIR ?? '/tmp/ctx-peer';
const PEER_BIN = path.join(PEER_DIR, 'venv/bin/mcp-context-server');

export function peerInstalled(): boolean {
  return fs.existsSync(PEER_BIN);
}

/** `total` calls spread over the callers, each caller one call at a time; calls/s and latency. */
export async function concurrently(callers: readonly Caller[], total: number, call: (i: number, client: number) => [string, Record<string, unknown>]) {
  let next = 0;
  const ms: number[] = [];
  let errors = 0;
  let sample: string | null = null;
  const t0 = performance.now();
  await Promise.all(
    callers.map(async (c, k) => {
      for (let i = next++; i < total; i = next++) {
        const [tool, args] = call(i, k);
        const o = await c.call(tool, args);
        ms.push(o.ms);
        if (o.error) {
          errors++;
          sample ??= o.error.slice(0, 200);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { clients: callers.length, calls: total, per_s: Math.round((total / seconds) * 10) / 10, ...lat(ms), errors, ...(sample ? { error_sample: sample } : {}) };
}

function sdkCaller(client: Client, label: string): Caller {
  return {
    label,
    async call(tool, args): Promise<CallOutcome> {
      const t0 = performance.now();
      try {
        const r = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })) as { isError?: boolean; content?: { text?: string }[]; structuredContent?: Record<string, unknown> };
        const ms = performance.now() - t0;
        if (r.isError) return { ms, data: null, error: r.content?.map((c) => c.text ?? '').join(' ') ?? 'error' };
        const data = r.structuredContent ?? (JSON.parse(r.content?.[0]?.text ?? 'null') as Record<string, unknown> | null);
        return { ms, data, error: null };
      } catch (err) {
        return { ms: performance.now() - t0, data: null, error: (err as Error).message };
      }
    },
    close: () => client.close(),
  };
}

/** The peer's environment as context-server.sh runs it (FTS on, embeddings and summaries off), on a fresh database in `dir`. */
function peerEnv(dir: string, extra: Record<string, string>): Record<string, string> {
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  return {
    PATH: process.env.PATH ?? '',
    HOME: path.join(dir, 'home'),
    DB_PATH: path.join(dir, 'context.db'),
    STORAGE_BACKEND: 'sqlite',
    LOG_LEVEL: 'ERROR',
    ENABLE_EMBEDDING_GENERATION: 'false',
    ENABLE_SUMMARY_GENERATION: 'false',
    ENABLE_SEMANTIC_SEARCH: 'false',
    ENABLE_RERANKING: 'false',
    ENABLE_CHUNKING: 'false',
    ENABLE_HYBRID_SEARCH: 'false',
    ENABLE_FTS: 'true',
    FTS_LANGUAGE: 'english',
    ...extra,
  };
}

export interface PeerClients {
  callers: Caller[];
  close(): Promise<void>;
}

/** N SDK clients of one peer server over streamable HTTP on loopback. */
export async function peerOverHttp(dir: string, n: number): Promise<PeerClients> {
  const port = await freePort();
  const child: ChildProcess = spawn(PEER_BIN, [], {
    cwd: dir,
    env: peerEnv(dir, { MCP_TRANSPORT: 'http', FASTMCP_HOST: '127.0.0.1', FASTMCP_PORT: String(port), FASTMCP_STATELESS_HTTP: 'true' }),
    stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'server.stderr.log'), 'w')],
  });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const callers: Caller[] = [];
  const deadline = Date.now() + 120_000;
  while (callers.length < n) {
    const client = new Client({ name: 'bench-memory-clients', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(url));
      callers.push(sdkCaller(client, 'peer http'));
    } catch (err) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the peer's HTTP server did not answer: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    callers,
    async close() {
      await Promise.all(callers.map((c) => c.close().catch(() => undefined)));
      await stop(child);
    },
  };
}

/** N peer servers over stdio, one per SDK client, sharing one database. */
export async function peerOverStdio(dir: string, n: number): Promise<PeerClients> {
  const callers: Caller[] = [];
  for (let i = 0; i < n; i++) {
    const client = new Client({ name: 'bench-memory-clients', version: '1' });
    await client.connect(new StdioClientTransport({ command: PEER_BIN, args: [], cwd: dir, env: peerEnv(dir, { MCP_TRANSPORT: 'stdio' }), stderr: 'ignore' }));
    callers.push(sdkCaller(client, 'peer stdio'));
  }
  return { callers, close: async () => void (await Promise.all(callers.map((c) => c.close().catch(() => undefined)))) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
