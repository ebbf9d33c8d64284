// The engine host: one engine (on the profile's SQLite index or a shared one in PostgreSQL), its MCP
// endpoint at /mcp, /health, /status, and whatever extra routes a face mounts (the desktop app's API and web UI), on a loopback server; then runtime.json so local
// clients can find it. `trove serve` and the desktop app's utility process both run this.
import os from 'node:os';
import { Engine, TroveError, type EngineOptions, type HostEnvironment } from '../engine/index.js';
import { createAuthenticator } from '../mcp/security/auth.js';
import type { RateLimitOptions } from '../mcp/security/rate-limit.js';
import { RefusalLog } from '../mcp/security/refusals.js';
import type { ServerExtension } from '../mcp/server.js';
import type { AdmissionOptions } from '../mcp/transports/admission.js';
import { createMcpHttpEndpoint, type McpHttpEndpoint } from '../mcp/transports/http.js';
import { healthRoute } from './health.js';
import { watchLifecycle } from './lifecycle.js';
import { statusRoute } from './status-route.js';
import { loadHostToken } from './host-token.js';
import { startLoopbackServer } from './http-server.js';
import type { RouteHandler } from './routes.js';
import { processAlive, readRuntimeFile, removeRuntimeFile, writeRuntimeFile, type RuntimeInfo } from './runtime-file.js';

export const DEFAULT_PORT = 7077;

/**
 * The engine options a host runs with: it embeds new and changed chunks in the background (at
 * low priority, pausable with indexing, switchable in Settings) unless the face says not to
 * (`trove serve --no-embed`), takes its WAL checkpoints on a thread of their own and runs its
 * heavy SQLite reads on reader threads, one per core (at most 4). One-shot commands open the
 * engine without these.
 */
export function hostEngineOptions(base: EngineOptions, opts: { embed: boolean; ocr?: boolean }): EngineOptions {
  // hosts read scans in the background too (the Settings switch can still turn it off); `--no-ocr` does not
  return { ...base, embeddings: { ...base.embeddings, auto: opts.embed }, ocr: { ...base.ocr, auto: opts.ocr ?? true }, backgroundCheckpoints: base.backgroundCheckpoints ?? true,
    readerThreads: base.readerThreads ?? Math.min(4, os.availableParallelism()),
  };
}

export interface HostOptions {
  /** An engine the caller owns; otherwise the host opens (and closes) one with engineOptions. */
  engine?: Engine;
  engineOptions?: EngineOptions;
  /** What the face read from the environment (TROVE_PORT, TROVE_TOKEN: see engine/config.ts). */
  env?: HostEnvironment;
  /** Preferred port (`--port`; else env.port, else the saved setting, else 7077); busy → the next free one. 0: any. */
  port?: number;
  /** The full-access bearer token; default env.token or $TROVE_HOME/host-token. */
  token?: string;
  /** Extra routes tried after /health and /mcp (app API, web UI). */
  routes?: RouteHandler[];
  /** Browser origins allowed besides this server's own (none by default). */
  allowedOrigins?: string[];
  /** Write runtime.json (default true). Tests that run several hosts on one profile turn it off. */
  writeRuntimeFile?: boolean;
  rateLimit?: RateLimitOptions;
  maxBodyBytes?: number;
  /** Extra MCP registrations (tests: the conformance suite's named fixtures). */
  mcpExtension?: ServerExtension;
  /** Stateless tools/calls on the fast path (mcp/transports/fast-call.ts); default env.mcpFastCalls, else on. Tests and benches turn it off to A/B. */
  mcpFastCalls?: boolean;
  /** Tool calls in flight at once and how long one may wait before it is answered `busy` (mcp/transports/admission.ts; defaults 6 and 1 s). */
  admission?: AdmissionOptions;
  /** Stop after this long with no clients and no indexing work (hosts the stdio shim starts); default never. */
  idleExitMs?: number;
  /** How often the lifecycle checks run (default 2 s); tests make it shorter. */
  lifecycleCheckMs?: number;
  /** Slow-drip limits (defaults 10 s for the headers, 60 s for the whole request); tests make them shorter. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface Host {
  readonly engine: Engine;
  readonly port: number;
  /** Where the preferred port came from. */
  readonly portSource: PortSource;
  readonly url: string;
  readonly mcpUrl: string;
  readonly token: string;
  readonly mcp: McpHttpEndpoint;
  /** Requests refused at the door, by reason (also logged on stderr). */
  readonly refusals: RefusalLog;
  addRoute(route: RouteHandler): void;
  /** Records the web UI's address in runtime.json. */
  setUiUrl(uiUrl: string): void;
  /** Settles with the reason when the host should shut down by itself (profile folder gone, idle past idleExitMs). */
  readonly stopRequested: Promise<string>;
  close(): Promise<void>;
}

export async function startHost(opts: HostOptions = {}): Promise<Host> {
  if (!opts.engine && !opts.engineOptions) throw new TroveError('INTERNAL', 'startHost needs an engine or the options to open one');
  const engine = opts.engine ?? (await Engine.open(opts.engineOptions!));
  const ownsEngine = !opts.engine;
  const profileDir = engine.profileDir;
  const writesRuntime = opts.writeRuntimeFile ?? true;
  try {
    if (writesRuntime) refuseIfRunning(profileDir);
    const token = opts.token ?? loadHostToken(profileDir, opts.env?.token);
    const refusals = new RefusalLog();
    const authenticate = createAuthenticator(engine, token);
    const mcp = createMcpHttpEndpoint({
      refusals,
      engine,
      authenticate,
      rateLimit: opts.rateLimit,
      maxBodyBytes: opts.maxBodyBytes,
      extend: opts.mcpExtension,
      fastCalls: opts.mcpFastCalls ?? opts.env?.mcpFastCalls ?? true,
      admission: opts.admission,
    });
    const preferred = preferredPort(opts.port, opts.env?.port, engine.settings.savedOrDefaults().port);
    const server = await startLoopbackServer({
      port: preferred.port,
      allowedOrigins: opts.allowedOrigins,
      refusals,
      headersTimeoutMs: opts.headersTimeoutMs,
      requestTimeoutMs: opts.requestTimeoutMs,
    });
    server.addRoute(healthRoute);
    server.addRoute(statusRoute(engine, authenticate));
    server.addRoute(mcp.route);
    for (const r of opts.routes ?? []) server.addRoute(r);

    const url = `http://127.0.0.1:${server.port}`;
    const info: RuntimeInfo = { port: server.port, pid: process.pid, token, mcpUrl: `${url}/mcp`, startedAt: new Date().toISOString() };
    if (writesRuntime) writeRuntimeFile(profileDir, info);
    let requestStop: (reason: string) => void = () => undefined;
    const stopRequested = new Promise<string>((resolve) => (requestStop = resolve));
    const lifecycle = watchLifecycle({
      profileDir,
      idleExitMs: opts.idleExitMs,
      checkEveryMs: opts.lifecycleCheckMs,
      busy: () => {
        const a = mcp.activity();
        return a.open > 0 || a.sessions > 0 || engine.busy();
      },
      lastActivityAt: () => mcp.activity().lastActivityAt,
      onStop: (reason) => {
        process.stderr.write(`trove host: shutting down: ${reason}\n`);
        requestStop(reason);
      },
    });
    let closed = false;
    return {
      engine,
      port: server.port,
      portSource: preferred.source,
      url,
      mcpUrl: info.mcpUrl,
      token,
      mcp,
      refusals,
      addRoute: (r) => server.addRoute(r),
      setUiUrl(uiUrl) {
        info.uiUrl = uiUrl;
        if (writesRuntime) writeRuntimeFile(profileDir, info);
      },
      stopRequested,
      async close() {
        if (closed) return;
        closed = true;
        lifecycle.stop();
        if (writesRuntime) removeRuntimeFile(profileDir);
        await mcp.close();
        await server.close();
        if (ownsEngine) await engine.close();
      },
    };
  } catch (err) {
    if (ownsEngine) await engine.close();
    throw err;
  }
}

/** One host per profile: a second would fight the first over runtime.json and the index. */
function refuseIfRunning(profileDir: string): void {
  const running = readRuntimeFile(profileDir);
  if (running && running.pid !== process.pid && processAlive(running.pid)) {
    throw new TroveError('CONFLICT', `Trove is already serving this profile at ${running.mcpUrl} (pid ${running.pid})`);
  }
}

export type PortSource = 'flag' | 'env' | 'saved' | 'default';

/** Precedence: the caller's port (`--port`) > TROVE_PORT > the saved setting > 7077. */
export function preferredPort(flag: number | undefined, env: number | undefined, saved: number | null): { port: number; source: PortSource } {
  if (flag !== undefined) return { port: flag, source: 'flag' };
  if (env !== undefined) return { port: env, source: 'env' };
  return saved !== null ? { port: saved, source: 'saved' } : { port: DEFAULT_PORT, source: 'default' };
}
