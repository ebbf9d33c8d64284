// Compression of an index batch's texts beside its write (issue 29: the index ≤ 1.5× the text).
// Compressing a text into blocks (content-blocks.ts) costs the thread ~9 ms per MB; on the
// engine's thread, which runs the indexing batches one after another, that was +14% of its CPU
// on bench:index. So a batch's texts go to one worker thread when the batch's write starts and
// are compressed there while the engine's thread writes the batch's documents, chunks and keyword
// rows; the blocks are taken, synchronously, at the end of the same transaction (the thread
// raises a shared counter: Atomics.wait, then receiveMessageOnPort). Small batches (a watched
// file saved) are compressed in place: the round trip would cost more. A thread that is gone or
// late costs time, never the write: its texts are compressed in place.
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { startWorkerScript } from '../../worker-script.js';
import { packText, type PackedBlock } from '../content-blocks.js';
import type { PackInit, PackReply, PackRequest } from './pack-worker.js';

/** Below this many characters in a batch the texts are compressed in place. */
const IN_PLACE_CHARS = 64 * 1024;
/** How long a write waits for the thread before compressing in place (a stalled thread is stopped). */
const WAIT_MS = 30_000;

/** The blocks of a batch's texts, in the order they were given; take() may block until the thread has them. */
export interface PackTicket {
  take(): PackedBlock[][];
}

export class BlockPacker {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private answered: Int32Array | null = null;
  private nextId = 1;
  private closed = false;

  /** Starts compressing `texts`; the ticket gives their blocks. */
  begin(texts: readonly string[]): PackTicket {
    const chars = texts.reduce((n, t) => n + t.length, 0);
    const inPlace = { take: () => texts.map((t) => packText(t)) };
    if (chars < IN_PLACE_CHARS || this.closed || !this.start()) return inPlace;
    const id = this.nextId++;
    this.port!.postMessage({ id, texts: [...texts] } satisfies PackRequest);
    return { take: () => this.wait(id) ?? inPlace.take() };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
  }

  /** The thread's answer to `id`, or null when it is gone or late (the thread is then stopped). */
  private wait(id: number): PackedBlock[][] | null {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const port = this.port;
      const answered = this.answered;
      if (!port || !answered) return null;
      const m = receiveMessageOnPort(port)?.message as PackReply | undefined;
      if (m) {
        if (m.id === id) return m.blocks.map((blocks) => blocks.map((b) => ({ start: b.start, data: Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength) })));
        continue; // an answer to a request given up on
      }
      const seen = Atomics.load(answered, 0);
      if (seen >= id) continue; // posted before the counter rose: it is in the port's queue
      const left = deadline - Date.now();
      if (left <= 0) {
        void this.stop();
        return null;
      }
      Atomics.wait(answered, 0, seen, left); // a thread that died is noticed at the deadline: its exit event cannot run while this waits
    }
  }

  private start(): boolean {
    if (this.worker) return true;
    try {
      const { port1, port2 } = new MessageChannel();
      const signal = new SharedArrayBuffer(4);
      const worker = startWorkerScript(import.meta.url, 'pack-worker', {
        workerData: { port: port2, signal } satisfies PackInit,
        transferList: [port2],
        name: 'trove-sqlite-pack',
      });
      worker.unref();
      worker.once('exit', () => {
        if (this.worker === worker) this.forget();
      });
      worker.on('error', () => undefined); // its exit follows; the writes compress in place meanwhile
      this.worker = worker;
      this.port = port1;
      this.answered = new Int32Array(signal);
      return true;
    } catch {
      return false;
    }
  }

  private forget(): void {
    this.port?.close();
    this.worker = null;
    this.port = null;
    this.answered = null;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.forget();
    if (worker) await worker.terminate();
  }
}
