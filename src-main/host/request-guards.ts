// DNS-rebinding protection for everything the host serves: the Host header must name a loopback
// address with the port we listen on, and an Origin, when a browser sends one, must be this very
// server (the web UI) or one the user allowed. No CORS headers are ever sent.
import type { IncomingMessage } from 'node:http';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function hostAllowed(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host;
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!m) return false;
  return LOOPBACK.has(m[1]!) && Number(m[2] ?? 80) === port;
}

export function originAllowed(req: IncomingMessage, port: number, extra: readonly string[] = []): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser (MCP clients, curl, the shim)
  if (extra.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the literal "null" of sandboxed frames and file:// pages
  }
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname) && Number(url.port || 80) === port;
}
