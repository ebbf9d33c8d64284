// The fast path of the hot call: a stateless 2026-07-28 `tools/call` of one of Trove's own tools,
// answered without the SDK's per-request server, transport and web Request/Response — the same
// answer, byte for byte (test/mcp/fast-call.test.ts holds it to that against the SDK path).
// Measured (docs/mcp-tools.md "The floor of one call"): those layers were about half of the
// server's time for a call that does little.
//
// It takes only the well-formed request: the classifier's modern route for tools/call on
// 2026-07-28, params of `name`, `arguments` and an envelope-only `_meta` (protocol version, client
// info and capabilities, log level — the Inspector sends one), and the three standard
// headers present and agreeing with the body (the Mcp-Name header plain, not a base64 sentinel).
// Those are the requests the SDK's entry checks (version, envelope, header cross-checks, required
// client capabilities — none for tools/call) would all let through; anything else — a bad or
// missing header, a progress token, an extension's tool, a tool this caller may not use (the
// SDK's "not found"), a scope challenge, a schema declaring x-mcp-header parameters — is left to
// the SDK path (fastCallOf returns undefined, or answer() returns false before anything ran).
//
// Then it does what McpServer's tools/call handler does: the tool's registration for this caller
// (the same registerTools and redaction wrapper the SDK's server gets), its zod input schema
// (Standard Schema validate, the SDK's issue format), the handler, the output-schema check of
// structuredContent (kept: it is what stops a result that breaks the tool's advertised schema,
// and costs ~1 µs per item of a batch answer), errors as isError results; and the SDK's wire
// encoding of the result (wire-result.ts), written once with its Content-Length.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, type AuthInfo, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { redactRegistrations } from '../redaction.js';
import { SERVER_INFO } from '../server.js';
import { canCall, registerTools } from '../tools/index.js';
import { InvalidWireResult, isPlainObject, wireToolResult } from './wire-result.js';

const MODERN_REVISION = '2026-07-28';
/** The envelope keys the SDK lifts out of _meta; a log level only matters to a tool that logs, and none of Trove's does. */
const ENVELOPE_KEYS = new Set<string>([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY]);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);

/** A tools/call the fast path may answer. */
export interface FastCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
  /** The request's _meta: the envelope keys only (what the SDK lifts into ctx.mcpReq.envelope). */
  envelope: Record<string, unknown>;
}

/** The classifier's answer (classifyInboundRequest) as far as the fast path reads it. */
export interface ClassifiedRoute {
  kind: string;
  messageKind?: string;
  message?: unknown;
  classification?: { revision?: string };
}

/** The HTTP OWS trim the SDK applies to the standard headers before comparing them. */
const trimOws = (v: string | undefined) => v?.replace(/^[ \t]+|[ \t]+$/g, '');

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return trimOws(Array.isArray(v) ? v[0] : v);
}

/** The call when this request is one the fast path answers as the SDK would; otherwise undefined. */
export function fastCallOf(req: IncomingMessage, route: ClassifiedRoute): FastCall | undefined {
  if (route.kind !== 'modern' || route.messageKind !== 'request' || route.classification?.revision !== MODERN_REVISION) return undefined;
  const message = route.message as { id?: unknown; method?: unknown; params?: unknown };
  if (message.method !== 'tools/call' || (typeof message.id !== 'string' && typeof message.id !== 'number')) return undefined;
  const params = message.params;
  if (!isPlainObject(params) || Object.keys(params).some((k) => !PARAM_KEYS.has(k))) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  if (!isPlainObject(meta) || Object.keys(meta).some((k) => !ENVELOPE_KEYS.has(k))) return undefined;
  if (header(req, 'mcp-protocol-version') !== MODERN_REVISION || header(req, 'mcp-method') !== 'tools/call') return undefined;
  const nameHeader = header(req, 'mcp-name');
  if (nameHeader !== name || nameHeader.startsWith('=?base64?')) return undefined;
  return { id: message.id, name, args, envelope: meta };
}

type ToolCallback = (...a: unknown[]) => unknown;
interface Registration {
  config: { inputSchema?: unknown; outputSchema?: unknown; scopeChallenge?: unknown };
  callback: ToolCallback;
}
type Schema = z.ZodType & { '~standard': { validate(v: unknown): unknown; jsonSchema?: { input(o: { target: string }): unknown } } };

/** Schemas as McpServer normalises them (a raw zod shape becomes z.object), made once per shape. */
const normalised = new WeakMap<object, Schema>();
function schemaOf(s: unknown): Schema | undefined {
  if (s === undefined || s === null || typeof s !== 'object') return undefined;
  let schema = normalised.get(s);
  if (!schema) normalised.set(s, (schema = ('~standard' in s ? s : z.object(s as z.ZodRawShape)) as Schema));
  return schema;
}

/** Whether an input schema declares x-mcp-header parameters (checked by the SDK's entry: left to it). */
const declaresHeaders = new WeakMap<object, boolean>();
function declaresParamHeaders(schema: Schema): boolean {
  let found = declaresHeaders.get(schema);
  if (found === undefined) {
    const json = schema['~standard'].jsonSchema?.input({ target: 'draft-2020-12' });
    declaresHeaders.set(schema, (found = JSON.stringify(json ?? z.toJSONSchema(schema)).includes('x-mcp-header')));
  }
  return found;
}

/** The tool's registration for this caller: Trove's registerTools and the redaction wrapper, on a registrar that keeps it. */
function registrationFor(ctx: McpContext, tool: string): Registration | undefined {
  let found: Registration | undefined;
  const registrar = {
    registerTool(name: string, config: Registration['config'], callback: ToolCallback) {
      if (name === tool) found = { config, callback };
    },
    registerResource() {},
  };
  redactRegistrations(registrar as unknown as McpServer, (v) => ctx.engine.settings.redact(v));
  registerTools(registrar as unknown as McpServer, ctx, tool);
  return found;
}

/** What the SDK's issue list says (its validateStandardSchema: "path: message", comma-joined). */
function issuesText(issues: readonly { message: string; path?: readonly unknown[] }[]): string {
  return issues
    .map((i) => (i.path?.length ? `${i.path.map((p) => String(typeof p === 'object' && p !== null ? (p as { key: unknown }).key : p)).join('.')}: ${i.message}` : i.message))
    .join(', ');
}

async function validate(schema: Schema, value: unknown): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const r = (await schema['~standard'].validate(value)) as { value?: unknown; issues?: { message: string; path?: unknown[] }[] };
  return r.issues && r.issues.length > 0 ? { ok: false, error: issuesText(r.issues) } : { ok: true, value: r.value };
}

const unavailable = (what: string) => () => {
  throw new Error(`${what} is not available to a tool on the fast tools/call path`);
};

export class FastToolCalls {
  /** Calls answered here (tests prove with it which path answered). */
  answered = 0;
  private closed = false;
  /** Calls under way, aborted when the endpoint closes (as the SDK's handler closes its servers). */
  private readonly inFlight = new Set<AbortController>();
  /** @param contextFor the caller's McpContext, as the SDK path's server factory builds it. */
  constructor(private readonly contextFor: (auth: AuthInfo) => McpContext) {}

  /** From now on every call goes to the SDK path (which refuses it once closed); calls under way are aborted. */
  close(): void {
    this.closed = true;
    for (const a of this.inFlight) a.abort();
  }

  /** Answers the call and returns true, or returns false having done nothing (the SDK path answers it). */
  async answer(res: ServerResponse, call: FastCall, auth: AuthInfo): Promise<boolean> {
    if (this.closed) return false;
    const ctx = this.contextFor(auth);
    if (!canCall(ctx, call.name)) return false;
    const tool = registrationFor(ctx, call.name);
    if (!tool || tool.config.scopeChallenge !== undefined) return false;
    const input = schemaOf(tool.config.inputSchema);
    if (input && declaresParamHeaders(input)) return false;

    const abort = new AbortController();
    this.inFlight.add(abort);
    let done = false;
    res.once('close', () => {
      if (!done) abort.abort();
    });
    const extra = {
      sessionId: undefined,
      mcpReq: {
        id: call.id,
        method: 'tools/call',
        _meta: undefined,
        envelope: call.envelope,
        requestState: () => undefined,
        signal: abort.signal,
        send: unavailable('ctx.mcpReq.send'),
        notify: unavailable('ctx.mcpReq.notify'),
        log: unavailable('ctx.mcpReq.log'),
        elicitInput: unavailable('ctx.mcpReq.elicitInput'),
        requestSampling: unavailable('ctx.mcpReq.requestSampling'),
      },
      http: { authInfo: auth },
    } as unknown as ServerContext;

    let result: unknown;
    try {
      if (input) {
        const parsed = await validate(input, call.args ?? {});
        if (!parsed.ok) throw new Error(`Input validation error: Invalid arguments for tool ${call.name}: ${parsed.error}`);
        result = await tool.callback(parsed.value, extra);
      } else result = await tool.callback(extra);
      await this.checkOutput(tool, result, call.name);
    } catch (err) {
      result = { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
    }
    done = true;
    this.inFlight.delete(abort);
    if (abort.signal.aborted || res.destroyed) {
      this.answered++;
      return true; // the client went away; the SDK path drops the answer too
    }

    let body: string;
    try {
      body = JSON.stringify({ result: wireToolResult(result, { ...SERVER_INFO }), jsonrpc: '2.0', id: call.id });
    } catch (err) {
      // a result that cannot be written still answers the call, with its id
      body = JSON.stringify(
        err instanceof InvalidWireResult
          ? { jsonrpc: '2.0', id: call.id, error: { code: -32602, message: `Invalid tools/call result: ${err.message}` } }
          : { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: `Internal error: ${(err as Error).message}` } },
      );
    }
    this.answered++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
    return true;
  }

  /** McpServer.validateToolOutput: an error result or a tool without an output schema passes. */
  private async checkOutput(tool: Registration, result: unknown, name: string): Promise<void> {
    const output = schemaOf(tool.config.outputSchema);
    const r = result as { isError?: unknown; structuredContent?: unknown };
    if (!output || r.isError) return;
    if (r.structuredContent === undefined) throw new Error(`Output validation error: Tool ${name} has an output schema but no structured content was provided`);
    const parsed = await validate(output, r.structuredContent);
    if (!parsed.ok) throw new Error(`Output validation error: Invalid structured content for tool ${name}: ${parsed.error}`);
  }
}
