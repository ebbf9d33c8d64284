// get and multi_get: read indexed documents as embedded resources (uri, name, title, mimeType,
// text with the collection's context comment), QMD-compatible: no line numbers unless asked
// (`lineNumbers: true`), and a line in the locator (`file.md:120`, `file.md:120:40`) wins over
// `fromLine` / `maxLines`, as QMD's own get does.
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { isTroveError } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { collectionFilter } from '../security/access.js';
import { displayPath, errorResult, guarded, mimeTypeFor, withContext } from './results.js';
import { convertedOnce } from './schema-cache.js';

const getInput = convertedOnce(z.object({
  file: z
    .string()
    .trim()
    .min(1, 'file is empty')
    .describe(
      "Path (collection/path or path), docid (#abc123) or trove:// URI; 'file.md:120' starts at line 120, 'file.md:120:40' reads 40 lines from there (both win over fromLine / maxLines)",
    ),
  fromLine: z.number().int().min(1).optional().describe("First line to return (1-based); a line in file ('file.md:120') wins"),
  maxLines: z.number().int().min(1).optional().describe('At most this many lines'),
  lineNumbers: z.boolean().default(false).describe("Prefix lines with 'N: ' (default false)"),
}));

const getOutput = convertedOnce(z.object({
  docid: z.string(),
  file: z.string(),
  uri: z.string(),
  title: z.string(),
  context: z.string(),
  fromLine: z.number().int(),
  toLine: z.number().int(),
  totalLines: z.number().int(),
  truncated: z.boolean().describe('More lines follow; ask again with fromLine'),
  text: z.string(),
}));

const multiGetInput = convertedOnce(z.object({
  pattern: z.string().trim().min(1, 'pattern is empty').describe("Glob ('notes/2025-*.md') or comma-separated list of paths or docids"),
  maxLines: z.number().int().min(1).optional().describe('At most this many lines per document'),
  maxBytes: z.number().int().min(1).default(10_240).describe('Skip documents larger than this (default 10240); read those with get'),
  lineNumbers: z.boolean().default(false).describe("Prefix lines with 'N: ' (default false)"),
}));

const multiGetOutput = convertedOnce(z.object({
  documents: z.array(
    z.object({
      docid: z.string(),
      file: z.string(),
      uri: z.string(),
      title: z.string(),
      text: z.string().optional(),
      truncated: z.boolean().optional(),
      skipped: z.string().optional().describe('Why the text was left out'),
    }),
  ),
  notFound: z.array(z.object({ locator: z.string(), reason: z.string(), suggestions: z.array(z.string()) })),
}));

/** `:LINE` or `:LINE:COUNT` at the end of a locator (not the host part of a bare trove:// URI). */
const LINE_SUFFIX = /:(\d+)(?::(\d+))?$/;

/** The locator without its line suffix, and the lines it names: they win over fromLine / maxLines (QMD's rule). */
export function lineSuffix(file: string, fromLine?: number, maxLines?: number): { file: string; fromLine?: number; maxLines?: number } {
  const m = LINE_SUFFIX.exec(file);
  const rest = m ? file.slice(0, m.index) : file;
  if (!m || !rest || /^trove:\/\/[^/]*$/i.test(rest)) return { file, fromLine, maxLines };
  return { file: rest, fromLine: Number(m[1]), maxLines: m[2] !== undefined ? Number(m[2]) : maxLines };
}

export function registerDocumentTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  if (allowed('get')) {
    server.registerTool(
      'get',
      {
        title: 'Get document',
        description:
          'Read one document by path, docid (#abc123) or trove:// URI, optionally a line range. Use the file or docid from search results. ' +
          'When nothing matches, the error lists similar paths.',
        inputSchema: getInput,
        outputSchema: getOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        guarded('get', async () => {
          const { file, fromLine, maxLines } = lineSuffix(args.file, args.fromLine, args.maxLines);
          let doc;
          try {
            doc = await ctx.engine.get(file, { fromLine, maxLines, lineNumbers: args.lineNumbers, collections: collectionFilter(ctx.access) });
          } catch (err) {
            const missing = qmdNotFound(err, args.file);
            if (missing) return errorResult(missing);
            throw err;
          }
          const notes = await ctx.directory.notes();
          const context = notes.context(doc.collection);
          const name = displayPath(doc.collection, doc.path);
          const text = withContext(doc.text, context);
          const result: CallToolResult = {
            content: [embedded({ uri: doc.uri, name, title: doc.title || name, mimeType: mimeTypeFor(doc.path), text })],
            structuredContent: {
              docid: `#${doc.docid}`,
              file: name,
              uri: doc.uri,
              title: doc.title,
              context,
              fromLine: doc.fromLine,
              toLine: doc.toLine,
              totalLines: doc.totalLines,
              truncated: doc.truncated,
              text: doc.text,
            },
          };
          return result;
        }),
    );
  }

  if (allowed('multi_get')) {
    server.registerTool(
      'multi_get',
      {
        title: 'Get several documents',
        description:
          "Read several documents at once by glob ('journals/2025-05*.md') or a comma-separated list of paths or docids. " +
          'Documents over maxBytes are skipped with a notice (read them with get); notices come first.',
        inputSchema: multiGetInput,
        outputSchema: multiGetOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        guarded('multi_get', async () => {
          const read = ctx.engine.multiGet(args.pattern, {
            maxBytes: args.maxBytes,
            maxLines: args.maxLines,
            lineNumbers: args.lineNumbers,
            collections: collectionFilter(ctx.access),
          });
          const [r, notes] = await Promise.all([read, ctx.directory.notes()]);
          const notices = [
            ...r.notFound.map((n) => `[NOT FOUND: ${n.locator} - ${n.reason}]`),
            ...r.documents
              .filter((d) => d.skipped)
              .map((d) => skippedNotice(displayPath(d.collection, d.path), d.skipped!)),
          ];
          if (!r.documents.length) return errorResult(`No documents matched "${args.pattern}"${notices.length ? `\n${notices.join('\n')}` : ''}`);
          const content: CallToolResult['content'] = notices.length ? [{ type: 'text', text: notices.join('\n') }] : [];
          for (const d of r.documents) {
            if (d.skipped) continue;
            const name = displayPath(d.collection, d.path);
            const text = withContext(d.text ?? '', notes.context(d.collection));
            content.push(embedded({ uri: d.uri, name, title: d.title || name, mimeType: mimeTypeFor(d.path), text }));
          }
          return {
            content,
            structuredContent: {
              documents: r.documents.map((d) => ({
                docid: `#${d.docid}`,
                file: displayPath(d.collection, d.path),
                uri: d.uri,
                title: d.title,
                ...(d.text !== undefined ? { text: d.text, truncated: !!d.truncated } : {}),
                ...(d.skipped ? { skipped: d.skipped } : {}),
              })),
              notFound: r.notFound,
            },
          };
        }),
    );
  }
}

/**
 * QMD's not-found answer for get ("Document not found: <file>", then did-you-mean): the engine's
 * reason stays when it says more than that (a file that was not indexed, and why).
 */
function qmdNotFound(err: unknown, file: string): string | null {
  if (!isTroveError(err) || err.code !== 'NOT_FOUND') return null;
  const why = /^no indexed document at /.test(err.message) ? '' : ` (${err.message})`;
  const suggestions = (err.details?.suggestions as string[] | undefined) ?? [];
  return `Document not found: ${file}${why}${suggestions.length ? `\n\nDid you mean one of these?\n${suggestions.map((s) => `  - ${s}`).join('\n')}` : ''}`;
}

/** QMD's notice for a document over maxBytes ("File too large (15KB)"), naming the get that reads it. */
function skippedNotice(file: string, why: string): string {
  const bytes = /^(\d+) bytes is over maxBytes/.exec(why);
  const reason = bytes ? `File too large (${Math.ceil(Number(bytes[1]) / 1024)}KB)` : why;
  return `[SKIPPED: ${file} - ${reason}. Use 'get' with file="${file}" to retrieve.]`;
}

/** An embedded text resource. name and title go beyond the SDK's type but are what QMD clients read. */
function embedded(r: { uri: string; name: string; title: string; mimeType: string; text: string }): CallToolResult['content'][number] {
  return { type: 'resource', resource: r as { uri: string; mimeType: string; text: string } };
}
