// A test-only reverse proxy for the conformance suite, which cannot send headers: it adds the
// bearer token and maps its own loopback address to the server's in Host and Origin (as a port
// forward would). Foreign Host/Origin values pass through untouched, so the DNS-rebinding
// scenario still meets the real guard.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startTokenProxy(target: { port: number; token: string }): Promise<{ url: string; close(): Promise<void> }> {
  let own = 0;
  const rewrite = (v: string | undefined) => v?.replace(new RegExp(`^((?:https?://)?(?:localhost|127\\.0\\.0\\.1|\\[::1\\])):${own}$`), `$1:${target.port}`);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${target.token}` };
    if (headers.host) headers.host = rewrite(headers.host);
    if (typeof headers.origin === 'string') headers.origin = rewrite(headers.origin);
    const upstream = http.request({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  own = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${own}/mcp`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
