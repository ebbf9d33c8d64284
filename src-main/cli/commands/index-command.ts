// `trove index [--watch]`: bring the index up to date with the folders (and keep it so), and
// `trove failures`: the files that could not be indexed, with attempts and next retry.
import { type Command } from 'commander';
import { isTroveError, type Engine, type EmbeddingProgress, type IndexProgress, type ProgressEvent, type SharedIndexer } from '../../engine/index.js';
import type { CliContext } from '../context.js';
import { formatIndexReport } from '../format.js';
import { indexProgressBar } from '../progress.js';

export function registerIndexCommand(program: Command, ctx: CliContext): void {
  program
    .command('index')
    .description('bring the index up to date with the folders')
    .option('--collection <name>', 'only this collection')
    .option('--watch', 'then keep watching the folders and index changes as they happen (until Ctrl-C)')
    .option('--database <url>', "index into PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's SQLite index, then embed; several hosts may run at once")
    .option('--no-embed', 'with --database: keyword indexing only, no vectors')
    .action(async (o: { collection?: string; watch?: boolean; database?: string; embed: boolean }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndexer(o.database);
      if (shared) {
        const reports = await runSharedIndex(shared, o.collection, ctx.json);
        const embeddings = o.embed ? await embedShared(shared, reports.map((r) => r.collection)) : [];
        ctx.print({ reports, embeddings }, () =>
          [reports.length ? reports.map(formatIndexReport).join('\n') : 'No collections to index.', ...embeddings.map(formatSharedEmbedding)].join('\n'),
        );
        if (o.watch) await watchUntilSignalled(shared, ctx.json);
        return;
      }
      const engine = await ctx.engine();
      const reports = await runIndex(engine, o.collection, ctx.json);
      ctx.print({ reports }, () => (reports.length ? reports.map(formatIndexReport).join('\n') : 'No collections to index.'));
      if (o.watch) await watchUntilSignalled(engine, ctx.json);
    });

  program
    .command('failures')
    .description('files that could not be indexed: reason, attempts, next retry')
    .option('--collection <name>', 'only this collection')
    .action(async (o: { collection?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const failures = await (await ctx.engine()).failures(o.collection);
      ctx.print({ failures }, () =>
        failures.length
          ? failures
              .map((f) => `${f.collection}/${f.path}: ${f.reason} (${f.attempts} attempt${f.attempts === 1 ? '' : 's'}; ` +
                `${f.nextRetryAt ? `next retry ${f.nextRetryAt}` : 'gave up until the file changes or `trove index`'})`)
              .join('\n')
          : 'No failures.',
      );
    });
}

export async function runIndex(e: Engine, collection: string | undefined, json: boolean, dataset?: string) {
  const bar = indexProgressBar(!json && !!process.stderr.isTTY);
  try {
    return await e.index({ collection, dataset, onProgress: (p) => bar.update(p) });
  } finally {
    bar.stop();
  }
}

/** `trove index --database`: this host's share of the work, with the same progress bar. */
export async function runSharedIndex(indexer: SharedIndexer, collection: string | undefined, json: boolean, dataset?: string) {
  const bar = indexProgressBar(!json && !!process.stderr.isTTY);
  try {
    return await indexer.index({ collection, dataset, onProgress: (p: IndexProgress) => bar.update(p) });
  } finally {
    bar.stop();
  }
}

/** The embedding stage after `trove index --database`; a collection whose model is not on this host is reported, not fatal (its keyword index is done). */
export async function embedShared(indexer: SharedIndexer, collections: readonly string[], opts: { onProgress?: (p: EmbeddingProgress) => void } = {}): Promise<SharedEmbedding[]> {
  const out: SharedEmbedding[] = [];
  for (const collection of collections) {
    try {
      out.push(...(await indexer.embed({ collection, onProgress: opts.onProgress })));
    } catch (err) {
      if (!isTroveError(err) || err.code !== 'UNAVAILABLE') throw err;
      process.stderr.write(`trove: ${collection}: not embedded: ${err.message}\n`);
      out.push({ collection, error: err.message });
    }
  }
  return out;
}

export type SharedEmbedding = Awaited<ReturnType<SharedIndexer['embed']>>[number] | { collection: string; error: string };

export function formatSharedEmbedding(e: SharedEmbedding): string {
  if ('error' in e) return `${e.collection}: not embedded (${e.error})`;
  return `${e.collection}: ${e.embedded} chunk${e.embedded === 1 ? '' : 's'} embedded with ${e.model} by this host${e.pending ? `, ${e.pending} still pending` : ''}`;
}

/**
 * Watches until SIGINT/SIGTERM. Every finished run of changes is reported: a line on stderr, or
 * with --json one JSON progress event per line on stdout.
 */
async function watchUntilSignalled(engine: Pick<Engine, 'onProgress' | 'startWatching' | 'stopWatching'>, json: boolean): Promise<void> {
  const unsubscribe = engine.onProgress((e: ProgressEvent) => {
    if (e.phase !== 'idle' || e.done === 0) return;
    if (json) process.stdout.write(`${JSON.stringify(e)}\n`);
    else process.stderr.write(`trove: ${e.collection}: ${e.done} change${e.done === 1 ? '' : 's'} indexed (${e.at})\n`);
  });
  await engine.startWatching();
  if (!json) process.stderr.write('trove: watching for changes (Ctrl-C to stop)\n');
  await new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  unsubscribe();
  await engine.stopWatching();
}
