// The host's loopback HTTP server: 127.0.0.1 (and ::1 on the same port when the machine has
// IPv6), a preferred port with a fallback when it is busy, guards in front of every route, then
// the route handlers in order, then 404.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostAllowed, originAllowed } from './request-guards.js';
import type { RouteHandler } from './routes.js';

export interface LoopbackServerOptions {
  /** Preferred port; 0 picks any free one. */
  port: number;
  /** Try this many ports after the preferred one before letting the OS choose. */
  fallbackAttempts?: number;
  allowedOrigins?: readonly string[];
}

export interface LoopbackServer {
  readonly port: number;
  /** Routes can be added after listening (the UI mounts once it knows the port). */
  addRoute(route: RouteHandler): void;
  close(): Promise<void>;
}

export async function startLoopbackServer(opts: LoopbackServerOptions): Promise<LoopbackServer> {
  const routes: RouteHandler[] = [];
  let port = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => void dispatch(req, res);
  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (!hostAllowed(req, port)) return refuse(res, 403, 'Forbidden: the Host header must be a loopback address of this server');
      if (!originAllowed(req, port, opts.allowedOrigins)) return refuse(res, 403, 'Forbidden: cross-origin requests are not accepted');
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      for (const route of routes) if (await route(req, res, url)) return;
      refuse(res, 404, 'Not found');
    } catch (err) {
      process.stderr.write(`[trove host] ${req.method} ${req.url?.split('?')[0]} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (!res.headersSent) refuse(res, 500, 'Internal server error');
      else res.end();
    }
  }

  const v4 = http.createServer(handler);
  port = await listenWithFallback(v4, '127.0.0.1', opts.port, opts.fallbackAttempts ?? 10);
  const servers: Server[] = [v4];
  const v6 = http.createServer(handler);
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
