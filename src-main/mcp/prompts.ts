// The `query` prompt: a short guide an assistant can pull in before searching Trove.
import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpContext } from './context.js';
import type { Access } from './security/access.js';

export function registerPrompts(server: McpServer, ctx: McpContext): void {
  server.registerPrompt(
    'query',
    {
      title: 'Search Trove well',
      description: 'How to find things in Trove: which search tool to use, how to write queries, how to read the documents found.',
      argsSchema: promptArgs(ctx),
    },
    async ({ question, collection }) => ({
      description: 'A guide to searching Trove',
      messages: [{ role: 'user', content: { type: 'text', text: await guide(ctx, question, collection) } }],
    }),
  );
}

const argsCache = new WeakMap<McpContext['directory'], WeakMap<Access, ReturnType<typeof buildPromptArgs>>>();

/** One schema per endpoint and caller: the stateless revision builds a server per request, and these schemas cost more to build than the rest of it. */
function promptArgs(ctx: McpContext) {
  let byAccess = argsCache.get(ctx.directory);
  if (!byAccess) argsCache.set(ctx.directory, (byAccess = new WeakMap()));
  let args = byAccess.get(ctx.access);
  if (!args) byAccess.set(ctx.access, (args = buildPromptArgs(ctx)));
  return args;
}

function buildPromptArgs(ctx: McpContext) {
  return z.object({
    question: z.string().optional().describe('What you want to find out'),
    // completable() wraps the inner schema; .optional() must stay outside or completions come back empty
    collection: completable(z.string().describe('Limit the search to this collection'), async (value) =>
      (await ctx.directory.notes()).names(ctx.access).filter((n) => n.toLowerCase().startsWith(value.toLowerCase())),
    ).optional(),
  });
}

async function guide(ctx: McpContext, question?: string, collection?: string): Promise<string> {
  const names = (await ctx.directory.notes()).names(ctx.access);
  const scope = collection ? `Search only the "${collection}" collection (pass collection: "${collection}").` : `Collections: ${names.join(', ') || '(none yet)'}.`;
  return [
    'You can search the user\'s local documents with Trove.',
    scope,
    '',
    'Tools:',
    '- search: keyword (BM25). Fast; best for exact words, names, identifiers, error messages. Use a few distinctive words, not a whole sentence.',
    '  Documents missing some words still rank. Add "quoted phrases" for exact wording.',
    '- vsearch: semantic search by meaning; write a natural-language question. Needs embeddings (status says whether they exist).',
    '- query: hybrid search with reranking; the best results when embeddings exist, the slowest.',
    '- get: read a document by the file or docid (#abc123) from a result; `file.md:120` starts at line 120. Each result has a line: read around it with fromLine = line - 20, maxLines = 80.',
    '- multi_get: read several documents by glob or comma-separated list.',
    '- status: the collections, their context notes and document counts.',
    '',
    'Strategy: start with search; if results are thin, try synonyms or vsearch; open the best 1-3 hits with get before answering;',
    'use minScore 0.3-0.5 to drop weak matches; cite documents by file path.',
    ...(question ? ['', `Question: ${question}`] : []),
  ].join('\n');
}
