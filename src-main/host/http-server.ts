// The host's loopback HTTP server: 127.0.0.1 (and ::1 on the same port when the machine has
// IPv6), a preferred port with a fallback when it is busy, guards in front of every route, then
// the route handlers in order, then 404.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { RefusalLog } from '../mcp/security/refusals.js';
import { hostAllowed, originAllowed } from './request-guards.js';
import type { RouteHandler } from './routes.js';

export interface LoopbackServerOptions {
  /** Preferred port; 0 picks any free one. */
  port: number;
  /** Try this many ports after the preferred one before letting the OS choose. */
  fallbackAttempts?: number;
  allowedOrigins?: readonly string[];
  /** Where refused requests are logged (default: stderr). */
  refusals?: RefusalLog;
  /** A client must send its headers within this (default 10 s) and its whole request within requestTimeoutMs (default 60 s): slow-drip clients are cut off. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface LoopbackServer {
  readonly port: number;
  /** Routes can be added after listening (the UI mounts once it knows the port). */
  addRoute(route: RouteHandler): void;
  close(): Promise<void>;
}

export async function startLoopbackServer(opts: LoopbackServerOptions): Promise<LoopbackServer> {
  const routes: RouteHandler[] = [];
  const refusals = opts.refusals ?? new RefusalLog();
  let port = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => void dispatch(req, res);
  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (!hostAllowed(req, port)) {
        refusals.refused(req, 403, 'Host is not a loopback address of this server (DNS rebinding?)');
        return refuse(res, 403, 'Forbidden: the Host header must be a loopback address of this server');
      }
      if (!originAllowed(req, port, opts.allowedOrigins)) {
        refusals.refused(req, 403, 'cross-origin request');
        return refuse(res, 403, 'Forbidden: cross-origin requests are not accepted');
      }
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      for (const route of routes) if (await route(req, res, url)) return;
      refuse(res, 404, 'Not found');
    } catch (err) {
      if (req.destroyed && (err as NodeJS.ErrnoException).message === 'aborted') {
        // the client went away mid-request, or a slow-drip body was cut off by the request timeout
        refusals.refused(req, 408, 'request too slow or abandoned');
        return;
      }
      process.stderr.write(`[trove host] ${req.method} ${req.url?.split('?')[0]} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (!res.headersSent) refuse(res, 500, 'Internal server error');
      else res.end();
    }
  }

  const serverOptions: http.ServerOptions = {
    headersTimeout: opts.headersTimeoutMs ?? 10_000,
    requestTimeout: opts.requestTimeoutMs ?? 60_000,
    // how often node looks for requests past those limits (its default, 30 s, would let a slow-drip client sit that long)
    connectionsCheckingInterval: Math.max(100, Math.min(5_000, (opts.headersTimeoutMs ?? 10_000) / 2)),
  };
  const onClientError = (err: NodeJS.ErrnoException, socket: Duplex) => {
    // malformed requests, headers over the size limit, and slow-drip requests cut off by the timeouts
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    refusals.refused(null, status, err.code === 'HPE_HEADER_OVERFLOW' ? 'headers too large' : status === 408 ? 'request too slow' : `malformed request (${err.code ?? 'error'})`);
    if (socket.writable) socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  };
  const v4 = http.createServer(serverOptions, handler);
  v4.on('clientError', onClientError);
  port = await listenWithFallback(v4, '127.0.0.1', opts.port, opts.fallbackAttempts ?? 10);
  const servers: Server[] = [v4];
  const v6 = http.createServer(serverOptions, handler);
  v6.on('clientError', onClientError);
  try {
    await listen(v6, '::1', port);
    servers.push(v6);
  } catch {
    /* no IPv6 loopback here, or the port is taken on it: 127.0.0.1 alone is fine */
  }
  for (const s of servers) s.keepAliveTimeout = 65_000; // clients reuse connections; that is most of the latency

  return {
    port,
    addRoute: (route) => void routes.push(route),
    close: () =>
      Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      ).then(() => undefined),
  };
}

async function listenWithFallback(server: Server, host: string, preferred: number, attempts: number): Promise<number> {
  const candidates = preferred === 0 ? [0] : [...Array.from({ length: attempts + 1 }, (_, i) => preferred + i).filter((p) => p <= 65535), 0];
  let lastError: unknown;
  for (const p of candidates) {
    try {
      await listen(server, host, p);
      return (server.address() as AddressInfo).port;
    } catch (err) {
      lastError = err;
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (err as NodeJS.ErrnoException).code !== 'EACCES') throw err;
    }
  }
  throw lastError;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
