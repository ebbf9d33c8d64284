// `trove collection add|list|rename|remove|context|redaction|ocr-languages`, on the profile's index or (with
// --database) on a shared one in PostgreSQL.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { UsageError } from '../options.js';
import { formatCollections, formatEmbedding, formatIndexReport } from '../format.js';
import { collect } from '../options.js';
import { embedAfterIndex, ocrAfterIndex, runIndex } from './index-command.js';

/** `eng,deu` → ['eng', 'deu'] (the engine checks each code). */
function languageList(value: string): string[] {
  const codes = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!codes.length) throw new UsageError('name at least one OCR language (e.g. eng or eng,deu)');
  return codes;
}

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
    .option('--embed', 'after indexing, compute its embeddings now (hosts do this in the background by themselves)')
    .option('--no-embed', 'keyword index only (the default; kept for scripts written when PostgreSQL embedded by default)')
    .option('--no-ocr', 'do not read scanned pages and images now (they are indexed by name and text layer; a host reads them later)')
    .option('--ocr-languages <codes>', 'languages its scans are in, comma-separated Tesseract codes (default eng; e.g. eng,deu)', languageList)
    .action(
      async (
        dir: string,
        o: { name?: string; include?: string[]; exclude?: string[]; context?: string; index: boolean; embed?: boolean; ocr: boolean; ocrLanguages?: string[] },
        cmd: Command,
      ) => {
        ctx.setJson(cmd);
        const e = await ctx.engine(cmd);
        const added = await e.addCollection({ root: dir, name: o.name, include: o.include, exclude: o.exclude, context: o.context, ocrLanguages: o.ocrLanguages });
        const reports = o.index ? await runIndex(e, added.name, ctx.json) : [];
        const ocr = o.index && o.ocr ? await ocrAfterIndex(e, added.name, ctx.json) : [];
        const embeddings = o.index && o.embed ? await embedAfterIndex(e, [added.name], ctx.json) : [];
        const info = (await e.listCollections()).find((c) => c.name === added.name) ?? added;
        ctx.print({ collection: info, index: reports[0] ?? null, ...(ocr.length ? { ocr: ocr[0] } : {}), ...(o.embed ? { embedding: embeddings[0] ?? null } : {}) }, () =>
          [`Added collection "${info.name}" (${info.root})`, ...reports.map(formatIndexReport), ...ocr.map((s) => s.summary), ...embeddings.map(formatEmbedding)].join('\n'),
        );
      },
    );
  collection
    .command('list')
    .description('list collections')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const list = await (await ctx.engine(cmd)).listCollections();
      ctx.print({ collections: list }, () => formatCollections(list));
    });
  collection
    .command('rename <old> <new>')
    .description('rename a collection')
    .action(async (oldName: string, newName: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const info = await (await ctx.engine(cmd)).renameCollection(oldName, newName);
      ctx.print({ collection: info }, () => `Renamed "${oldName}" to "${info.name}"`);
    });
  collection
    .command('remove <name>')
    .description('remove a collection from the index (its files are not touched)')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      await (await ctx.engine(cmd)).removeCollection(name);
      ctx.print({ removed: name }, () => `Removed collection "${name}" from the index; its files are untouched`);
    });
  collection
    .command('redaction <name> <on|off|default>')
    .description("secret redaction in what assistants and the UI get from this collection: on, off, or as in Settings (default)")
    .action(async (name: string, value: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const map: Record<string, boolean | null> = { on: true, off: false, default: null };
      if (!Object.hasOwn(map, value)) throw new UsageError(`redaction is on, off or default (got "${value}")`);
      const info = await (await ctx.engine(cmd)).setCollectionRedaction(name, map[value]!);
      ctx.print({ collection: info }, () => `Secret redaction for "${name}": ${value === 'default' ? 'as in Settings' : value}`);
    });
  collection
    .command('ocr-languages <name> <codes>')
    .description('the languages OCR reads this collection\'s scans in: comma-separated Tesseract codes (eng,deu), or "default" (English); its scans are read again')
    .action(async (name: string, codes: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const info = await (await ctx.engine(cmd)).setCollectionOcrLanguages(name, codes === 'default' ? null : languageList(codes));
      ctx.print({ collection: info }, () => `OCR languages of "${name}": ${info.ocrLanguages.join(', ')} (its scans are read again by \`trove index\` or a running host)`);
    });
  collection
    .command('context <name> <text>')
    .description('set the note about a collection that assistants see')
    .action(async (name: string, text: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const info = await (await ctx.engine(cmd)).setCollectionContext(name, text);
      ctx.print({ collection: info }, () => `Context of "${name}" set`);
    });
}
