// `trove serve`: the engine host, headless — MCP over HTTP on 127.0.0.1 (and ::1), /health, and
// with --ui the web UI and app API; embeds in the background unless --no-embed. Runs until
// SIGINT/SIGTERM; runtime.json is removed on the way out. With --database (or TROVE_DATABASE_URL,
// or the database saved in Settings)
// it serves the MCP surface from an index in PostgreSQL instead (engine's ServedIndex), with the
// same door: loopback, Origin/Host checks, this profile's runtime token, the database's named
// tokens; it keeps the folder collections it can see fresh (SharedIndexer: a start-up scan, then
// watching, sharing the work with the other hosts, following collections other hosts add or
// remove) and embeds their new chunks unless --no-embed; agent memory lives in the database too
// (its entries embedded in the background unless --no-embed), and so are registered datasets'
// added folders and folder datasets (FAISS datasets stay files of this profile); with --ui the
// web UI and app API answer from the same index (engine's AppIndex: SharedApp).
import path from 'node:path';
import type { Command } from 'commander';
import { openSharedApp, savedDatabase, type AppIndex, type ServedIndex, type SettingSource } from '../../engine/index.js';
import { hostEngineOptions, startHost, type Host } from '../../host/host.js';
import type { CliContext } from '../context.js';
import { integer } from '../options.js';

/** How long a host the stdio shim started waits without clients or work before it stops. */
export const DEFAULT_IDLE_EXIT_MINUTES = 5;

export function registerServeCommand(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the engine host: MCP over HTTP on 127.0.0.1 (token and port in $TROVE_HOME/runtime.json)')
    .option('--port <n>', 'preferred port (default TROVE_PORT, else the port saved in Settings, else 7077; the next free one when busy)', integer('--port'))
    .option('--ui', 'also serve the web UI and app API')
    .option('--no-embed', 'do not embed new and changed chunks in the background (vector and hybrid search then wait for `trove embed`)')
    .option('--exit-when-idle', 'stop after TROVE_IDLE_EXIT_MINUTES (default 5) with no clients and no indexing work (how `trove mcp` starts a host)')
    .option('--database <url>', 'serve the MCP tools (and with --ui the web UI) from the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL), indexing the folders this host sees with the other hosts')
    .action(async (o: { port?: number; ui?: boolean; embed: boolean; exitWhenIdle?: boolean; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const env = ctx.environment();
      const idleExitMs = o.exitWhenIdle ? (env.host.idleExitMinutes ?? DEFAULT_IDLE_EXIT_MINUTES) * 60_000 : undefined;
      // --database > TROVE_DATABASE_URL > the database saved in Settings > this profile's SQLite file
      const saved = o.database === undefined && !env.database ? savedDatabase(env.engine.profileDir) : null;
      const database = o.database ?? saved ?? undefined;
      const databaseSource = o.database !== undefined ? 'flag' : env.database ? 'env' : saved ? 'saved' : 'default';
      if (database !== undefined || env.database) {
        const shared = (await ctx.sharedIndex(database))!;
        const indexer = (await ctx.sharedIndexer(database))!;
        // --no-embed, then the saved switch (read at start on PostgreSQL: the loop is not switched while it runs)
        const embed = o.embed && shared.settings.savedOrDefaults().backgroundEmbedding !== false;
        // with --ui the app API answers from the same index and indexer (SharedApp), which also tracks the indexer's work
        const served: ServedIndex | AppIndex = o.ui ? await openSharedApp(shared, indexer, { embeddings: env.engine.embeddings }) : shared;
        if (!o.ui) shared.trackBackgroundWork(indexer);
        const host = await startHost<ServedIndex | AppIndex>({ engine: served, port: o.port, env: env.host, idleExitMs });
        let stopUi: { signInUrl: string; close(): Promise<void> } | undefined;
        try {
          await indexer.startWatching(); // the start-up scans are queued; the watching loop works them with the other hosts
          await shared.startDatasets(); // folder datasets' collections made (and so watched and indexed), manifests followed
          if (embed) await indexer.startEmbedding((line) => process.stderr.write(`trove: ${line}\n`));
          if (embed) shared.startMemoryEmbedding((line) => process.stderr.write(`trove: ${line}\n`));
          if (o.ui) stopUi = await mountUi(host as Host<AppIndex>, { modelsMirror: env.host.modelsMirror, databaseSource });
        } catch (err) {
          await indexer.stopWatching();
          await host.close(); // not left listening (and runtime.json not left behind) by a host that could not start
          throw err;
        }
        const signIn = stopUi?.signInUrl;
        process.stderr.write(
          `trove: serving MCP at ${host.mcpUrl} from PostgreSQL at ${shared.location} (pid ${process.pid}; token in ${path.join(shared.profileDir, 'runtime.json')}); ` +
            `indexing the folders this host sees${embed ? ' and embedding' : ''}, and serving registered datasets\n`,
        );
        if (signIn) process.stderr.write(`trove: web UI at ${signIn}\n`);
        ctx.print({ url: host.url, mcpUrl: host.mcpUrl, port: host.port, pid: process.pid, backend: 'postgres', database: shared.location, ...(signIn ? { uiUrl: signIn } : {}) }, () => host.mcpUrl);
        await Promise.race([untilSignalled(), host.stopRequested]);
        process.stderr.write('trove: shutting down\n');
        await stopUi?.close(); // stops a run the app started before the indexer stops
        await indexer.stopWatching(); // a batch under way is written first; the index and indexer are the CLI's: closed with it
        await host.close();
        return;
      }
      const engine = await ctx.engine((opts) => hostEngineOptions(opts, { embed: o.embed }));
      const host = await startHost({ engine, port: o.port, env: env.host, idleExitMs });
      await host.engine.startWatching(); // live folders: the index follows the folders while serving
      const stopUi = o.ui ? await mountUi(host, { modelsMirror: env.host.modelsMirror, databaseSource }) : undefined;
      const signIn = stopUi?.signInUrl;
      process.stderr.write(`trove: serving MCP at ${host.mcpUrl} (pid ${process.pid}; token in ${path.join(host.engine.profileDir, 'runtime.json')})\n`);
      if (signIn) process.stderr.write(`trove: web UI at ${signIn}\n`);
      ctx.print({ url: host.url, mcpUrl: host.mcpUrl, port: host.port, pid: process.pid, ...(signIn ? { uiUrl: signIn } : {}) }, () => host.mcpUrl);
      await Promise.race([untilSignalled(), host.stopRequested]); // the host's own reason is logged by the host
      process.stderr.write('trove: shutting down\n');
      await stopUi?.close(); // stops a running index before the engine closes
      await host.engine.stopWatching();
      await host.close();
    });
}

function untilSignalled(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/** The web UI and app API (host/app-api-mount.ts): loaded only when asked for. The sign-in link
 *  is one-time; runtime.json's uiUrl always holds one that still works (renewed when one is used). */
async function mountUi(host: Host<AppIndex>, opts: { modelsMirror?: string; databaseSource: SettingSource }): Promise<{ signInUrl: string; close(): Promise<void> }> {
  const { mountAppApi } = await import('../../host/app-api-mount.js');
  const mounted = mountAppApi(host, { ui: true, ...opts });
  return { signInUrl: mounted.signInUrl()!, close: () => mounted.close() };
}
