// The engine host as the desktop app runs it: Electron's main process starts this file in a
// utilityProcess (electron-vite builds it to out/main/host.js). It runs the very host that
// `trove serve` runs (engine + MCP over loopback HTTP, so assistants reach Trove while the
// window is closed) and serves the app API to the main process over the process's message port.
// Its index is the profile's SQLite file, or an index in PostgreSQL when TROVE_DATABASE_URL is set
// or Settings saved a database (the same engine and window either way).
import type { FromHost } from '../api/host-protocol.js';
import { readEnvironment, savedDatabase } from '../engine/index.js';
import { serveAppApiOverPort, type HostPort } from './app-api-ipc.js';
import { mountAppApi } from './app-api-mount.js';
import { keepHostMemoryLean } from './memory-policy.js';
import { hostEngineOptions, startHost, type Host } from './host.js';

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
}

async function main(): Promise<void> {
  const parent = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (!parent) {
    process.stderr.write('trove host: this entry runs inside the desktop app; use `trove serve` on its own\n');
    process.exit(2);
  }
  const port: HostPort = { postMessage: (m: FromHost) => parent.postMessage(m), on: (e, l) => parent.on(e, l) };
  try {
    const env = readEnvironment(process.env); // the one place this process reads its environment
    keepHostMemoryLean({ nativeDir: env.engine.nativeRank?.dir });
    const saved = env.database ? null : savedDatabase(env.engine.profileDir);
    // background embedding on: the Settings switch turns it off (applied without a restart). A
    // database that cannot be reached is a fatal start-up error naming it (password hidden), never
    // a quiet fall back to SQLite.
    const engineOptions = hostEngineOptions({ ...env.engine, database: env.database ?? saved }, { embed: true });
    const host: Host = await startHost({ engineOptions, env: env.host });
    await host.engine.startWatching(); // live folders: the index follows the folders while the app runs
    const databaseSource = env.database ? 'env' : saved ? 'saved' : 'default';
    const mounted = mountAppApi(host, { ui: process.argv.includes('--ui'), modelsMirror: env.host.modelsMirror, databaseSource });
    let stopping: Promise<void> | null = null;
    // every step is awaited, the engine's close last: model workers finish their current run
    // and exit before the process does (terminating one mid-run aborts the whole process)
    const stop = (code: number): Promise<void> =>
      (stopping ??= (async () => {
        try {
          await mounted.close();
          await host.engine.stopWatching();
          await host.close(); // the engine, which the host opened, last
        } catch (err) {
          process.stderr.write(`trove host: error while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
          code = code || 1;
        }
        process.exit(code);
      })());
    serveAppApiOverPort(mounted.api, port, () => void stop(0));
    process.on('SIGTERM', () => void stop(0));
    void host.stopRequested.then(() => stop(0)); // the profile folder is gone
    port.postMessage({ kind: 'ready', endpoint: host.mcpUrl, uiUrl: mounted.signInUrl() });
    process.stderr.write(`trove host: engine ready, MCP at ${host.mcpUrl}${host.engine.backend === 'postgres' ? ` from PostgreSQL at ${host.engine.location}` : ''}\n`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    port.postMessage({ kind: 'fatal', message });
    process.stderr.write(`trove host: could not start: ${message}\n`);
    process.exit(1);
  }
}

void main();
