// `trove get` and `trove multi-get`: read indexed documents.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { formatMultiGet } from '../format.js';
import { integer } from '../options.js';

export function registerGetCommands(program: Command, ctx: CliContext): void {
  program
    .command('get <locator>')
    .description('print a document: path, collection/path, #docid, trove://collection/path, optionally :LINE')
    .option('--from-line <n>', 'first line to print', integer('--from-line'))
    .option('--max-lines <n>', 'print at most this many lines', integer('--max-lines'))
    .option('--line-numbers', 'prefix lines with their numbers')
    .action(async (locator: string, opts: { fromLine?: number; maxLines?: number; lineNumbers?: boolean }, cmd: Command) => {
      ctx.setJson(cmd);
      const doc = await (await ctx.engine(cmd)).get(locator, opts);
      ctx.print(doc, () => doc.text + (doc.truncated ? `\n[... ${doc.totalLines - doc.toLine} more lines; --from-line ${doc.toLine + 1}]` : ''));
    });

  program
    .command('multi-get <pattern>')
    .description('print several documents: a glob (docs/**/*.md) or a comma-separated list')
    .option('--max-bytes <n>', 'skip documents bigger than this (default 10240)', integer('--max-bytes'))
    .option('--max-lines <n>', 'truncate each document to this many lines', integer('--max-lines'))
    .option('--line-numbers', 'prefix lines with their numbers')
    .action(async (pattern: string, opts: { maxBytes?: number; maxLines?: number; lineNumbers?: boolean }, cmd: Command) => {
      ctx.setJson(cmd);
      const r = await (await ctx.engine(cmd)).multiGet(pattern, opts);
      ctx.print(r, () => formatMultiGet(r));
    });
}
