// The `trove` command. Exit codes: 0 ok, 1 failed, 2 usage (bad arguments or input).
import { Command, CommanderError, Option } from 'commander';
import { Engine } from '../engine/engine.js';
import { isTroveError } from '../engine/errors.js';
import { formatCollections, formatIndexReport, formatMultiGet, formatSearch, formatStatus } from './format.js';
import { indexProgressBar } from './progress.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

interface GlobalOptions {
  json?: boolean;
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  let engine: Engine | null = null;
  const maxFileBytes = process.env.TROVE_MAX_FILE_BYTES ? Number(process.env.TROVE_MAX_FILE_BYTES) : undefined;
  const openEngine = () => (engine ??= Engine.open({ maxFileBytes }));
  let json = argv.includes('--json');
  const print = (value: unknown, human: () => string) => {
    process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  };

  const program = new Command('trove')
    .description('Local knowledge search for people and their AI assistants')
    .option('--json', 'print one JSON document on stdout')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  const globals = (cmd: Command) => cmd.optsWithGlobals<GlobalOptions>();
  const collect = (v: string, prev: string[] = []) => [...prev, v];
  const integer = (name: string) => (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number (got "${v}")`);
    return n;
  };

  const collection = program.command('collection').description('manage collections (folders that are indexed)');
  collection
    .command('add <dir>')
    .description('add a folder as a collection and index it')
    .option('--name <name>', 'collection name (default: the folder name)')
    .option('--include <glob>', 'index only files matching (repeatable; replaces the defaults)', collect)
    .option('--exclude <glob>', 'skip files matching (repeatable; added to the defaults)', collect)
    .option('--context <text>', 'a note about this collection, shown to assistants')
    .option('--no-index', 'add without indexing now')
    .action(async (dir: string, o: { name?: string; include?: string[]; exclude?: string[]; context?: string; index: boolean }, cmd: Command) => {
      json = !!globals(cmd).json;
      const e = openEngine();
      const added = e.addCollection({ root: dir, name: o.name, include: o.include, exclude: o.exclude, context: o.context });
      const reports = o.index ? await runIndex(e, added.name, json) : [];
      const info = e.listCollections().find((c) => c.name === added.name)!;
      print({ collection: info, index: reports[0] ?? null }, () =>
        [`Added collection "${info.name}" (${info.root})`, ...reports.map(formatIndexReport)].join('\n'),
      );
    });
  collection
    .command('list')
    .description('list collections')
    .action((_o: unknown, cmd: Command) => {
      json = !!globals(cmd).json;
      const list = openEngine().listCollections();
      print({ collections: list }, () => formatCollections(list));
    });
  collection
    .command('rename <old> <new>')
    .description('rename a collection')
    .action((oldName: string, newName: string, _o: unknown, cmd: Command) => {
      json = !!globals(cmd).json;
      const info = openEngine().renameCollection(oldName, newName);
      print({ collection: info }, () => `Renamed "${oldName}" to "${info.name}"`);
    });
  collection
    .command('remove <name>')
    .description('remove a collection from the index (its files are not touched)')
    .action((name: string, _o: unknown, cmd: Command) => {
      json = !!globals(cmd).json;
      openEngine().removeCollection(name);
      print({ removed: name }, () => `Removed collection "${name}" from the index; its files are untouched`);
    });
  collection
    .command('context <name> <text>')
    .description('set the note about a collection that assistants see')
    .action((name: string, text: string, _o: unknown, cmd: Command) => {
      json = !!globals(cmd).json;
      const info = openEngine().setCollectionContext(name, text);
      print({ collection: info }, () => `Context of "${name}" set`);
    });

  program
    .command('index')
    .description('bring the index up to date with the folders')
    .option('--collection <name>', 'only this collection')
    .action(async (o: { collection?: string }, cmd: Command) => {
      json = !!globals(cmd).json;
      const reports = await runIndex(openEngine(), o.collection, json);
      print({ reports }, () => (reports.length ? reports.map(formatIndexReport).join('\n') : 'No collections to index.'));
    });

  program
    .command('search <query...>')
    .description('keyword search (BM25) across collections')
    .option('--collection <name>', 'only this collection (repeatable)', collect)
    .option('--limit <k>', 'results per page', integer('--limit'), 10)
    .option('--offset <n>', 'skip this many results', integer('--offset'), 0)
    .addOption(new Option('--syntax <syntax>', 'how the query is read').choices(['match', 'phrase', 'prefix', 'boolean']).default('match'))
    .addOption(new Option('--mode <mode>', 'retrieval mode').choices(['keyword', 'vector', 'hybrid', 'rerank']).default('keyword'))
    .option('--min-score <x>', 'drop results scoring below x (0..1)', parseFloat)
    .option('--path <glob>', 'only documents whose path matches')
    .option('--kind <kind>', 'only this kind: markdown, text, code, html (repeatable)', collect)
    .option('--tag <tag>', 'only documents with this tag (repeatable; all must match)', collect)
    .option('--since <date>', 'only documents modified on or after this date')
    .option('--until <date>', 'only documents modified on or before this date')
    .option('--snippet-chars <n>', 'snippet length', integer('--snippet-chars'), 300)
    .option('--explain', 'show BM25 scores and which fields matched')
    .action((words: string[], o: Record<string, unknown>, cmd: Command) => {
      json = !!globals(cmd).json;
      if (o.mode !== 'keyword') throw new UsageError(`--mode ${String(o.mode)} needs embeddings, which this build does not have yet; use --mode keyword`);
      const r = openEngine().search({
        query: words.join(' '),
        syntax: o.syntax as 'match',
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
      print(r, () => formatSearch(r));
    });

  program
    .command('get <locator>')
    .description('print a document: path, collection/path, #docid, trove://collection/path, optionally :LINE')
    .option('--from-line <n>', 'first line to print', integer('--from-line'))
    .option('--max-lines <n>', 'print at most this many lines', integer('--max-lines'))
    .option('--line-numbers', 'prefix lines with their numbers')
    .action((locator: string, o: { fromLine?: number; maxLines?: number; lineNumbers?: boolean }, cmd: Command) => {
      json = !!globals(cmd).json;
      const doc = openEngine().get(locator, o);
      print(doc, () => doc.text + (doc.truncated ? `\n[... ${doc.totalLines - doc.toLine} more lines; --from-line ${doc.toLine + 1}]` : ''));
    });

  program
    .command('multi-get <pattern>')
    .description('print several documents: a glob (docs/**/*.md) or a comma-separated list')
    .option('--max-bytes <n>', 'skip documents bigger than this (default 10240)', integer('--max-bytes'))
    .option('--max-lines <n>', 'truncate each document to this many lines', integer('--max-lines'))
    .option('--line-numbers', 'prefix lines with their numbers')
    .action((pattern: string, o: { maxBytes?: number; maxLines?: number; lineNumbers?: boolean }, cmd: Command) => {
      json = !!globals(cmd).json;
      const r = openEngine().multiGet(pattern, o);
      print(r, () => formatMultiGet(r));
    });

  program
    .command('status')
    .description('what is indexed, and what could not be')
    .action((_o: unknown, cmd: Command) => {
      json = !!globals(cmd).json;
      const s = openEngine().status();
      print(s, () => formatStatus(s));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    return reportError(err, json);
  } finally {
    (engine as Engine | null)?.close();
  }
}

async function runIndex(e: Engine, collection: string | undefined, json: boolean) {
  const bar = indexProgressBar(!json && !!process.stderr.isTTY);
  try {
    return await e.index({ collection, onProgress: (p) => bar.update(p) });
  } finally {
    bar.stop();
  }
}

function reportError(err: unknown, json: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT_OK;
    return EXIT_USAGE; // commander already printed the message
  }
  const usage = err instanceof UsageError || (isTroveError(err) && err.code === 'INVALID_INPUT');
  const code = isTroveError(err) ? err.code : usage ? 'USAGE' : 'INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  if (json) process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`trove: ${message}\n`);
  if (!isTroveError(err) && !(err instanceof UsageError) && process.env.TROVE_DEBUG) console.error(err);
  return usage ? EXIT_USAGE : EXIT_FAILED;
}
