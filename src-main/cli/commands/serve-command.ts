// `trove serve`: the engine host, headless — MCP over HTTP on 127.0.0.1 (and ::1), /health, and
// with --ui the web UI and app API; watches the folders and embeds in the background unless
// --no-embed. Runs until SIGINT/SIGTERM; runtime.json is removed on the way out. With --database
// (or TROVE_DATABASE_URL, or the database saved in Settings) the engine runs on an index in
// PostgreSQL that other hosts share: the same door (loopback, Origin/Host checks, this profile's
// runtime token, the database's named tokens), the folders this host sees kept fresh together with
// the other hosts, collections other hosts add or remove followed.
import path from 'node:path';
import type { Command } from 'commander';
import { savedDatabase, type SettingSource } from '../../engine/index.js';
import { hostEngineOptions, startHost, type Host } from '../../host/host.js';
import { keepHostMemoryLean } from '../../host/memory-policy.js';
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
    .option('--no-ocr', 'do not read scanned pages and images in the background (their names and text layers are still indexed)')
    .option('--exit-when-idle', 'stop after TROVE_IDLE_EXIT_MINUTES (default 5) with no clients and no indexing work (how `trove mcp` starts a host)')
    .action(async (o: { port?: number; ui?: boolean; embed: boolean; ocr: boolean; exitWhenIdle?: boolean }, cmd: Command) => {
      ctx.setJson(cmd);
      const env = ctx.environment();
      keepHostMemoryLean({ nativeDir: env.engine.nativeRank?.dir });
      const idleExitMs = o.exitWhenIdle ? (env.host.idleExitMinutes ?? DEFAULT_IDLE_EXIT_MINUTES) * 60_000 : undefined;
      // --database > TROVE_DATABASE_URL > the database saved in Settings > this profile's SQLite file
      const flag = cmd.optsWithGlobals<{ database?: string }>().database;
      const saved = flag === undefined && !env.database ? savedDatabase(env.engine.profileDir) : null;
      const databaseSource: SettingSource = flag !== undefined ? 'flag' : env.database ? 'env' : saved ? 'saved' : 'default';
      const engine = await ctx.engine(cmd, (opts) => hostEngineOptions({ ...opts, database: opts.database ?? saved }, { embed: o.embed, ocr: o.ocr }));
      const host = await startHost({ engine, port: o.port, env: env.host, idleExitMs });
      let stopUi: { signInUrl: string; close(): Promise<void> } | undefined;
      try {
        await engine.startWatching(); // live folders: the index follows the folders while serving
        if (o.ui) stopUi = await mountUi(host, { modelsMirror: env.host.modelsMirror, databaseSource });
      } catch (err) {
        await engine.stopWatching();
        await host.close(); // not left listening (and runtime.json not left behind) by a host that could not start
        throw err;
      }
      const signIn = stopUi?.signInUrl;
      const where = engine.backend === 'postgres' ? ` from PostgreSQL at ${engine.location}` : '';
      process.stderr.write(`trove: serving MCP at ${host.mcpUrl}${where} (pid ${process.pid}; token in ${path.join(engine.profileDir, 'runtime.json')})\n`);
      if (signIn) process.stderr.write(`trove: web UI at ${signIn}\n`);
      ctx.print(
        { url: host.url, mcpUrl: host.mcpUrl, port: host.port, pid: process.pid, backend: engine.backend, database: engine.location, ...(signIn ? { uiUrl: signIn } : {}) },
        () => host.mcpUrl,
      );
      await Promise.race([untilSignalled(), host.stopRequested]); // the host's own reason is logged by the host
      process.stderr.write('trove: shutting down\n');
      await stopUi?.close(); // stops a running index before the engine closes
      await engine.stopWatching(); // a batch under way is written first
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
async function mountUi(host: Host, opts: { modelsMirror?: string; databaseSource: SettingSource }): Promise<{ signInUrl: string; close(): Promise<void> }> {
  const { mountAppApi } = await import('../../host/app-api-mount.js');
  const mounted = mountAppApi(host, { ui: true, ...opts });
  return { signInUrl: mounted.signInUrl()!, close: () => mounted.close() };
}
