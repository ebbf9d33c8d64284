// A pool's model files made in a thread of their own (model-prepare-worker.ts), so the caller's
// thread — a host's engine thread, serving calls — neither spends the rewrite's CPU nor loads
// ONNX Runtime. Nothing here imports it.
import { startWorkerScript } from '../worker-script.js';
import type { PreparedModel, RewriteOptions } from './model-rewrites.js';

export interface PrepareRequest {
  file: string;
  sha256: string;
  cacheDir: string;
  rewrites: RewriteOptions;
  /** Niceness of the preparing thread (Linux): making the files is background work. */
  nice: number;
}

export type PrepareReply = { ok: true; prepared: PreparedModel } | { ok: false; message: string };

/** preparedModelFile(file, sha256, cacheDir, rewrites), run in a thread that exits once it has answered. */
export function prepareModelFiles(request: PrepareRequest): Promise<PreparedModel> {
  return new Promise((resolve, reject) => {
    const worker = startWorkerScript(import.meta.url, 'model-prepare-worker', { workerData: request });
    let answered = false;
    worker.once('message', (m: PrepareReply) => {
      answered = true;
      worker.unref(); // its answer is in; the thread ends on its own once its sessions are released
      if (m.ok) resolve(m.prepared);
      else reject(new Error(m.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => answered || reject(new Error(`the model preparation thread exited (code ${code}) without an answer`)));
  });
}
