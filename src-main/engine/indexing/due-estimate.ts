// How many of a collection's jobs are still due, for the progress stream's total and ETA. The exact
// count walks every due job (a count has no shortcut), so asking it for every batch made a run
// quadratic in its size (a fifth of the indexing thread at 100,000 files); it is asked again only
// when the last answer is old enough for its cost to stay a small share of the run, and in between
// the batches written since are taken off it. Jobs queued meanwhile join the total at the next count.
import type { Storage } from '../store/storage.js';

/** The count's own time, times this, passes before it is asked again (≤ 2% of the time spent on it)… */
const COST_FACTOR = 50;
/** …and never more often than this. */
const MIN_INTERVAL_MS = 1000;

interface Known {
  due: number;
  /** performance.now() when it was counted, and the count's cost. */
  at: number;
  costMs: number;
  doneSince: number;
}

export class DueEstimate {
  private readonly known = new Map<number, Known>();

  constructor(private readonly storage: Storage) {}

  /** The collection's due jobs (held ones included), counted or estimated. */
  async of(collectionId: number): Promise<number> {
    const k = this.known.get(collectionId);
    const now = performance.now();
    if (k && now - k.at < Math.max(MIN_INTERVAL_MS, k.costMs * COST_FACTOR)) return Math.max(0, k.due - k.doneSince);
    const due = await this.storage.jobs.dueCount(collectionId, Date.now());
    const after = performance.now();
    this.known.set(collectionId, { due, at: after, costMs: after - now, doneSince: 0 });
    return due;
  }

  /** A batch of the collection was written: `files` jobs are no longer due. */
  finished(collectionId: number, files: number): void {
    const k = this.known.get(collectionId);
    if (k) k.doneSince += files;
  }

  forget(collectionId: number): void {
    this.known.delete(collectionId);
  }
}
