// A long loop of synchronous work that runs beside other work on the same thread (a batch planned,
// or its keyword terms made, while the batch before is written: indexing/batch-worker.ts series)
// gives the event loop a turn every few milliseconds, so the other work's next step waits for one
// slice, not the whole loop.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A pause to await between items: it lets the event loop turn once `ms` of work have passed since the last turn. */
export function timeSlice(ms: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < ms) return;
    await nextTurn();
    since = performance.now();
  };
}
