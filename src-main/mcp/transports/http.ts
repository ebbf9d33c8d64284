// The MCP endpoint (/mcp) as a host route. One URL serves both protocol generations:
// - 2025-06-18 / 2025-11-25 clients: initialize → Mcp-Session-Id → POST/GET(SSE)/DELETE on a
//   session we keep (the SDK's stateless fallback would answer GET/DELETE with 405);
// - 2026-07-28 clients: no handshake, every request carries its own _meta envelope; the SDK's
//   createMcpHandler builds a server per request.
// The SDK's own classifier (classifyInboundRequest, as its isLegacyRequest uses it) decides which side a POST goes to. Requests are
// authenticated (401), rate limited per token (429) and size-capped (413) before either side.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, isInitializeRequest, isJsonContentType, type AuthInfo } from '@modelcontextprotocol/server';
import type { Engine } from '../../engine/index.js';
import { CollectionDirectory, type McpContext } from '../context.js';
import { clientIdentity, profileFor, type KnowledgeCaller, type RequestFacts } from '../knowledge/caller.js';
import { parseKnowledgeConfig, type KnowledgeDefaults } from '../knowledge/request-config.js';
import { KnowledgeSessions, type ClientIdentity, type SessionLimits } from '../knowledge/session-store.js';
import { FULL_ACCESS, type Access } from '../security/access.js';
import type { Authenticator } from '../security/auth.js';
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimitOptions } from '../security/rate-limit.js';
import { RefusalLog } from '../security/refusals.js';
import { buildMcpServer, type ServerExtension } from '../server.js';
import { Admission, BUSY_ERROR_CODE, type AdmissionOptions, type AdmissionStats } from './admission.js';
import { InMemoryEventStore } from './event-store.js';
import { fastCallOf, FastToolCalls, type ClassifiedRoute } from './fast-call.js';
import { nodeHandlerFor } from './node-adapter.js';
import { clientInfoOf, McpRequestLog } from './request-log.js';

export interface McpHttpOptions {
  /** The SQLite engine, or an index in PostgreSQL. */
  engine: Engine;
  authenticate: Authenticator;
  path?: string;
  maxBodyBytes?: number;
  rateLimit?: RateLimitOptions;
  sessionIdleMs?: number;
  maxSessions?: number;
  extend?: ServerExtension;
  /** How many client requests the live log keeps (default 200). */
  requestLogSize?: number;
  /** Knowledge sessions' TTL and capacity (see knowledge/session-store.ts). */
  knowledgeSessions?: Partial<SessionLimits>;
  /** Where refused requests are logged (the host's log; default stderr). */
  refusals?: RefusalLog;
  /** Answer stateless tools/calls of Trove's own tools on the fast path (transports/fast-call.ts; default true; TROVE_MCP_FAST_CALLS=0 turns it off). */
  fastCalls?: boolean;
  /** Tool calls in flight and how long one may wait for its turn before it is answered `busy` (transports/admission.ts). */
  admission?: AdmissionOptions;
}

/** The endpoint as an HTTP route: true when it answered the request (the host's RouteHandler). */
export type McpRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export interface McpHttpEndpoint {
  route: McpRoute;
  /** Live 2025-era sessions (for status and tests). */
  sessionCount(): number;
  /** The live log of client requests (the Connect screen's). */
  requests: McpRequestLog;
  /** The knowledge tools' sessions (2025 protocol sessions and 2026 handles), for the Connect screen. */
  knowledgeSessions: KnowledgeSessions;
  /** How many stateless tools/calls the fast path answered (transports/fast-call.ts). */
  fastCallCount(): number;
  /** Requests (and SSE streams) open now, live sessions, and when the last request started or ended (a host's idle check). */
  activity(): { open: number; sessions: number; lastActivityAt: number };
  /** Tool calls running and waiting now, and how many were let in or answered busy (transports/admission.ts). */
  admission(): AdmissionStats;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  access: Access;
  lastSeen: number;
  /** From initialize's clientInfo, for the request log and the knowledge tools. */
  client: ClientIdentity | null;
}

export function createMcpHttpEndpoint(opts: McpHttpOptions): McpHttpEndpoint {
  const path = opts.path ?? '/mcp';
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const idleMs = opts.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = opts.maxSessions ?? 256;
  const limiter = new RateLimiter(opts.rateLimit ?? DEFAULT_RATE_LIMIT);
  const directory = new CollectionDirectory(opts.engine);
  const knowledgeSessions = new KnowledgeSessions(opts.knowledgeSessions);
  const contextFor = (access: Access, knowledge: Omit<KnowledgeCaller, 'sessions' | 'profile'>): McpContext => ({
    engine: opts.engine,
    access,
    directory,
    knowledge: { ...knowledge, sessions: knowledgeSessions, profile: profileFor(access, knowledge.client) },
  });
  const sessions = new Map<string, Session>();
  const requests = new McpRequestLog(opts.requestLogSize);
  const dropSession = (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    if (s) knowledgeSessions.end(`mcp:${id}`, s.access.key);
  };
  const refusals = opts.refusals ?? new RefusalLog();
  let open = 0;
  let lastActivityAt = Date.now();

  const modernContext = (auth: AuthInfo | undefined) => {
    const facts = factsOf(auth);
    return contextFor(facts.access, { client: facts.client, protocol: '2026-07-28', initDefaults: {} });
  };
  const reportError = (err: Error) => void process.stderr.write(`[trove mcp] ${err.message}\n`);
  const modern = createMcpHandler((ctx) => buildMcpServer(modernContext(ctx.authInfo), opts.extend, calledTool(ctx.requestInfo)), {
    legacy: 'reject', // 2025 traffic never gets here: it is routed to our sessions below
    onerror: reportError,
  });
  const modernNode = nodeHandlerFor(modern, reportError);
  const fast = opts.fastCalls === false ? undefined : new FastToolCalls(modernContext);
  const admission = new Admission(opts.admission);

  async function handleLegacy(req: IncomingMessage, res: ServerResponse, access: Access, body: unknown): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId && req.method === 'DELETE' && KnowledgeSessions.isHandle(sessionId)) {
      // a stateless client's knowledge session ends the way a 2025 session does
      if (!knowledgeSessions.end(sessionId, access.key)) return jsonRpcError(res, 404, -32001, 'Session not found');
      res.writeHead(200).end();
      return;
    }
    if (sessionId) {
      const s = sessions.get(sessionId);
      // another token's session is answered like an unknown one
      if (!s || s.access.key !== access.key) return jsonRpcError(res, 404, -32001, 'Session not found; initialize again');
      s.lastSeen = Date.now();
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      if (sessions.size >= maxSessions) closeIdlest();
      const params = (body as { params?: { clientInfo?: unknown; config?: unknown } }).params;
      const client = clientIdentity(params?.clientInfo);
      const initDefaults: KnowledgeDefaults = parseKnowledgeConfig(params?.config); // the same keys as ?config, as this session's defaults
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new InMemoryEventStore(),
        retryInterval: 1000,
        onsessioninitialized: (id) => void sessions.set(id, { transport, access, lastSeen: Date.now(), client }),
        onsessionclosed: (id) => dropSession(id),
      });
      transport.onclose = () => {
        if (transport.sessionId) dropSession(transport.sessionId);
      };
      await buildMcpServer(contextFor(access, { client, protocol: '2025', initDefaults }), opts.extend).connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST') return jsonRpcError(res, 400, -32000, 'Bad request: send initialize first, or Mcp-Session-Id');
    return jsonRpcError(res, 400, -32000, 'Bad request: Mcp-Session-Id header is required');
  }

  function closeIdlest(): void {
    const idlest = [...sessions.entries()].sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
    if (idlest) {
      dropSession(idlest[0]);
      void idlest[1].transport.close();
    }
  }

  // clients need not DELETE their session; without a sweep an abandoned one would live forever
  const sweep = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, s] of sessions) {
      if (s.lastSeen < cutoff) {
        dropSession(id);
        void s.transport.close();
      }
    }
  }, Math.min(60_000, idleMs)).unref();

  const route: McpRoute = async (req, res, url) => {
    if (url.pathname !== path) return false;
    open++;
    lastActivityAt = Date.now();
    res.once('close', () => {
      open--;
      lastActivityAt = Date.now();
    });
    const access = await opts.authenticate(req);
    if (!access) {
      refusals.refused(req, 401, req.headers.authorization ? 'unknown, revoked or expired token' : 'no token');
      jsonRpcError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token> (see $TROVE_HOME/runtime.json or `trove token create`)', {
        'WWW-Authenticate': 'Bearer realm="trove"',
      });
      return true;
    }
    if (access !== FULL_ACCESS) {
      const wait = limiter.take(access.key);
      if (wait > 0) {
        refusals.refused(req, 429, `rate limit of token "${access.name}"`);
        jsonRpcError(res, 429, -32000, `Too many requests for token "${access.name}"; retry in ${wait} s`, { 'Retry-After': String(wait) });
        return true;
      }
    }
    opts.engine.clientCalling(); // a client's first burst of calls then finds the reader threads started
    const requestConfig = parseKnowledgeConfig(url.searchParams.get('config') ?? undefined);
    (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfoFor({ access, requestConfig, client: null });
    if (req.method === 'GET' || req.method === 'DELETE') {
      await handleLegacy(req, res, access, undefined);
      return true;
    }
    if (req.method !== 'POST') {
      refusals.refused(req, 405, 'method not allowed');
      jsonRpcError(res, 405, -32000, 'Method not allowed: use POST, GET or DELETE', { Allow: 'GET, POST, DELETE' });
      return true;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      refusals.refused(req, 415, 'not JSON');
      jsonRpcError(res, 415, -32000, 'Unsupported media type: Content-Type must be application/json');
      return true;
    }
    const text = await readBody(req, maxBody);
    if (text === null) {
      refusals.refused(req, 413, 'body too large');
      jsonRpcError(res, 413, -32000, `Payload too large: the limit is ${maxBody} bytes`, { Connection: 'close' });
      return true;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      refusals.refused(req, 400, 'body is not JSON');
      jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      return true;
    }
    const session = sessions.get(header(req, 'mcp-session-id') ?? '');
    const route = classify(req, body);
    const legacy = route.kind === 'legacy';
    const client = legacy ? (session?.access.key === access.key ? session.client : null) : clientIdentity(clientInfoOf(body));
    const auth = authInfoFor({ access, requestConfig, client });
    (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    requests.watch(res, body, { client, token: access.name, protocol: legacy ? '2025' : '2026-07-28' });
    const calls = toolCallIds(body);
    if (calls.length) {
      // a tool call waits its turn (or is answered busy) before either side sees it; its slot is free when its answer is written
      const turn = await admission.admit();
      if (!turn.ok) {
        busyAnswer(res, calls, turn.retryAfterMs);
        return true;
      }
      res.once('close', turn.release);
      if (res.destroyed) {
        turn.release(); // the client left while it waited
        return true;
      }
    }
    if (legacy) await handleLegacy(req, res, access, body);
    else {
      const call = fast && fastCallOf(req, route);
      if (!call || !(await fast!.answer(res, call, auth))) await modernNode(req, res, body, auth);
    }
    return true;
  };

  return {
    route,
    sessionCount: () => sessions.size,
    fastCallCount: () => fast?.answered ?? 0,
    requests,
    knowledgeSessions,
    activity: () => ({ open, sessions: sessions.size, lastActivityAt }),
    admission: () => admission.stats(),
    async close() {
      clearInterval(sweep);
      admission.close();
      fast?.close();
      knowledgeSessions.close();
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((s) => s.transport.close()));
      await modern.close();
    },
  };
}

/** The tool a stateless tools/call names (its Mcp-Name header), so its server registers that one alone. */
function calledTool(req: Request | undefined): string | undefined {
  if (req?.headers.get('mcp-method') !== 'tools/call') return undefined;
  return req.headers.get('mcp-name') ?? undefined;
}

/** The scope, the request's config and the client travel to the server factory and the tools inside AuthInfo; the secret does not. */
function authInfoFor(facts: RequestFacts): AuthInfo {
  return { token: '[redacted]', clientId: facts.access.name, scopes: [], extra: { ...facts } };
}

function factsOf(info: AuthInfo | undefined): RequestFacts {
  const facts = info?.extra as Partial<RequestFacts> | undefined;
  // every request is authenticated before it reaches the handler; no scope here is a bug, and
  // failing closed (no collections, no tools) is the safe answer to it
  return {
    access: facts?.access ?? { key: 'none', name: 'unauthenticated', collections: [], tools: [], memory: 'none' },
    requestConfig: facts?.requestConfig ?? {},
    client: facts?.client ?? null,
  };
}

/**
 * The SDK's classifier for a POST whose body is already parsed (its isLegacyRequest: kind
 * "legacy"), without building a web Request first just to read three headers (~0.2 ms a call).
 * The fast path reads the modern route it returns.
 */
function classify(req: IncomingMessage, body: unknown): ClassifiedRoute {
  return classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header(req, 'mcp-protocol-version'),
    mcpMethodHeader: header(req, 'mcp-method'),
    mcpNameHeader: header(req, 'mcp-name'),
    body,
  }) as ClassifiedRoute;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The body as text, or null when it is over the cap (the rest is drained unread so the 413 arrives). */
function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > max;
    if (over) {
      req.resume();
      resolve(null);
      return;
    }
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The ids of the tools/call requests in a body (one message, or a batch). */
function toolCallIds(body: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    const msg = m as { method?: unknown; id?: unknown } | null;
    if (msg && typeof msg === 'object' && msg.method === 'tools/call' && (typeof msg.id === 'string' || typeof msg.id === 'number')) ids.push(msg.id);
  }
  return ids;
}

/**
 * The `busy` answer (docs/mcp-tools.md "Busy"): HTTP 200 with a JSON-RPC error for each call, so
 * an SDK client raises it as an McpError with the code, and the hint twice — `Retry-After` in whole
 * seconds for HTTP tools, `data.retryAfterMs` for the client.
 */
function busyAnswer(res: ServerResponse, ids: (string | number)[], retryAfterMs: number): void {
  if (res.headersSent || res.destroyed) return void res.end();
  const error = (id: string | number) => ({
    jsonrpc: '2.0',
    id,
    error: { code: BUSY_ERROR_CODE, message: `Trove is busy: too many calls at once; retry in ${retryAfterMs} ms`, data: { busy: true, retryAfterMs } },
  });
  const body = JSON.stringify(ids.length === 1 ? error(ids[0]!) : ids.map(error));
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) });
  res.end(body);
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
