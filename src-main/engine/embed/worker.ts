// Entry of an embedding worker thread: loads one model (embedder or cross-encoder) and serves
// requests one at a time. It exits only through the 'close' message, after releasing the
// session: terminating a worker inside session.run aborts the whole process (measured).
import { parentPort, workerData } from 'node:worker_threads';
import { isTroveError } from '../errors.js';
import { lowerThreadPriority } from '../worker-script.js';
import type { ModelSpec, WeightsVariant } from './manifest.js';
import { OnnxCrossEncoder, OnnxEmbedder, type TextKind } from './onnx-model.js';

export interface WorkerInit {
  role: 'embed' | 'rerank';
  spec: ModelSpec;
  dir: string;
  weightsFile: string;
  variant: WeightsVariant;
  intraOpThreads: number;
  signedWeights: boolean;
  /** weightsFile is the pool's rewritten copy (model-rewrites.ts): no rewrite here. */
  prepared: boolean;
  /** The pool's mask-free copy for runs without padding (unmasked.ts), when it answers exactly as weightsFile. */
  unmaskedFile: string | null;
  /** Lower this worker thread's priority by this much (background workers; Linux, where niceness is per thread). */
  nice: number;
}

export type WorkerRequest =
  | { id: number; op: 'embed'; texts: string[]; kind: TextKind; batchSize: number }
  | { id: number; op: 'score'; query: string; passages: string[]; batchSize: number }
  | { op: 'close' };

export type WorkerReply =
  | { ready: true; dims: number }
  | { ready: false; error: { code: string; message: string } }
  | { id: number; vectors: ArrayBuffer }
  | { id: number; scores: ArrayBuffer }
  | { id: number; error: { code: string; message: string } };

const port = parentPort!;
const init = workerData as WorkerInit;

function errorBody(err: unknown): { code: string; message: string } {
  return isTroveError(err) ? { code: err.code, message: err.message } : { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}

// inference runs on this thread (one intra-op thread, sequential execution): its nice value is the model's
lowerThreadPriority(init.nice);

let model: OnnxEmbedder | OnnxCrossEncoder;
try {
  const opts = { intraOpThreads: init.intraOpThreads, quantized: init.variant === 'int8', signedWeights: init.signedWeights, prepared: init.prepared, unmaskedFile: init.unmaskedFile };
  model = init.role === 'embed'
    ? await OnnxEmbedder.load(init.spec, init.dir, init.weightsFile, opts)
    : await OnnxCrossEncoder.load(init.spec, init.dir, init.weightsFile, opts);
  port.postMessage({ ready: true, dims: model instanceof OnnxEmbedder ? model.dims : 1 } satisfies WorkerReply);
} catch (err) {
  port.postMessage({ ready: false, error: errorBody(err) } satisfies WorkerReply);
  port.close();
}

// one request at a time, in order: a session is not re-entrant
let chain = Promise.resolve();
port.on('message', (msg: WorkerRequest) => {
  chain = chain.then(async () => {
    if (msg.op === 'close') {
      await model?.release();
      port.close();
      return;
    }
    try {
      if (msg.op === 'embed' && model instanceof OnnxEmbedder) {
        const v = await model.embed(msg.texts, msg.kind, msg.batchSize);
        port.postMessage({ id: msg.id, vectors: v.buffer as ArrayBuffer } satisfies WorkerReply, [v.buffer as ArrayBuffer]);
      } else if (msg.op === 'score' && model instanceof OnnxCrossEncoder) {
        const s = await model.score(msg.query, msg.passages, msg.batchSize);
        port.postMessage({ id: msg.id, scores: s.buffer as ArrayBuffer } satisfies WorkerReply, [s.buffer as ArrayBuffer]);
      } else {
        throw new Error(`a ${init.role} worker cannot ${msg.op}`);
      }
    } catch (err) {
      port.postMessage({ id: msg.id, error: errorBody(err) } satisfies WorkerReply);
    }
  });
});
