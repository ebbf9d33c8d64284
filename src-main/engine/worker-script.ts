// Starting one of the engine's worker scripts (the embedding worker, the document parse worker,
// the WAL checkpointer) the same way wherever the engine runs: compiled by tsc into dist/ (the
// worker beside its caller), bundled by electron-vite into out/main (every entry flat in out/main,
// code shared with a lazily loaded module in out/main/chunks/), or as TypeScript through tsx
// (tests, benches).
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Starts `<name>.js` (or `<name>.ts` under tsx) beside the module at `callerUrl` (its import.meta.url). */
export function startWorkerScript(callerUrl: string, name: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith('.ts')) {
    const url = /\/chunks\/[^/]+$/.test(callerUrl) ? new URL(`../${name}.js`, callerUrl) : new URL(`./${name}.js`, callerUrl);
    return new Worker(url, options);
  }
  // `--import tsx` in a worker's execArgv does not reach the worker on Node 20: register tsx's loader from inside it
  const boot = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(new URL(`./${name}.ts`, callerUrl).href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
