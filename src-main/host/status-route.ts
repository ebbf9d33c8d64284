// GET /status: the running engine's status report (the object `trove status --json` prints), so
// `trove status` in another process shows what only the host knows — live indexing and embedding
// progress with rate and ETA, and whether it embeds in the background. A bearer token is required;
// a scoped token sees its own collections only, as in the MCP status tool.
import { collectionFilter } from '../mcp/security/access.js';
import type { Authenticator } from '../mcp/security/auth.js';
import type { Engine } from '../engine/index.js';
import type { RouteHandler } from './routes.js';

export function statusRoute(engine: Engine, authenticate: Authenticator): RouteHandler {
  return async (req, res, url) => {
    if (url.pathname !== '/status') return false;
    if (req.method !== 'GET') {
      res.writeHead(405, { Allow: 'GET' }).end();
      return true;
    }
    const access = await authenticate(req);
    if (!access) {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' }).end('{"error":"a bearer token is required"}');
      return true;
    }
    const report = await engine.status({ collections: collectionFilter(access) });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(report));
    return true;
  };
}
