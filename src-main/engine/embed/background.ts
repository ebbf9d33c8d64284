// When the background embedding stage may work. It is enabled by the engine's option (a host
// embeds unless `--no-embed`; a one-shot command never does) and the saved setting (on unless
// switched off), both read live so the Settings switch applies at once. It pauses with indexing
// (the same pause rows: everything, or one collection). And it waits its turn before each batch:
// keyword indexing goes first (embedding never delays a file becoming keyword-searchable), and so
// does a burst of searches (no new chunk starts within `searchQuietMs` of a search) — but only for
// so long: under a steady stream of searches (an assistant polling) a turn comes after `maxDeferMs`
// anyway, so background work keeps a share instead of starving (its workers are niced). When
// nobody has searched for `spareAfterMs`, it may use every model worker, not only the background ones.
import type { BackgroundEmbedding } from '../types/models.js';

/** The pause row that pauses everything (store/jobs.ts GLOBAL_PAUSE). */
const ALL = 0;
/** How often a waiting stage looks again whether indexing has finished. */
const INDEXING_POLL_MS = 200;
/** The longest searches hold a turn back (a stream of searches more often than `searchQuietMs` would otherwise hold it forever). */
export const DEFAULT_MAX_DEFER_MS = 1_000;
/** How long after the last search the background stage takes every worker. */
const DEFAULT_SPARE_AFTER_MS = 2_000;

export interface BackgroundDeps {
  /** The engine's option: may this engine embed in the background at all. */
  allowed: boolean;
  /** The saved setting (null: the default, on); a broken settings file reads as the default. */
  saved: () => boolean | null;
  /** Collections whose indexing is paused (0: everything). */
  paused: () => ReadonlySet<number>;
  /** Keyword indexing has work due now, or a batch or an explicit index run under way. */
  indexingBusy: () => boolean;
}

export class BackgroundPolicy {
  private lastSearchAt = -Infinity;
  private readonly sleepers = new Set<() => void>();
  /** Pauses under way (their collection still being looked up in the index): the next turn waits for them. */
  private readonly pausing = new Set<Promise<unknown>>();
  private waitingNow = false;

  constructor(
    private readonly deps: BackgroundDeps,
    private readonly opts: { searchQuietMs: number; maxDeferMs?: number; spareAfterMs?: number },
  ) {}

  enabled(): Pick<BackgroundEmbedding, 'enabled' | 'source'> {
    if (!this.deps.allowed) return { enabled: false, source: 'option' };
    const saved = this.deps.saved();
    return saved === null ? { enabled: true, source: 'default' } : { enabled: saved, source: 'saved' };
  }

  /** Paused with indexing: everything, or this collection (undefined: everything only). */
  paused(collectionId?: number): boolean {
    const p = this.deps.paused();
    return p.has(ALL) || (collectionId !== undefined && p.has(collectionId));
  }

  /** The stage may embed this collection now (enabled, not paused); waiting its turn is separate. */
  mayRun(collectionId: number): boolean {
    return this.enabled().enabled && !this.paused(collectionId);
  }

  /** A search started: new background chunks wait until searches have been quiet for a moment. */
  searched(): void {
    this.lastSearchAt = performance.now();
  }

  /** Nobody has searched for a while: the stage may lend its chunks to every worker (a search then waits one chunk at most). */
  spare(): boolean {
    return performance.now() - this.lastSearchAt >= (this.opts.spareAfterMs ?? DEFAULT_SPARE_AFTER_MS);
  }

  /** The stage is waiting for indexing or searches right now. */
  get waiting(): boolean {
    return this.waitingNow;
  }

  /**
   * A pause asked for and still under way: no batch starts before it has taken effect, however
   * long its round trips take (on PostgreSQL, more than the stage's yield before each batch).
   */
  pauseUnderWay(pausing: Promise<unknown>): void {
    const settled = pausing.then(
      () => undefined,
      () => undefined,
    );
    this.pausing.add(settled);
    void settled.then(() => this.pausing.delete(settled));
  }

  /** Resolves true when the next batch may start, false as soon as `stop()` says the stage must stop. */
  async turn(stop: () => boolean): Promise<boolean> {
    while (this.pausing.size) await Promise.all([...this.pausing]);
    /** Since when searches have held this turn back (indexing's waits do not count). */
    let deferredSince: number | null = null;
    try {
      for (;;) {
        if (stop()) return false;
        let wait: number;
        if (this.deps.indexingBusy()) {
          wait = INDEXING_POLL_MS;
          deferredSince = null;
        } else {
          const quiet = this.searchQuietLeft();
          if (quiet > 0) deferredSince ??= performance.now();
          const deferLeft = deferredSince === null ? 0 : (this.opts.maxDeferMs ?? DEFAULT_MAX_DEFER_MS) - (performance.now() - deferredSince);
          wait = Math.ceil(Math.min(quiet, deferLeft));
        }
        if (wait <= 0) return true;
        this.waitingNow = true;
        await this.sleep(wait);
      }
    } finally {
      this.waitingNow = false;
    }
  }

  /** Ends every wait now (a pause, a setting change, a close, an explicit request: look again). */
  wake(): void {
    for (const s of [...this.sleepers]) s();
  }

  /** How long until searches have been quiet for `searchQuietMs` (0: they are). */
  private searchQuietLeft(): number {
    return Math.max(0, this.opts.searchQuietMs - (performance.now() - this.lastSearchAt));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }
}
