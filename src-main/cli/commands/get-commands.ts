// `trove get` and `trove multi-get`: read indexed documents (the profile's, or in PostgreSQL with
// --database / TROVE_DATABASE_URL).
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { formatMultiGet } from '../format.js';
import { integer } from '../options.js';

const DATABASE_HELP = "read the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's";

export function registerGetCommands(program: Command, ctx: CliContext): void {
  program
    .command('get <locator>')
    .description('print a document: path, collection/path, #docid, trove://collection/path, optionally :LINE')
    .option('--from-line <n>', 'first line to print', integer('--from-line'))
    .option('--max-lines <n>', 'print at most this many lines', integer('--max-lines'))
    .option('--line-numbers', 'prefix lines with their numbers')
    .option('--database <url>', DATABASE_HELP)
    .action(async (locator: string, o: { fromLine?: number; maxLines?: number; lineNumbers?: boolean; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const { database, ...opts } = o;
      const shared = await ctx.sharedIndex(database);
      const doc = await (shared ?? (await ctx.engine())).get(locator, opts);
      ctx.print(doc, () => doc.text + (doc.truncated ? `\n[... ${doc.totalLines - doc.toLine} more lines; --from-line ${doc.toLine + 1}]` : ''));
    });

  program
    .command('multi-get <pattern>')
    .description('print several documents: a glob (docs/**/*.md) or a comma-separated list')
    .option('--max-bytes <n>', 'skip documents bigger than this (default 10240)', integer('--max-bytes'))
    .option('--max-lines <n>', 'truncate each document to this many lines', integer('--max-lines'))
    .option('--line-numbers', 'prefix lines with their numbers')
    .option('--database <url>', DATABASE_HELP)
    .action(async (pattern: string, o: { maxBytes?: number; maxLines?: number; lineNumbers?: boolean; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const { database, ...opts } = o;
      const shared = await ctx.sharedIndex(database);
      const r = await (shared ?? (await ctx.engine())).multiGet(pattern, opts);
      ctx.print(r, () => formatMultiGet(r));
    });
}
