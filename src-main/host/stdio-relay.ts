// `trove mcp`: the stdio server MCP clients spawn. It is a relay, not a second engine: each
// JSON-RPC line from stdin is POSTed to the running host's /mcp (found via runtime.json, started
// when none runs), and every message that comes back — JSON or SSE — is written to stdout as one
// line. Era-agnostic: 2025 sessions get their Mcp-Session-Id and MCP-Protocol-Version headers,
// 2026-07-28 requests get the headers their _meta envelope implies. If the host restarts, the
// shim starts or finds the new one and replays the handshake. Only protocol goes to stdout.
// Requests go out through node:http with a keep-alive agent rather than fetch: the relay's CPU per
// call halved (~0.9–1.2 → ~0.36–0.57 ms, SDK client over stdio; docs/mcp-tools.md).
import http, { type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ensureHost } from './discovery.js';
import type { RuntimeInfo } from './runtime-file.js';

export interface StdioShimOptions {
  profileDir: string;
  /** A named token to use instead of the host's own (a scoped client). */
  token?: string;
  /** The knowledge tools' base64 JSON config, sent as the `config` query parameter of every request. */
  config?: string;
  stdin?: Readable;
  stdout?: Writable;
  serveCommand?: { command: string; args: string[] };
}

/** What the relay reads of the host's answer. */
interface HostAnswer {
  status: number;
  header(name: string): string | undefined;
  body: IncomingMessage;
}

type Message = { jsonrpc: '2.0'; id?: string | number | null; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export async function runStdioShim(opts: StdioShimOptions): Promise<void> {
  const stdout = opts.stdout ?? process.stdout;
  const write = (m: unknown) => void stdout.write(`${JSON.stringify(m)}\n`);
  let host: RuntimeInfo = await ensureHost({ profileDir: opts.profileDir, serveCommand: opts.serveCommand });
  let sessionId: string | undefined;
  let legacyVersion: string | undefined;
  let handshake: { initialize?: Message; initialized?: Message } = {};
  const pending = new Set<Promise<void>>();
  const agent = new http.Agent({ keepAlive: true });
  const endpoint = () => (opts.config ? `${host.mcpUrl}?config=${encodeURIComponent(opts.config)}` : host.mcpUrl);

  async function post(msg: Message): Promise<HostAnswer> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${opts.token ?? host.token}`,
    };
    const claimed = (msg.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_KEY];
    if (typeof claimed === 'string' && msg.method && msg.id !== undefined) {
      headers['MCP-Protocol-Version'] = claimed;
      headers['Mcp-Method'] = msg.method;
      const field = NAME_SOURCE[msg.method];
      const value = field ? msg.params?.[field] : undefined;
      if (typeof value === 'string') headers['Mcp-Name'] = headerValue(value);
    } else {
      if (sessionId) headers['Mcp-Session-Id'] = sessionId;
      if (legacyVersion) headers['MCP-Protocol-Version'] = legacyVersion;
    }
    return send(endpoint(), 'POST', headers, agent, JSON.stringify(msg));
  }

  /** Re-finds (or restarts) the host and, for a 2025 session, replays the handshake silently. */
  async function reconnect(): Promise<void> {
    host = await ensureHost({ profileDir: opts.profileDir, serveCommand: opts.serveCommand });
    sessionId = undefined;
    if (!handshake.initialize) return;
    const res = await post(handshake.initialize);
    sessionId = res.header('mcp-session-id');
    await drain(res, () => undefined);
    if (handshake.initialized) await drain(await post(handshake.initialized), () => undefined);
  }

  async function forward(msg: Message, retried = false): Promise<void> {
    if (msg.method === 'initialize') sessionId = legacyVersion = undefined; // a fresh handshake
    let res: HostAnswer;
    try {
      res = await post(msg);
    } catch (err) {
      if (retried) return answerError(msg, -32000, `Trove host unreachable: ${(err as Error).message}`);
      await reconnect();
      return forward(msg, true);
    }
    if (res.status === 404 && sessionId && !retried) {
      res.body.resume(); // the host restarted and forgot the session
      await reconnect();
      return forward(msg, true);
    }
    if (msg.method === 'initialize') {
      sessionId = res.header('mcp-session-id');
      handshake = { initialize: msg };
    }
    if (msg.method === 'notifications/initialized') handshake.initialized = msg;
    let answered = false;
    await drain(res, (m) => {
      if (msg.method === 'initialize' && isResult(m)) legacyVersion = (m.result as { protocolVersion?: string }).protocolVersion;
      // an HTTP-level refusal (401, 413, 429, …) carries id null: give it the request's id
      if (m.error !== undefined && (m.id === null || m.id === undefined) && msg.id !== undefined) m = { ...m, id: msg.id };
      answered ||= m.id === msg.id;
      write(m);
    });
    if (res.status >= 400 && !answered) answerError(msg, -32000, `Trove host answered HTTP ${res.status}`);
  }

  /** A request the host refused outright (401, 403, 429, …) still gets an answer with its id. */
  function answerError(msg: Message, code: number, message: string): void {
    if (msg.id !== undefined && msg.method) write({ jsonrpc: '2.0', id: msg.id, error: { code, message } });
    else process.stderr.write(`[trove mcp] ${message}\n`);
  }

  async function drain(res: HostAnswer, emit: (m: Message) => void): Promise<void> {
    const type = res.header('content-type') ?? '';
    if (type.includes('text/event-stream')) {
      for await (const data of sseData(res.body)) emit(JSON.parse(data) as Message);
    } else if (type.includes('application/json')) {
      const body = JSON.parse(await text(res.body)) as Message | Message[];
      for (const m of Array.isArray(body) ? body : [body]) emit(m);
    } else {
      res.body.resume();
    }
  }

  const lines = createInterface({ input: opts.stdin ?? process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let msg: Message;
    try {
      msg = JSON.parse(line) as Message;
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line on stdin is not JSON' } });
      continue;
    }
    if (msg === null || typeof msg !== 'object') {
      // null, a number, a string: not a message (found by the fuzzer: `null` crashed the shim)
      write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a line on stdin must be a JSON-RPC message (an object)' } });
      continue;
    }
    // the handshake and notifications keep their order; requests run side by side
    const task = forward(msg).catch((err: unknown) => answerError(msg, -32603, `Trove shim failed: ${(err as Error).message}`));
    if (msg.method === 'initialize' || msg.id === undefined) await task;
    else {
      pending.add(task);
      void task.finally(() => pending.delete(task));
    }
  }
  await Promise.allSettled(pending);
  if (sessionId) {
    const headers = { Authorization: `Bearer ${opts.token ?? host.token}`, 'Mcp-Session-Id': sessionId, ...(legacyVersion ? { 'MCP-Protocol-Version': legacyVersion } : {}) };
    await send(endpoint(), 'DELETE', headers, agent)
      .then((r) => r.body.resume())
      .catch(() => undefined);
  }
  agent.destroy(); // its idle keep-alive sockets would hold the process open
}

/** How long the host may take to start answering (fetch's headers timeout, which the relay used before). */
const HEADERS_TIMEOUT_MS = 300_000;

/**
 * One request to the host on a kept-alive connection; resolves once the answer's headers are in.
 * A kept-alive socket the host closed while idle fails with ECONNRESET on reuse: that is tried
 * once more on a fresh socket, not taken for a host that went away (which would replay a session).
 */
function send(url: string, method: string, headers: Record<string, string>, agent: http.Agent, body?: string, retried = false): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = http.request(url, { method, headers: sized, agent }, (res) => {
      clearTimeout(timer);
      resolve({
        status: res.statusCode ?? 0,
        header: (name) => {
          const v = res.headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        body: res,
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer from the Trove host in ${HEADERS_TIMEOUT_MS / 1000} s`)), HEADERS_TIMEOUT_MS);
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) resolve(send(url, method, headers, agent, body, true));
      else reject(err);
    });
    req.end(body);
  });
}

async function text(body: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function isResult(m: Message): boolean {
  return m.result !== undefined && m.id !== undefined;
}

/** The data of each SSE event; the empty priming events of resumable streams are skipped. */
async function* sseData(body: IncomingMessage): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    const { value, done } = (await chunks.next()) as IteratorResult<Buffer>;
    if (value) buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim()) yield data;
    }
    if (done) return;
  }
}

/** Header values must be visible ASCII; anything else travels in the spec's base64 sentinel form. */
function headerValue(s: string): string {
  const plain = s.length > 0 && s === s.trim() && /^[\x20-\x7e\t]*$/.test(s) && !(s.startsWith('=?base64?') && s.endsWith('?='));
  return plain ? s : `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}
