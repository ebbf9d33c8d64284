// GET /health: answers without a token and says nothing but that the host is up (no version,
// no paths, no counts), so it is safe for liveness probes and the stdio shim.
import type { RouteHandler } from './routes.js';

export const healthRoute: RouteHandler = (req, res, url) => {
  if (url.pathname !== '/health') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return true;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : '{"status":"ok"}');
  return true;
};
