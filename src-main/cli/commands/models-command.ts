// `trove models list|pull|verify|use` (the embedding and reranker models) and `trove embed`
// (compute the vectors still missing, with progress). Everything goes through Engine.models, or
// with --database through the SharedIndexer, which shares the embedding with other hosts.
import type { Command } from 'commander';
import type { DownloadProgress, EmbeddingProgress, PullResult } from '../../engine/index.js';
import type { CliContext } from '../context.js';
import { embedShared, formatSharedEmbedding, type SharedEmbedding } from './index-command.js';

export function registerModelsCommand(program: Command, ctx: CliContext): void {
  const models = program.command('models').description('embedding and reranker models: list, pull, verify, use');

  models
    .command('list')
    .description('the model catalogue and whether each model is here')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const { models: api } = ctx.engine();
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
      const pulled = await ctx.engine().models.pull(id, { mirror: o.mirror ?? ctx.environment().host.modelsMirror, onProgress: downloadLine(ctx) });
      ctx.print(pulled, () => describePull(pulled));
    });

  models
    .command('verify [id]')
    .description('check model files against their sha256 (all present models, or one)')
    .action(async (id: string | undefined, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const rows = await ctx.engine().models.verify(id);
      ctx.print({ models: rows }, () => rows.map((r) => `${r.id}: ${r.ok ? `ok${r.verified ? '' : ' (unverified)'}` : r.reason}`).join('\n'));
      if (id && !rows[0]!.ok) process.exitCode = 1;
    });

  models
    .command('use <id>')
    .description('embed a collection with this model (re-embeds in the background, swaps when done); "auto" picks by language')
    .requiredOption('--collection <name>', 'the collection')
    .option('--database <url>', "the collection in PostgreSQL (default TROVE_DATABASE_URL) instead of this profile's SQLite index; this host embeds, others share the work")
    .action(async (id: string, o: { collection: string; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndexer(o.database);
      if (shared) {
        await shared.chooseModel(o.collection, id === 'auto' ? null : id);
        return printSharedEmbedding(ctx, await embedShared(shared, [o.collection], { onProgress: progressLine(ctx) }));
      }
      const engine = ctx.engine();
      await engine.setCollectionModel(o.collection, id === 'auto' ? null : id);
      const status = await engine.embed({ collection: o.collection, onProgress: progressLine(ctx), waitForAnnIndex: true });
      ctx.print({ collections: status }, () => status.map((s) => `${s.collection}: ${s.model} (${s.vectors} vectors)`).join('\n'));
    });

  program
    .command('embed')
    .description('compute the vectors still missing (after `trove index`); resumable')
    .option('--collection <name>', 'only this collection')
    .option('--database <url>', "embed a PostgreSQL index (default TROVE_DATABASE_URL) instead of this profile's SQLite one; several hosts may run at once")
    .action(async (o: { collection?: string; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndexer(o.database);
      if (shared) {
        const names = o.collection ? [o.collection] : await shared.embeddable();
        return printSharedEmbedding(ctx, await embedShared(shared, names, { onProgress: progressLine(ctx) }));
      }
      await pullMissing(ctx, o.collection);
      const status = await ctx.engine().embed({ collection: o.collection, onProgress: progressLine(ctx), waitForAnnIndex: true });
      ctx.print({ collections: status }, () =>
        status.map((s) => `${s.collection}: ${s.model ?? 'no model'}, ${s.vectors} vectors, ${s.needsEmbedding} waiting`).join('\n'),
      );
    });
}

/** `trove embed` first downloads the models its collections need and lack (from their sources in order), saying from where; one that cannot be had is reported by the embedding. */
async function pullMissing(ctx: CliContext, collection?: string): Promise<void> {
  const { models } = ctx.engine();
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

function progressLine(ctx: CliContext) {
  let last = 0;
  return (p: EmbeddingProgress) => {
    if (ctx.json || (Date.now() - last < 1000 && p.done < p.total)) return;
    last = Date.now();
    process.stderr.write(`embedding ${p.collection} (${p.model}): ${p.done}/${p.total} chunks, ${p.chunksPerSecond}/s, ETA ${p.etaSeconds ?? '?'} s\n`);
  };
}

/** What this host embedded on PostgreSQL; a collection whose model is not here fails the command (exit 1) after the rest are done. */
function printSharedEmbedding(ctx: CliContext, embeddings: SharedEmbedding[]): void {
  ctx.print({ embeddings }, () => (embeddings.length ? embeddings.map(formatSharedEmbedding).join('\n') : 'No collections to embed.'));
  if (embeddings.some((e) => 'error' in e)) process.exitCode = 1;
}
