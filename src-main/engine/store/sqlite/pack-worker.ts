// The thread that compresses an index batch's texts into blocks (block-packer.ts) while the
// engine's thread writes the batch's rows: it packs what it is sent, posts the blocks back and then
// raises the shared counter the writer may be blocked on (Atomics.wait), so the writer can take
// the answer synchronously inside its transaction.
import { type MessagePort, workerData } from 'node:worker_threads';
import { packText } from '../content-blocks.js';

export interface PackInit {
  port: MessagePort;
  /** Int32 [0]: the id of the last request answered. */
  signal: SharedArrayBuffer;
}

export interface PackRequest {
  id: number;
  texts: string[];
}

export interface PackReply {
  id: number;
  /** Per text, its blocks' starts and compressed bytes. */
  blocks: { start: number; data: Uint8Array }[][];
}

const { port, signal } = workerData as PackInit;
const answered = new Int32Array(signal);
port.on('message', (m: PackRequest) => {
  port.postMessage({ id: m.id, blocks: m.texts.map((t) => packText(t)) } satisfies PackReply);
  Atomics.store(answered, 0, m.id);
  Atomics.notify(answered, 0);
});
