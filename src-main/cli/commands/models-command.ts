// `trove models list|pull|verify|use` (the embedding and reranker models) and `trove embed`
// (compute the vectors still missing, with progress).
import { Command } from 'commander';
import { modelCatalogue } from '../../engine/embed/catalogue.js';
import { downloadModel } from '../../engine/embed/downloader.js';
import { findModel } from '../../engine/embed/manifest.js';
import { candidateDirs, resolveModel } from '../../engine/embed/resolver.js';
import type { CliContext } from '../context.js';

export function registerModelsCommand(program: Command, ctx: CliContext): void {
  const models = program.command('models').description('embedding and reranker models: list, pull, verify, use');

  models
    .command('list')
    .description('the model catalogue and whether each model is here')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const svc = ctx.engine().models;
      const rows = await modelCatalogue(svc.manifest, svc.modelLocations);
      ctx.print({ models: rows, locations: svc.modelLocations }, () =>
        rows.map((r) => `${r.id.padEnd(26)} ${r.role.padEnd(7)} ${r.state}${r.where ? `  ${r.where}` : ''}`).join('\n'),
      );
    });

  models
    .command('pull <id>')
    .description('download a model into the user cache (resumable, sha256-checked)')
    .option('--mirror <url>', 'download from <url>/<id>/<file> instead of the upstream source')
    .action(async (id: string, o: { mirror?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const svc = ctx.engine().models;
      const spec = findModel(svc.manifest, id);
      let last = 0;
      const dir = await downloadModel(spec, svc.modelLocations.cacheDir, {
        mirror: o.mirror,
        onProgress: (p) => {
          if (ctx.json || Date.now() - last < 500) return;
          last = Date.now();
          process.stderr.write(`${p.file}: ${(p.received / 1e6).toFixed(1)}${p.total ? ` / ${(p.total / 1e6).toFixed(1)}` : ''} MB\r`);
        },
      });
      svc.refresh();
      ctx.print({ model: id, dir }, () => `${id}: downloaded and verified in ${dir}`);
    });

  models
    .command('verify [id]')
    .description('check model files against their sha256 (all present models, or one)')
    .action(async (id: string | undefined, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const svc = ctx.engine().models;
      const specs = id ? [findModel(svc.manifest, id)] : svc.manifest.models;
      const rows: ({ id: string; ok: true; verified: boolean; weightsSha256: string; dir: string } | { id: string; ok: false; reason: string; looked: string[] })[] = [];
      for (const spec of specs) {
        try {
          const r = await resolveModel(spec, svc.modelLocations);
          rows.push({ id: spec.id, ok: true, verified: r.verified, weightsSha256: r.weightsSha256, dir: r.dir });
        } catch (err) {
          rows.push({ id: spec.id, ok: false, reason: (err as Error).message, looked: candidateDirs(spec, svc.modelLocations).map((d) => d.dir) });
        }
      }
      ctx.print({ models: rows }, () => rows.map((r) => `${r.id}: ${r.ok ? `ok${r.verified ? '' : ' (unverified)'}` : r.reason}`).join('\n'));
      if (id && !rows[0]!.ok) process.exitCode = 1;
    });

  models
    .command('use <id>')
    .description('embed a collection with this model (re-embeds in the background, swaps when done); "auto" picks by language')
    .requiredOption('--collection <name>', 'the collection')
    .action(async (id: string, o: { collection: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const engine = ctx.engine();
      await engine.setCollectionModel(o.collection, id === 'auto' ? null : id);
      const status = await engine.embed({ collection: o.collection, onProgress: progressLine(ctx) });
      ctx.print({ collections: status }, () => status.map((s) => `${s.collection}: ${s.model} (${s.vectors} vectors)`).join('\n'));
    });

  program
    .command('embed')
    .description('compute the vectors still missing (after `trove index`); resumable')
    .option('--collection <name>', 'only this collection')
    .action(async (o: { collection?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const status = await ctx.engine().embed({ collection: o.collection, onProgress: progressLine(ctx) });
      ctx.print({ collections: status }, () =>
        status.map((s) => `${s.collection}: ${s.model ?? 'no model'}, ${s.vectors} vectors, ${s.needsEmbedding} waiting`).join('\n'),
      );
    });
}

function progressLine(ctx: CliContext) {
  let last = 0;
  return (p: { collection: string; model: string; done: number; total: number; chunksPerSecond: number; etaSeconds: number | null }) => {
    if (ctx.json || (Date.now() - last < 1000 && p.done < p.total)) return;
    last = Date.now();
    process.stderr.write(`embedding ${p.collection} (${p.model}): ${p.done}/${p.total} chunks, ${p.chunksPerSecond}/s, ETA ${p.etaSeconds ?? '?'} s\n`);
  };
}
