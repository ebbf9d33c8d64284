// `trove collection add|list|rename|remove|context`.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../options.js';
import { formatCollections, formatIndexReport } from '../format.js';
import { collect } from '../options.js';
import { embedShared, formatSharedEmbedding, runIndex, runSharedIndex } from './index-command.js';

const DATABASE = ['--database <url>', "the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's"] as const;

export function registerCollectionCommands(program: Command, ctx: CliContext): void {
  const collection = program.command('collection').description('manage collections (folders that are indexed)');
  collection
    .command('add <dir>')
    .description('add a folder as a collection and index it')
    .option('--name <name>', 'collection name (default: the folder name)')
    .option('--include <glob>', 'index only files matching (repeatable; replaces the defaults)', collect)
    .option('--exclude <glob>', 'skip files matching (repeatable; added to the defaults)', collect)
    .option('--context <text>', 'a note about this collection, shown to assistants')
    .option('--no-index', 'add without indexing now')
    .option(...DATABASE)
    .action(async (dir: string, o: { name?: string; include?: string[]; exclude?: string[]; context?: string; index: boolean; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndexer(o.database);
      if (shared) {
        const added = await shared.addCollection({ root: dir, name: o.name, include: o.include, exclude: o.exclude, context: o.context });
        const reports = o.index ? await runSharedIndex(shared, added.name, ctx.json) : [];
        const embeddings = o.index ? await embedShared(shared, [added.name]) : [];
        const info = o.index ? ((await shared.listCollections()).find((c) => c.name === added.name) ?? added) : added;
        ctx.print({ collection: info, index: reports[0] ?? null, embedding: embeddings[0] ?? null }, () =>
          [`Added collection "${info.name}" (${info.root})`, ...reports.map(formatIndexReport), ...embeddings.map(formatSharedEmbedding)].join('\n'),
        );
        return;
      }
      const e = await ctx.engine();
      const added = await e.addCollection({ root: dir, name: o.name, include: o.include, exclude: o.exclude, context: o.context });
      const reports = o.index ? await runIndex(e, added.name, ctx.json) : [];
      const info = (await e.listCollections()).find((c) => c.name === added.name)!;
      ctx.print({ collection: info, index: reports[0] ?? null }, () =>
        [`Added collection "${info.name}" (${info.root})`, ...reports.map(formatIndexReport)].join('\n'),
      );
    });
  collection
    .command('list')
    .description('list collections')
    .option('--database <url>', "list the collections of the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's")
    .action(async (o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndex(o.database);
      const list = await (shared ?? (await ctx.engine())).listCollections();
      ctx.print({ collections: list }, () => formatCollections(list));
    });
  collection
    .command('rename <old> <new>')
    .description('rename a collection')
    .option(...DATABASE)
    .action(async (oldName: string, newName: string, o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndexer(o.database);
      const info = await (shared ?? (await ctx.engine())).renameCollection(oldName, newName);
      ctx.print({ collection: info }, () => `Renamed "${oldName}" to "${info.name}"`);
    });
  collection
    .command('remove <name>')
    .description('remove a collection from the index (its files are not touched)')
    .option(...DATABASE)
    .action(async (name: string, o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndexer(o.database);
      await (shared ?? (await ctx.engine())).removeCollection(name);
      ctx.print({ removed: name }, () => `Removed collection "${name}" from the index; its files are untouched`);
    });
  collection
    .command('redaction <name> <on|off|default>')
    .description("secret redaction in what assistants and the UI get from this collection: on, off, or as in Settings (default)")
    .action(async (name: string, value: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const map: Record<string, boolean | null> = { on: true, off: false, default: null };
      if (!Object.hasOwn(map, value)) throw new UsageError(`redaction is on, off or default (got "${value}")`);
      const info = await (await ctx.engine()).setCollectionRedaction(name, map[value]!);
      ctx.print({ collection: info }, () => `Secret redaction for "${name}": ${value === 'default' ? 'as in Settings' : value}`);
    });
  collection
    .command('context <name> <text>')
    .description('set the note about a collection that assistants see')
    .action(async (name: string, text: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const info = await (await ctx.engine()).setCollectionContext(name, text);
      ctx.print({ collection: info }, () => `Context of "${name}" set`);
    });
}
