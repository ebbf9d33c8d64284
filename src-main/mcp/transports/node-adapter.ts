// The stateless (2026-07-28) MCP handler on node's req/res: what the SDK's toNodeHandler does,
// for a request whose body the route has already read and parsed, and with a JSON answer
// written in one piece. Measured (bench:mcp-floor, bench:memory) against toNodeHandler, which
// per call re-serialises the parsed body into a web Request (a body nothing downstream reads:
// the handler is given the parsed body), then copies the JSON answer out of its web stream chunk
// by chunk with chunked transfer encoding — a streams round trip per call and a terminating
// chunk after the body. The bytes of the answer are the same; it is framed by Content-Length.
// Anything that is not a complete JSON answer (an SSE stream: progress, notifications) is
// streamed as toNodeHandler streams it, with write backpressure and the client's disconnect
// cancelling the exchange.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

/** The SDK's web-standard face (createMcpHandler's `fetch`). */
export interface FetchMcpHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response>;
}

export type NodeMcpHandler = (req: IncomingMessage, res: ServerResponse, parsedBody: unknown, authInfo: AuthInfo | undefined) => Promise<void>;

export function nodeHandlerFor(handler: FetchMcpHandler, onerror: (err: Error) => void): NodeMcpHandler {
  return async (req, res, parsedBody, authInfo) => {
    let finished = false;
    const abort = new AbortController();
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    if (res.destroyed) abort.abort();
    let response: Response;
    try {
      response = await handler.fetch(headersOnlyRequest(req, abort.signal), { ...(authInfo !== undefined && { authInfo }), parsedBody });
    } catch (err) {
      onerror(err instanceof Error ? err : new Error(String(err)));
      response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: requestIdOf(parsedBody) }, { status: 500 });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    if (response.body === null) {
      finished = true;
      res.writeHead(response.status, headers).end();
      return;
    }
    if (isJson(headers['content-type'])) {
      // a JSON answer is complete when the handler returns it: one write, headers and body
      const body = Buffer.from(await response.arrayBuffer());
      finished = true;
      headers['content-length'] = String(body.length);
      res.writeHead(response.status, headers).end(body);
      return;
    }
    res.writeHead(response.status, headers);
    await streamBody(response.body, res, abort.signal);
    finished = true;
    res.end();
  };
}

/**
 * The web Request the handler reads: method, URL, headers and the abort signal. No body — the
 * handler is always given the parsed one and reads nothing else (createMcpHandler classifies and
 * serves from parsedBody; a Request body would be a copy made only to be dropped).
 */
function headersOnlyRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'content-encoding') continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method ?? 'POST', headers, signal });
}

/** An SSE (or any other) stream, chunk by chunk, waiting for the socket to drain when it is full; a gone client ends it. */
async function streamBody(body: ReadableStream<Uint8Array>, res: ServerResponse, signal: AbortSignal): Promise<void> {
  let drained: (() => void) | undefined;
  const onDrain = () => {
    drained?.();
    drained = undefined;
  };
  res.on('drain', onDrain);
  const closed = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of body) {
      if (signal.aborted) break;
      if (!res.write(chunk)) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), closed]);
    }
  } catch {
    // the stream was aborted upstream; the abort signal has already cancelled the exchange
  } finally {
    res.off('drain', onDrain);
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function requestIdOf(body: unknown): string | number | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}
