// `trove memory list|search|export|import`: the agent memory store from the terminal. Export writes
// JSON lines (one entry each, images included) so a person can back memory up or move it to
// another machine; import reads them back, checks every line first and skips entries already there.
// With --database (or TROVE_DATABASE_URL) it works on the memory of an index in PostgreSQL, so
// `trove memory export` from a profile and `trove memory import --database …` move memory there.
import fs from 'node:fs';
import readline from 'node:readline';
import { type Command, Option } from 'commander';
import type { MemoryApi, MemoryEntry, MemorySearchResponse, MemoryThread } from '../../engine/index.js';
import type { CliContext } from '../context.js';
import { collect, integer, UsageError } from '../options.js';

/** The memory of the index the command works on. */
async function memoryOf(ctx: CliContext, cmd: Command): Promise<MemoryApi> {
  return (await ctx.engine(cmd)).memory;
}

export function registerMemoryCommand(program: Command, ctx: CliContext): void {
  const memory = program.command('memory').description('the agent memory store: threads of notes assistants stored');

  memory
    .command('list')
    .description('threads with their entry counts; with --thread, that thread\'s entries (newest first)')
    .option('--thread <id>', 'list the entries of this thread')
    .option('--limit <n>', 'entries per page (with --thread)', integer('--limit'), 30)
    .option('--offset <n>', 'skip this many entries (with --thread)', integer('--offset'), 0)
    .action(async (o: { thread?: string; limit: number; offset: number}, cmd: Command) => {
      ctx.setJson(cmd);
      const m = await memoryOf(ctx, cmd);
      if (o.thread === undefined) {
        const threads = await m.threads();
        ctx.print(threads, () => formatThreads(threads));
        return;
      }
      const page = await m.list({ threadId: o.thread, limit: o.limit, offset: o.offset });
      ctx.print(page, () =>
        page.entries.length
          ? [`${page.total} entries in thread "${o.thread}"${page.hasMore ? ` (showing ${o.offset + 1}–${o.offset + page.entries.length})` : ''}:`, ...page.entries.map(formatEntry)].join('\n')
          : `No entries in thread "${o.thread}".`,
      );
    });

  memory
    .command('search <query...>')
    .description('search memory: keyword (BM25), vector, hybrid or rerank, with filters')
    .addOption(new Option('--mode <mode>', 'retrieval mode').choices(['keyword', 'vector', 'hybrid', 'rerank']).default('keyword'))
    .addOption(new Option('--syntax <syntax>', 'how the query is read').choices(['match', 'phrase', 'prefix', 'boolean']).default('match'))
    .option('--thread <id>', 'only this thread')
    .addOption(new Option('--source <source>', 'only entries from').choices(['user', 'agent']))
    .option('--tag <tag>', 'entries with any of these tags (repeatable)', collect)
    .option('--since <date>', 'created on or after (ISO 8601)')
    .option('--until <date>', 'created on or before (ISO 8601; a date alone: that whole day)')
    .option('--limit <k>', 'results per page', integer('--limit'), 10)
    .option('--offset <n>', 'skip this many results', integer('--offset'), 0)
    .action(async (words: string[], o: Record<string, unknown>, cmd: Command) => {
      ctx.setJson(cmd);
      const r = await (await memoryOf(ctx, cmd)).search({
        query: words.join(' '),
        mode: o.mode as 'keyword',
        syntax: o.syntax as 'match',
        threadId: o.thread as string | undefined,
        source: o.source as 'user' | undefined,
        tags: o.tag as string[] | undefined,
        startDate: o.since as string | undefined,
        endDate: o.until as string | undefined,
        limit: o.limit as number,
        offset: o.offset as number,
      });
      if (!ctx.json) for (const n of r.notices) process.stderr.write(`note: ${n}\n`);
      ctx.print(r, () => formatSearch(r));
    });

  memory
    .command('export')
    .description('write every entry (or one thread\'s) as JSON lines, images included, oldest first')
    .option('--thread <id>', 'only this thread')
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (o: { thread?: string; output?: string }, cmd: Command) => {
      const m = await memoryOf(ctx, cmd);
      // the file holds every conversation's notes: readable by its owner only, like the index
      const out: NodeJS.WritableStream = o.output ? fs.createWriteStream(o.output, { flags: 'wx', mode: 0o600 }) : process.stdout;
      let n = 0;
      for await (const line of m.export({ threadId: o.thread })) {
        if (!out.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
        n++;
      }
      if (o.output) {
        await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())));
        process.stderr.write(`Exported ${n} entries to ${o.output}\n`);
      }
    });

  memory
    .command('import [file]')
    .description('read JSON lines written by export (a file, or stdin); entries already present are skipped')
    .action(async (file: string | undefined, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const m = await memoryOf(ctx, cmd);
      const lines = await readJsonLines(file);
      const report = await m.import(lines);
      ctx.print(report, () => `Imported ${report.imported} entries${report.skipped ? `; skipped ${report.skipped} already present` : ''}.`);
    });
}

/** Each non-blank line parsed; a line that is not JSON is a usage error naming it (nothing is imported). */
async function readJsonLines(file: string | undefined): Promise<unknown[]> {
  if (file !== undefined && file !== '-' && !fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const input = file === undefined || file === '-' ? process.stdin : fs.createReadStream(file);
  const out: unknown[] = [];
  const bad: string[] = [];
  let n = 0;
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    n++;
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      bad.push(`line ${n}: not JSON`);
    }
  }
  if (bad.length) throw new UsageError(`nothing was imported: ${bad.slice(0, 10).join('; ')}${bad.length > 10 ? ` … and ${bad.length - 10} more` : ''}`);
  if (!out.length) throw new UsageError('nothing to import: the input has no entries');
  return out;
}

function formatThreads(threads: MemoryThread[]): string {
  if (!threads.length) return 'Memory is empty. Assistants store entries with the store_context tool.';
  return [`${threads.length} thread${threads.length === 1 ? '' : 's'}:`, ...threads.map((t) => `  ${t.threadId}  ${t.entries} entries  last ${t.lastEntry}${t.multimodal ? `  (${t.multimodal} with images)` : ''}`)].join('\n');
}

function formatEntry(e: MemoryEntry): string {
  const tags = e.tags.length ? `  [${e.tags.join(', ')}]` : '';
  const text = e.text.length > 200 ? `${e.text.slice(0, 200)}…` : e.text;
  return `#${e.id} ${e.createdAt} ${e.source}${tags}${e.images.length ? `  (${e.images.length} images)` : ''}\n    ${text.replace(/\n/g, '\n    ')}`;
}

function formatSearch(r: MemorySearchResponse): string {
  if (!r.hits.length) return `No memory entries found for "${r.query}".`;
  const head = `${r.total}${r.hasMore ? '+' : ''} entries for "${r.query}" (${r.mode}):`;
  return [head, ...r.hits.map((h) => `${h.score.toFixed(2)} #${h.entry.id} ${h.entry.threadId} ${h.entry.createdAt} ${h.entry.source}\n    ${h.snippet.replace(/\n/g, '\n    ')}`)].join('\n');
}
