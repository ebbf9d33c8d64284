// `trove index [--watch]`: bring the index up to date with the folders (and keep it so), and
// `trove failures`: the files that could not be indexed, with attempts and next retry. On a shared
// index in PostgreSQL several hosts may run it at once on one folder and share the work.
import { type Command } from 'commander';
import { isTroveError, type CollectionOcrStatus, type Engine, type ProgressEvent } from '../../engine/index.js';
import type { CliContext } from '../context.js';
import { formatEmbedding, formatIndexReport, type EmbeddingOutcome } from '../format.js';
import { indexProgressBar, ocrProgressBar } from '../progress.js';
import { progressLine } from './models-command.js';

export function registerIndexCommand(program: Command, ctx: CliContext): void {
  program
    .command('index')
    .description('bring the index up to date with the folders')
    .option('--collection <name>', 'only this collection')
    .option('--watch', 'then keep watching the folders and index changes as they happen (until Ctrl-C)')
    .option('--embed', 'then compute the embeddings still missing (hosts do this in the background by themselves)')
    .option('--no-embed', 'keyword index only (the default; kept for scripts written when PostgreSQL embedded by default)')
    .option('--no-ocr', 'do not read scanned pages and images now (they are indexed by name and text layer; a host reads them later)')
    .action(async (o: { collection?: string; watch?: boolean; embed?: boolean; ocr: boolean }, cmd: Command) => {
      ctx.setJson(cmd);
      const engine = await ctx.engine(cmd);
      const reports = await runIndex(engine, o.collection, ctx.json);
      // the text of everything first, then the scans (slow): a progress bar of its own
      const ocr = o.ocr ? await ocrAfterIndex(engine, o.collection, ctx.json) : [];
      const embeddings = o.embed ? await embedAfterIndex(engine, reports.map((r) => r.collection), ctx.json) : [];
      ctx.print({ reports, ...(o.ocr ? { ocr } : {}), ...(o.embed ? { embeddings } : {}) }, () =>
        [reports.length ? reports.map(formatIndexReport).join('\n') : 'No collections to index.', ...ocr.map((s) => `${s.collection}: ${s.summary}`), ...embeddings.map(formatEmbedding)].join('\n'),
      );
      if (embeddings.some((e) => 'error' in e)) process.exitCode = 1;
      if (o.watch) await watchUntilSignalled(engine, ctx.json);
    });

  program
    .command('failures')
    .description('files that could not be indexed: reason, attempts, next retry')
    .option('--collection <name>', 'only this collection')
    .action(async (o: { collection?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const failures = await (await ctx.engine(cmd)).failures(o.collection);
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

/** Reads the scanned pages the index run left (every collection, or one), with a progress bar; where each collection's OCR stands. */
export async function ocrAfterIndex(e: Engine, collection: string | undefined, json: boolean): Promise<CollectionOcrStatus[]> {
  const bar = ocrProgressBar(!json && !!process.stderr.isTTY);
  try {
    return await e.recognize({ collection, onProgress: (p) => bar.update(p) });
  } finally {
    bar.stop();
  }
}

/** `--embed` after an index run; a collection whose model is not on this host is reported, not fatal to the others (its keyword index is done). */
export async function embedAfterIndex(e: Engine, collections: readonly string[], json: boolean): Promise<EmbeddingOutcome[]> {
  const out: EmbeddingOutcome[] = [];
  const onProgress = progressLine({ json } as CliContext);
  for (const collection of collections) {
    try {
      out.push(...(await e.embed({ collection, onProgress, waitForAnnIndex: true })));
    } catch (err) {
      if (!isTroveError(err) || err.code !== 'UNAVAILABLE') throw err;
      process.stderr.write(`trove: ${collection}: not embedded: ${err.message}\n`);
      out.push({ collection, error: err.message });
    }
  }
  return out;
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
