// Entry of a short-lived thread that makes a pool's model files (model-rewrites.ts
// preparedModelFile) and exits. Making them reads and rewrites the whole ONNX file and probes the
// results with ONNX Runtime sessions: 1–2 s of CPU the first time a model is used in a profile,
// which on the engine's thread stopped every call a host was serving for as long. Here it runs
// beside that thread, niced as background work (the first burst of calls a fresh profile meets
// keeps both cores), and the rewrite's buffers (and ONNX Runtime itself) go with this one.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../worker-script.js';
import { preparedModelFile } from './model-rewrites.js';
import type { PrepareReply, PrepareRequest } from './model-prepare.js';

const r = workerData as PrepareRequest;
lowerThreadPriority(r.nice);
preparedModelFile(r.file, r.sha256, r.cacheDir, r.rewrites).then(
  (prepared) => parentPort!.postMessage({ ok: true, prepared } satisfies PrepareReply),
  (err: unknown) => parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) } satisfies PrepareReply),
);
