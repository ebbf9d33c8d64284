// The document resource template trove://{collection}/{+path}: not listed (documents are found
// with the search tools), read with line numbers and the collection's context comment. Each
// segment is URI-encoded; the engine decodes it and refuses anything that would leave the
// collection. An exact path wins; otherwise a unique suffix match (trove://docs/intro.md finds
// guide/intro.md). Completions offer the collection names and paths the caller may see.
// The engine's own sources share the template under names no collection can have:
// trove://~datasets/<id>/<ref> and trove://~memory/<entry id> are read through the knowledge
// room, scoped like everything else.
import { INVALID_PARAMS, ProtocolError, ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { isTroveError, TroveError } from '../engine/index.js';
import type { McpContext } from './context.js';
import { scopeOf } from './knowledge/caller.js';
import { canSeeCollection, collectionFilter } from './security/access.js';
import { displayPath, mimeTypeFor, withContext } from './tools/results.js';

export const DOCUMENT_TEMPLATE = 'trove://{collection}/{+path}';
const MAX_COMPLETIONS = 100;
/** A resource read of a dataset or memory item returns at most this much of it. */
const ITEM_MAX_TOKENS = 50_000;

export function registerDocumentResource(server: McpServer, ctx: McpContext): void {
  server.registerResource(
    'document',
    new ResourceTemplate(DOCUMENT_TEMPLATE, {
      list: undefined,
      complete: {
        collection: (value) => completeCollection(ctx, value),
        path: (value, context) => completePath(ctx, context?.arguments?.collection, value),
      },
    }),
    {
      title: 'Trove document',
      description: 'A document in a Trove collection, line-numbered. Find documents with the search tools; their results carry these URIs.',
      mimeType: 'text/plain',
    },
    async (uri, variables) => {
      const collection = one(variables.collection);
      const path = one(variables.path).split(/[?#]/)[0]!;
      try {
        if (collection.startsWith('~')) return await readKnowledgeItem(ctx, uri.href);
        const [doc, notes] = await Promise.all([readDocument(ctx, collection, path), ctx.directory.notes()]);
        const name = displayPath(doc.collection, doc.path);
        const text = withContext(doc.text, notes.context(doc.collection));
        return { contents: [{ uri: uri.href, name, title: doc.title || name, mimeType: mimeTypeFor(doc.path), text }] };
      } catch (err) {
        if (isTroveError(err) && err.code === 'NOT_FOUND') throw new ResourceNotFoundError(uri.href, `Resource not found: ${err.message}`);
        if (isTroveError(err) && err.code === 'INVALID_INPUT') throw new ProtocolError(INVALID_PARAMS, err.message);
        throw err;
      }
    },
  );
}

/** A dataset or memory item, whole (up to the full retrieval mode's page). */
async function readKnowledgeItem(ctx: McpContext, href: string) {
  const r = await ctx.engine.knowledge.get({ uri: href, retrieval: { mode: 'full', max_tokens: ITEM_MAX_TOKENS } }, scopeOf(ctx.access));
  const name = r.meta.dataset ? `${r.meta.dataset}/${r.meta.path}` : r.meta.path;
  return { contents: [{ uri: href, name, title: r.meta.title || name, mimeType: mimeTypeFor(r.meta.path), text: r.content }] };
}

async function readDocument(ctx: McpContext, collection: string, path: string) {
  const opts = { lineNumbers: true, collections: collectionFilter(ctx.access) };
  try {
    return await ctx.engine.get(`trove://${collection}/${path}`, opts);
  } catch (err) {
    if (!isTroveError(err) || err.code !== 'NOT_FOUND') throw err;
    // exact path missing: a unique suffix match (the URI named the file by its tail)
    const name = safeDecode(collection);
    const tail = `/${safeDecode(path)}`;
    const matches = canSeeCollection(ctx.access, name) ? (await pathsOf(ctx, name)).filter((p) => p.endsWith(tail)) : [];
    if (matches.length === 1) return await ctx.engine.get(`trove://${collection}/${matches[0]!.split('/').map(encodeURIComponent).join('/')}`, opts);
    if (matches.length > 1) {
      throw new TroveError('NOT_FOUND', `"${path}" matches several documents in ${name}: ${matches.slice(0, 10).join(', ')}`, { suggestions: matches.slice(0, 10) });
    }
    throw err;
  }
}

async function completeCollection(ctx: McpContext, value: string): Promise<string[]> {
  const v = value.toLowerCase();
  return (await ctx.directory.notes()).names(ctx.access).filter((n) => n.toLowerCase().startsWith(v)).slice(0, MAX_COMPLETIONS);
}

async function completePath(ctx: McpContext, collection: string | undefined, value: string): Promise<string[]> {
  const names = collection !== undefined ? [collection] : (await ctx.directory.notes()).names(ctx.access);
  const out: string[] = [];
  for (const name of names) {
    if (!canSeeCollection(ctx.access, name)) continue;
    for (const p of await pathsOf(ctx, name)) {
      if (!p.startsWith(value)) continue;
      out.push(p);
      if (out.length >= MAX_COMPLETIONS) return out;
    }
  }
  return out;
}

async function pathsOf(ctx: McpContext, collection: string): Promise<string[]> {
  try {
    return await ctx.engine.documentPaths(collection);
  } catch (err) {
    if (isTroveError(err) && err.code === 'NOT_FOUND') return [];
    throw err;
  }
}

function one(v: string | string[] | undefined): string {
  return Array.isArray(v) ? v.join('/') : (v ?? '');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
