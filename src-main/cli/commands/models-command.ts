// `trove models list|pull|verify|use` (the embedding and reranker models) and `trove embed`
// (compute the vectors still missing, with progress; on a shared index other hosts share the work).
import type { Command } from 'commander';
import type { DownloadProgress, EmbeddingProgress, ModelsApi, PullResult } from '../../engine/index.js';
import type { CliContext } from '../context.js';
import { formatEmbedding } from '../format.js';

export function registerModelsCommand(program: Command, ctx: CliContext): void {
  const models = program.command('models').description('embedding and reranker models: list, pull, verify, use');

  models
    .command('list')
    .description('the model catalogue and whether each model is here')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const { models: api } = await ctx.engine(cmd);
      const rows = await api.list();
      ctx.print({ models: rows, locations: api.locations() }, () =>
        rows.map((r) => `${r.id.padEnd(26)} ${r.role.padEnd(7)} ${r.state}${r.where ? `  ${r.where}` : ''}`).join('\n'),
      );
    });

  models
    .command('pull <id>')
    .description('download a model into the user cache (resumable, sha256-checked)')
    .option('--mirror <url>', 'download from <url>/<id>/<file> instead of the upstream source (default TROVE_MODELS_MIRROR)')
    .action(async (id: string, o: { mirror?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const pulled = await (await ctx.engine(cmd)).models.pull(id, { mirror: o.mirror ?? ctx.environment().host.modelsMirror, onProgress: downloadLine(ctx) });
      ctx.print(pulled, () => describePull(pulled));
    });

  models
    .command('verify [id]')
    .description('check model files against their sha256 (all present models, or one)')
    .action(async (id: string | undefined, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const rows = await (await ctx.engine(cmd)).models.verify(id);
      ctx.print({ models: rows }, () => rows.map((r) => `${r.id}: ${r.ok ? `ok${r.verified ? '' : ' (unverified)'}` : r.reason}`).join('\n'));
      if (id && !rows[0]!.ok) process.exitCode = 1;
    });

  models
    .command('use <id>')
    .description('embed a collection with this model (re-embeds, swaps when done; for every host on a shared index); "auto" picks by language')
    .requiredOption('--collection <name>', 'the collection')
    .action(async (id: string, o: { collection: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const engine = await ctx.engine(cmd);
      await engine.setCollectionModel(o.collection, id === 'auto' ? null : id);
      const status = await engine.embed({ collection: o.collection, onProgress: progressLine(ctx), waitForAnnIndex: true });
      ctx.print({ collections: status }, () => status.map((s) => `${s.collection}: ${s.model} (${s.vectors} vectors)`).join('\n'));
    });

  program
    .command('embed')
    .description('compute the vectors still missing (after `trove index`); resumable; hosts sharing an index share the work')
    .option('--collection <name>', 'only this collection')
    .action(async (o: { collection?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const engine = await ctx.engine(cmd);
      await pullMissing(ctx, engine.models, o.collection);
      const status = await engine.embed({ collection: o.collection, onProgress: progressLine(ctx), waitForAnnIndex: true });
      ctx.print({ collections: status }, () => (status.length ? status.map(formatEmbedding).join('\n') : 'No collections to embed.'));
    });
}

/** `trove embed` first downloads the models its collections need and lack (from their sources in order), saying from where; one that cannot be had is reported by the embedding. */
async function pullMissing(ctx: CliContext, models: ModelsApi, collection?: string): Promise<void> {
  for (const id of await models.missing(collection)) {
    try {
      const pulled = await models.pull(id, { mirror: ctx.environment().host.modelsMirror, onProgress: downloadLine(ctx) });
      if (!ctx.json) process.stderr.write(`${describePull(pulled)}\n`);
    } catch (err) {
      if (!ctx.json) process.stderr.write(`${id}: not downloaded: ${(err as Error).message}\n`);
    }
  }
}

/** Which source served, and why the ones before it could not. */
function describePull(p: PullResult): string {
  const where = p.source ? `downloaded from ${p.source} and verified in ${p.dir}` : `already here and verified in ${p.dir}`;
  return `${p.model}: ${where}${p.passedOver.length ? ` (passed over: ${p.passedOver.join('; ')})` : ''}`;
}

function downloadLine(ctx: CliContext) {
  let last = 0;
  return (p: DownloadProgress) => {
    if (ctx.json || (Date.now() - last < 500 && p.received !== p.total)) return;
    last = Date.now();
    process.stderr.write(`${p.model} from ${p.source}: ${p.file} ${(p.received / 1e6).toFixed(1)}${p.total ? ` / ${(p.total / 1e6).toFixed(1)}` : ''} MB\r`);
  };
}

export function progressLine(ctx: CliContext) {
  let last = 0;
  return (p: EmbeddingProgress) => {
    if (ctx.json || (Date.now() - last < 1000 && p.done < p.total)) return;
    last = Date.now();
    process.stderr.write(`embedding ${p.collection} (${p.model}): ${p.done}/${p.total} chunks${p.reused ? ` (${p.reused} copied from the same text)` : ''}, ${p.chunksPerSecond}/s, ETA ${p.etaSeconds ?? '?'} s\n`);
  };
}
