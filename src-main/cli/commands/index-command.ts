// `trove index`: bring the index up to date with the folders.
import { Command } from 'commander';
import type { Engine } from '../../engine/engine.js';
import type { CliContext } from '../context.js';
import { formatIndexReport } from '../format.js';
import { indexProgressBar } from '../progress.js';

export function registerIndexCommand(program: Command, ctx: CliContext): void {
  program
    .command('index')
    .description('bring the index up to date with the folders')
    .option('--collection <name>', 'only this collection')
    .action(async (o: { collection?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const reports = await runIndex(ctx.engine(), o.collection, ctx.json);
      ctx.print({ reports }, () => (reports.length ? reports.map(formatIndexReport).join('\n') : 'No collections to index.'));
    });
}

export async function runIndex(e: Engine, collection: string | undefined, json: boolean) {
  const bar = indexProgressBar(!json && !!process.stderr.isTTY);
  try {
    return await e.index({ collection, onProgress: (p) => bar.update(p) });
  } finally {
    bar.stop();
  }
}
