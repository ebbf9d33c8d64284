// The web UI on the host's loopback server: the built renderer (out/renderer) at `/`, the app
// API at POST /api/<method>, its events at GET /api/events (server-sent events), and
// /signin?code=… which trades a one-time code for a session cookie. Every /api request needs
// that session (or a bearer token the host accepts), a loopback Host header (no DNS
// rebinding) and, when the browser sends one, a same-origin Origin (no cross-site calls).
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppApi } from './app-api.js';
import { UiSessions } from './app-api-session.js';
import type { RouteHandler } from './routes.js';

export interface UiRoutesOptions {
  api: AppApi;
  /** The built renderer; default: found next to this module (dist/ or out/main/). */
  rendererDir?: string;
  /** Bearer tokens (besides the session cookie) that may call /api, e.g. the host's own token. */
  acceptsBearer?: (token: string) => boolean;
  sessions?: UiSessions;
}

export interface UiRoutes {
  handlers: RouteHandler[];
  /** A fresh one-time sign-in path, `/signin?code=…`; prefix it with the server's origin. */
  newSignInPath(): string;
  /** Ends open event streams (call before closing the server). */
  close(): void;
}

const MAX_BODY_BYTES = 1024 * 1024;
const HEARTBEAT_MS = 20_000;
const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; connect-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
};

export function createUiRoutes(opts: UiRoutesOptions): UiRoutes {
  const sessions = opts.sessions ?? new UiSessions();
  const rendererDir = opts.rendererDir ?? findRendererDir();
  const streams = new Set<ServerResponse>();

  const authorized = (req: IncomingMessage): boolean => {
    if (sessions.isSignedIn(req)) return true;
    const auth = req.headers.authorization;
    return !!(auth?.startsWith('Bearer ') && opts.acceptsBearer?.(auth.slice(7).trim()));
  };

  const signIn: RouteHandler = (req, res, url) => {
    if (url.pathname !== '/signin') return false;
    if (!isLoopbackHost(req)) return deny(res, 421, 'BAD_HOST', 'this server only answers on 127.0.0.1 or localhost');
    const session = sessions.redeem(url.searchParams.get('code') ?? '');
    if (!session) {
      send(res, 403, 'text/html; charset=utf-8', signInFailedPage());
      return true;
    }
    res.writeHead(303, { location: '/', 'set-cookie': sessions.cookieFor(session), 'cache-control': 'no-store', ...SECURITY_HEADERS });
    res.end();
    return true;
  };

  const api: RouteHandler = async (req, res, url) => {
    if (url.pathname !== '/api' && !url.pathname.startsWith('/api/')) return false;
    if (!isLoopbackHost(req)) return deny(res, 421, 'BAD_HOST', 'this server only answers on 127.0.0.1 or localhost');
    if (!sameOrigin(req)) return deny(res, 403, 'FORBIDDEN', 'cross-origin requests to the app API are refused');
    if (!authorized(req)) return deny(res, 401, 'UNAUTHORIZED', 'not signed in: open the sign-in link that `trove serve --ui` printed');
    const name = decodeURIComponent(url.pathname.slice('/api/'.length));
    if (name === 'events' && req.method === 'GET') {
      openEventStream(res);
      return true;
    }
    if (req.method !== 'POST') return deny(res, 405, 'INVALID_INPUT', `use POST /api/<method> (got ${req.method})`);
    let params: unknown;
    try {
      const body = await readBody(req);
      params = body.trim() ? JSON.parse(body) : {};
    } catch (err) {
      return deny(res, 400, 'INVALID_INPUT', `the request body is not valid JSON: ${(err as Error).message}`);
    }
    // an answered call is 200 whether it succeeded or not (the body says which, with the engine's
    // code), like JSON-RPC: a bad query is an answer, not a transport failure for the browser to log
    const reply = await opts.api.call(name, params);
    send(res, 200, MIME['.json']!, JSON.stringify(reply));
    return true;
  };

  const files: RouteHandler = (req, res, url) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (!rendererDir) {
      if (url.pathname !== '/') return false;
      send(res, 503, 'text/plain; charset=utf-8', 'The Trove UI is not built. Run `npm run build:app` and restart.');
      return true;
    }
    const rel = url.pathname === '/' ? 'index.html' : safeDecode(url.pathname.slice(1));
    if (rel === null) return false;
    const file = path.resolve(rendererDir, rel);
    if (!file.startsWith(rendererDir + path.sep)) return false;
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      return false; // not ours: the server answers 404
    }
    const hashed = rel.startsWith('assets/');
    send(res, 200, MIME[path.extname(file)] ?? 'application/octet-stream', body, hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    return true;
  };

  function openEventStream(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', ...SECURITY_HEADERS });
    res.write(': trove events\n\n');
    streams.add(res);
    const unsubscribe = opts.api.onEvent((e) => res.write(`data: ${JSON.stringify(e)}\n\n`));
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    res.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(res);
    });
  }

  return {
    handlers: [signIn, api, files],
    newSignInPath: () => `/signin?code=${sessions.issueCode()}`,
    close() {
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}

function findRendererDir(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // dist/host/ui-routes.js (tsc) → out/renderer; out/main/*.js and out/main/chunks/*.js (electron-vite) → out/renderer
  for (const dir of [path.resolve(here, '../../out/renderer'), path.resolve(here, '../renderer'), path.resolve(here, '../../renderer')]) {
    if (fs.existsSync(path.join(dir, 'index.html'))) return dir;
  }
  return null;
}

function isLoopbackHost(req: IncomingMessage): boolean {
  const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true; // not a browser cross-site request (same-origin GETs and CLI tools send none)
  return origin === `http://${req.headers.host}`;
}

function deny(res: ServerResponse, status: number, code: string, message: string): true {
  send(res, status, MIME['.json']!, JSON.stringify({ ok: false, error: { code, message } }));
  return true;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, cache = 'no-store'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': cache, ...SECURITY_HEADERS });
  res.end(body);
}

function safeDecode(p: string): string | null {
  try {
    return decodeURIComponent(p);
  } catch {
    return null;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`body is larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function signInFailedPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trove: sign-in link not valid</title></head>
<body><h1>This sign-in link is not valid</h1><p>Each link works once. Restart <code>trove serve --ui</code> or read
<code>uiUrl</code> in the profile's runtime.json for a fresh link.</p></body></html>`;
}
