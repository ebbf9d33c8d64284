// `trove search`: keyword, vector, hybrid or reranked search across collections.
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { formatSearch } from '../format.js';
import { collect, integer } from '../options.js';

export function registerSearchCommand(program: Command, ctx: CliContext): void {
  program
    .command('search <query...>')
    .description('search across collections: keyword (BM25), vector, hybrid or rerank')
    .option('--collection <name>', 'only this collection (repeatable)', collect)
    .option('--limit <k>', 'results per page', integer('--limit'), 10)
    .option('--offset <n>', 'skip this many results', integer('--offset'), 0)
    .addOption(new Option('--syntax <syntax>', 'how the query is read').choices(['match', 'phrase', 'prefix', 'boolean']).default('match'))
    .addOption(new Option('--mode <mode>', 'retrieval mode').choices(['keyword', 'vector', 'hybrid', 'rerank']).default('keyword'))
    .option('--min-score <x>', 'drop results scoring below x (0..1)', parseFloat)
    .option('--path <glob>', 'only documents whose path matches')
    .option('--kind <kind>', 'only this kind: markdown, text, code, html, pdf, docx, pptx, xlsx, odt, odp, ods, epub, rtf, email (repeatable)', collect)
    .option('--tag <tag>', 'only documents with this tag (repeatable; all must match)', collect)
    .option('--since <date>', 'only documents modified on or after this date')
    .option('--until <date>', 'only documents modified on or before this date')
    .option('--snippet-chars <n>', 'snippet length', integer('--snippet-chars'), 300)
    .option('--explain', 'show each leg\'s rank and score (BM25, cosine, fusion, rerank)')
    .option('--database <url>', 'search the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile\'s')
    .addOption(new Option('--color <when>', 'mark the query\'s words in snippets: auto (when the output is a terminal), always, never').choices(['auto', 'always', 'never']).default('auto'))
    .action(async (words: string[], o: Record<string, unknown>, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndex(o.database as string | undefined);
      const r = await (shared ?? (await ctx.engine())).search({
        query: words.join(' '),
        syntax: o.syntax as 'match',
        mode: o.mode as 'keyword' | 'vector' | 'hybrid' | 'rerank',
        limit: o.limit as number,
        offset: o.offset as number,
        minScore: o.minScore as number | undefined,
        collections: o.collection as string[] | undefined,
        path: o.path as string | undefined,
        kinds: o.kind as string[] | undefined,
        tags: o.tag as string[] | undefined,
        modifiedAfter: o.since as string | undefined,
        modifiedBefore: o.until as string | undefined,
        snippetChars: o.snippetChars as number,
        explain: !!o.explain,
      });
      // what a semantic mode skipped and why (no vectors yet, no reranker); in --json it is in the document
      if (!ctx.json) for (const n of r.notices ?? []) process.stderr.write(`note: ${n}\n`);
      const color = o.color === 'always' || (o.color === 'auto' && !!process.stdout.isTTY);
      ctx.print(r, () => formatSearch(r, { color }));
    });
}
