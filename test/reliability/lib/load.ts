// The load driver: many MCP clients at once — the v1 SDK (2025 sessions) and the v2 SDK pinned to
// 2026-07-28, over HTTP and through `trove mcp` on stdio — each calling search, query, get and
// multi_get in turn against documents that stay put, while the caller indexes and changes other
// files. Every call is timed; any error is kept (there must be none). Shared by the test (small)
// and `npm run reliability:load` (32 clients, 5 minutes).
import path from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BIN = path.resolve(import.meta.dirname, '..', '..', '..', 'bin', 'trove.js');

export type ClientKind = 'v1-http' | 'v2-http' | 'v1-stdio' | 'v2-stdio';

export interface LoadOptions {
  mcpUrl: string;
  token: string;
  /** TROVE_HOME for the stdio shims (they find the running host through its runtime.json). */
  profileDir: string;
  clients: Record<ClientKind, number>;
  /** Stop after this long, or after this many calls per client (whichever comes first). */
  durationMs?: number;
  callsPerClient?: number;
  /** Documents that exist for the whole run (get), a glob over some of them (multi_get), queries. */
  paths: string[];
  glob: string;
  queries: string[];
}

export interface LoadOutcome {
  calls: number;
  errors: string[];
  /** `busy` answers (transports/admission.ts): not errors — the call was retried after the hint — but counted. */
  busy: number;
  perTool: Record<string, { n: number; p50: number; p99: number; max: number }>;
  /**
   * Each client's first call (all of them start together, each with a search): the burst a host
   * meets when many clients connect at once, which sets search's p99 in a run of a minute; and
   * search's p99 over the calls after it.
   */
  firstCalls: { n: number; p50: number; max: number; searchP99After: number; maxByKind: Partial<Record<ClientKind, number>> };
  perKind: Record<string, number>;
  wallMs: number;
}

interface CallableClient {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** The JSON-RPC code of Trove's `busy` answer (src-main/mcp/transports/admission.ts BUSY_ERROR_CODE). */
const BUSY = -32029;
/** A call answered busy this many times in a row is an error. */
const MAX_BUSY_RETRIES = 20;

/** The retry-after hint of a `busy` answer, or null for any other error. */
function busyHint(err: unknown): number | null {
  const e = err as { code?: unknown; data?: { retryAfterMs?: unknown } };
  if (e?.code !== BUSY) return null;
  return typeof e.data?.retryAfterMs === 'number' ? e.data.retryAfterMs : 100;
}

/** The transport is gone: every later call would fail at once, so the client stops (one error, not one per turn). */
const isClosed = (err: unknown) => /Not connected|Connection closed/i.test((err as Error)?.message ?? '');

/** The last few KB a stdio shim wrote on stderr (kept for the report when its connection closes). */
function keepStderr(transport: { stderr?: unknown }): () => string {
  let tail = '';
  const stream = transport.stderr as NodeJS.ReadableStream | null | undefined;
  stream?.on('data', (d: Buffer) => void (tail = (tail + d.toString()).slice(-2000)));
  return () => tail;
}

async function connect(kind: ClientKind, o: LoadOptions, i: number): Promise<CallableClient & { stderr?: () => string }> {
  const info = { name: `load-${kind}-${i}`, version: '1' };
  const auth = { requestInit: { headers: { Authorization: `Bearer ${o.token}` } } };
  const shim = { command: process.execPath, args: [BIN, 'mcp'], env: { PATH: process.env.PATH ?? '', TROVE_HOME: o.profileDir }, stderr: 'pipe' as const };
  const modern = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };
  switch (kind) {
    case 'v1-http': {
      const c = new V1Client(info);
      await c.connect(new V1Http(new URL(o.mcpUrl), auth));
      return c;
    }
    case 'v2-http': {
      const c = new V2Client(info, modern);
      await c.connect(new V2Http(new URL(o.mcpUrl), auth));
      return c;
    }
    case 'v1-stdio': {
      const c = new V1Client(info);
      const t = new V1Stdio(shim);
      const stderr = keepStderr(t);
      await c.connect(t);
      return Object.assign(c, { stderr });
    }
    case 'v2-stdio': {
      const c = new V2Client(info, modern);
      const t = new V2Stdio(shim);
      const stderr = keepStderr(t);
      await c.connect(t);
      return Object.assign(c, { stderr });
    }
  }
}

function call(step: number, o: LoadOptions, seed: number): { name: string; arguments: Record<string, unknown> } {
  const q = o.queries[(seed + step) % o.queries.length]!;
  switch (step % 4) {
    case 0:
      return { name: 'search', arguments: { query: q, limit: 10 } };
    case 1:
      return { name: 'query', arguments: { query: q, limit: 5 } };
    case 2:
      return { name: 'get', arguments: { file: o.paths[(seed * 31 + step) % o.paths.length]!, maxLines: 40 } };
    default:
      return { name: 'multi_get', arguments: { pattern: o.glob, maxBytes: 20_000 } };
  }
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runLoad(o: LoadOptions): Promise<LoadOutcome> {
  const kinds = (Object.entries(o.clients) as [ClientKind, number][]).flatMap(([k, n]) => Array.from({ length: n }, (_, i) => ({ kind: k, i })));
  const clients = await Promise.all(kinds.map(async ({ kind, i }) => ({ kind, client: await connect(kind, o, i) })));
  const times = new Map<string, number[]>();
  const first: number[] = [];
  const firstByKind: Partial<Record<ClientKind, number>> = {};
  const searchesAfter: number[] = [];
  const perKind: Record<string, number> = {};
  const errors: string[] = [];
  let busy = 0;
  const started = performance.now();
  const deadline = o.durationMs ? started + o.durationMs : Infinity;
  const maxCalls = o.callsPerClient ?? Infinity;
  try {
    await Promise.all(
      clients.map(async ({ kind, client }, seed) => {
        for (let step = 0; step < maxCalls && performance.now() < deadline; step++) {
          const c = call(step, o, seed);
          const t0 = performance.now();
          let closed = false;
          // the time of a call is the caller's: from the first try to the answer, retries after `busy` included
          for (let attempt = 0; ; attempt++) {
            try {
              const r = (await client.callTool(c)) as { isError?: boolean; content?: { text?: string }[] };
              if (r.isError) errors.push(`${kind} ${c.name} ${JSON.stringify(c.arguments)}: ${JSON.stringify(r.content).slice(0, 300)}`);
            } catch (err) {
              const wait = busyHint(err);
              if (wait !== null && attempt < MAX_BUSY_RETRIES) {
                busy++;
                await new Promise((r) => setTimeout(r, wait));
                continue;
              }
              closed = isClosed(err);
              const shim = closed ? (client as { stderr?: () => string }).stderr?.() : undefined;
              errors.push(`${kind} ${c.name} ${JSON.stringify(c.arguments)}: ${(err as Error).message}${shim ? ` (shim stderr: ${shim})` : ''}`);
            }
            break;
          }
          const ms = performance.now() - t0;
          const list = times.get(c.name) ?? [];
          list.push(ms);
          if (step === 0) {
            first.push(ms);
            firstByKind[kind] = Math.max(firstByKind[kind] ?? 0, round(ms));
          }
          else if (c.name === 'search') searchesAfter.push(ms);
          times.set(c.name, list);
          perKind[kind] = (perKind[kind] ?? 0) + 1;
          if (closed) break;
        }
      }),
    );
  } finally {
    await Promise.allSettled(clients.map((c) => c.client.close()));
  }
  const perTool: LoadOutcome['perTool'] = {};
  for (const [tool, list] of times) {
    const sorted = [...list].sort((a, b) => a - b);
    perTool[tool] = { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1] ?? 0) };
  }
  first.sort((a, b) => a - b);
  searchesAfter.sort((a, b) => a - b);
  const firstCalls = { n: first.length, p50: round(percentile(first, 50)), max: round(first[first.length - 1] ?? 0), searchP99After: round(percentile(searchesAfter, 99)), maxByKind: firstByKind };
  return { calls: [...times.values()].reduce((n, l) => n + l.length, 0), errors, busy, perTool, firstCalls, perKind, wallMs: Math.round(performance.now() - started) };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
