// The extension point of the host's loopback HTTP server: each face (MCP at /mcp, the app API
// and web UI at /api and /) contributes handlers; the server tries them in order before 404.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Returns true when it handled (answered) the request. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;
