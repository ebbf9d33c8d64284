// Starting one of the engine's worker scripts (the embedding worker, the document parse worker,
// the WAL checkpointer) the same way wherever the engine runs: compiled by tsc into dist/ (the
// worker beside its caller), bundled by electron-vite into out/main (every entry flat in out/main,
// code shared with a lazily loaded module in out/main/chunks/), or as TypeScript through tsx
// (tests, benches). And, inside a worker of background work, lowering its thread's priority.
import os from 'node:os';
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

/**
 * Lowers the calling worker thread's priority by `nice` (background work: parsing, OCR, background
 * embedding), so the threads answering searches go first when the cores are busy. Linux keeps a nice
 * value per thread; elsewhere setPriority(0) would lower the whole process, searches included, so
 * there it does nothing. Not allowed here: the thread runs at normal priority.
 */
export function lowerThreadPriority(nice: number): void {
  if (nice <= 0 || process.platform !== 'linux') return;
  try {
    os.setPriority(0, Math.min(19, os.getPriority(0) + nice));
  } catch {
    /* not allowed: normal priority */
  }
}
