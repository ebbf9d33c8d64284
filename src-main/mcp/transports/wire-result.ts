// A tool's CallToolResult as the SDK (2.4.0) puts it on the wire for a stateless 2026-07-28
// tools/call, for the fast path (fast-call.ts) — the same bytes, without the zod walk. What the SDK
// does to a result after the tool's handler, in order (McpServer's tools/call handler, Server's
// tools/call wrapper, the 2026 codec's encodeResult):
//  1. a non-object structuredContent gains a text block with its JSON when no text block exists;
//  2. a result without `content` gains `content: []`;
//  3. the 2026 dispatch result schema parses it — a zod looseObject `{_meta, content,
//     structuredContent, isError}`: those keys first, in that order, then any other key as it
//     came; each content block parsed by its own schema, which keeps only its known keys, in the
//     schema's order (an embedded resource's `name` and `title` are dropped this way);
//  4. `resultType: "complete"` is added unless present, and `_meta` gains the server's identity.
// Trove's tools answer with text and embedded-resource blocks only; a block of any other kind is
// refused (InvalidWireResult), which the fast path answers as the SDK answers a result its schema
// refuses: a JSON-RPC -32602 error (its message names the block rather than quoting zod).
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';

export class InvalidWireResult extends Error {}

type Json = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isPlainObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keys that mark a result as another family's (the SDK leaves such a result's missing content alone). */
const FOREIGN_FAMILY_KEYS = ['task', 'inputRequests', 'requestState'];
const SHAPE_KEYS = ['_meta', 'content', 'structuredContent', 'isError'];

/** The `result` member of the JSON-RPC answer, as the SDK would send it. */
export function wireToolResult(result: unknown, serverInfo: Json): Json {
  if (!isPlainObject(result)) throw new InvalidWireResult('the tool result is not an object');
  let r = appendTextFallback(result);
  if (r.content === undefined && !FOREIGN_FAMILY_KEYS.some((k) => k in r)) r = { ...r, content: [] };
  const out: Json = {};
  if (r._meta !== undefined) {
    if (!isPlainObject(r._meta)) throw new InvalidWireResult('_meta is not an object');
    out._meta = r._meta;
  }
  if (!Array.isArray(r.content)) throw new InvalidWireResult('content is not an array');
  out.content = r.content.map(contentBlock);
  if ('structuredContent' in r) out.structuredContent = r.structuredContent;
  if (r.isError !== undefined) {
    if (typeof r.isError !== 'boolean') throw new InvalidWireResult('isError is not a boolean');
    out.isError = r.isError;
  } else if ('isError' in r) out.isError = undefined;
  for (const key of Object.keys(r)) if (!SHAPE_KEYS.includes(key)) out[key] = r[key];
  if (out.resultType === undefined) out.resultType = 'complete';
  else if (out.resultType !== 'complete') throw new InvalidWireResult(`resultType "${String(out.resultType)}"`);
  const meta = out._meta as Json | undefined;
  if (meta === undefined) out._meta = { [SERVER_INFO_META_KEY]: serverInfo };
  else if (meta[SERVER_INFO_META_KEY] === undefined) out._meta = { ...meta, [SERVER_INFO_META_KEY]: serverInfo };
  return out;
}

function appendTextFallback(result: Json): Json {
  const sc = result.structuredContent;
  if (sc === undefined || isPlainObject(sc)) return result;
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  if (content.some((c) => c?.type === 'text')) return result;
  return { ...result, content: [...content, { type: 'text', text: JSON.stringify(sc) }] };
}

function contentBlock(block: unknown): Json {
  if (!isPlainObject(block)) throw new InvalidWireResult('a content block is not an object');
  if (block.type === 'text') {
    if (typeof block.text !== 'string') throw new InvalidWireResult('a text block has no text');
    return withTail({ type: 'text', text: block.text }, block);
  }
  if (block.type === 'resource') return withTail({ type: 'resource', resource: resourceContents(block.resource) }, block);
  throw new InvalidWireResult(`a content block of type "${String(block.type)}"`);
}

/** TextResourceContents ({uri, mimeType?, _meta?, text}) or, failing that, BlobResourceContents. */
function resourceContents(r: unknown): Json {
  if (!isPlainObject(r) || typeof r.uri !== 'string') throw new InvalidWireResult('an embedded resource has no uri');
  if (r.mimeType !== undefined && typeof r.mimeType !== 'string') throw new InvalidWireResult('an embedded resource has a bad mimeType');
  const out: Json = { uri: r.uri };
  if ('mimeType' in r) out.mimeType = r.mimeType;
  if ('_meta' in r) out._meta = record(r._meta);
  if (typeof r.text === 'string') out.text = r.text;
  else if (typeof r.blob === 'string') out.blob = r.blob;
  else throw new InvalidWireResult('an embedded resource has neither text nor blob');
  return out;
}

/** The optional annotations and _meta every block schema ends with. */
function withTail(out: Json, block: Json): Json {
  if ('annotations' in block) out.annotations = annotations(block.annotations);
  if ('_meta' in block) out._meta = record(block._meta);
  return out;
}

function annotations(a: unknown): unknown {
  if (a === undefined) return undefined;
  if (!isPlainObject(a)) throw new InvalidWireResult('annotations are not an object');
  const out: Json = {};
  for (const key of ['audience', 'priority', 'lastModified']) if (key in a) out[key] = a[key];
  return out;
}

function record(v: unknown): unknown {
  if (v !== undefined && !isPlainObject(v)) throw new InvalidWireResult('_meta is not an object');
  return v;
}
