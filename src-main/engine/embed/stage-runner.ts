// Runs the embedding stage over the collections, one run at a time: in the background after index
// changes (where the policy allows: enabled, not paused), and on explicit request (Engine.embed:
// every worker, pauses or not). A request that arrives during a run is taken up by that run, and
// explicit ones go first: a background fill stops between batches to let them through.
import type { BackgroundPolicy } from './background.js';

export interface StageCollection {
  id: number;
  name: string;
}

export interface StageRunnerDeps {
  /** Every collection, of every kind: the memory store and datasets rely on vectors too. */
  collections: () => Promise<StageCollection[]>;
  /** Fills one collection's space; true when complete. `stop` is asked between batches. */
  embedCollection: (c: StageCollection, explicit: boolean, stop: () => boolean) => Promise<boolean>;
  policy: BackgroundPolicy;
  /** What the stage is called in its failure message (default "embedding stage"; the OCR stage runs on this runner too). */
  label?: string;
}

interface Waiter {
  pending: Set<number>;
  resolve: () => void;
}

export class StageRunner {
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly requested = new Set<number>();
  private readonly waiters: Waiter[] = [];
  /** The collection being filled in the background right now, if any. */
  private backgroundFill: number | null = null;

  constructor(private readonly deps: StageRunnerDeps) {}

  /** Something changed (index, setting, pause): look for background work. */
  kick(): void {
    if (this.closed) return;
    this.again = true;
    this.deps.policy.wake();
    void this.ensure();
  }

  /** Embeds these collections now (every worker, pauses or not); resolves when each was filled or the engine closes. */
  request(ids: readonly number[]): Promise<void> {
    if (this.closed || !ids.length) return Promise.resolve();
    for (const id of ids) this.requested.add(id);
    const done = new Promise<void>((resolve) => this.waiters.push({ pending: new Set(ids), resolve }));
    this.kick();
    return done;
  }

  /** An explicit run was asked for and is not done (a search does not wait behind it). */
  explicitUnderWay(): boolean {
    return this.requested.size > 0;
  }

  /** A run is under way (a host's idle check). */
  busy(): boolean {
    return this.running !== null;
  }

  /** The collection the background stage is filling now (null: none). */
  get fillingInBackground(): number | null {
    return this.backgroundFill;
  }

  /** Stops between batches; resolves when the run has ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.deps.policy.wake();
    await this.running?.catch(() => undefined);
    this.settle(null);
  }

  /** The run under way, or a new one; it never rejects (a failure is logged, and the next change tries again). */
  private ensure(): Promise<void> {
    this.running ??= this.loop().catch((err: unknown) => {
      if (!this.closed) process.stderr.write(`trove: ${this.deps.label ?? 'embedding stage'} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }).finally(() => {
      this.running = null;
      this.backgroundFill = null;
      // a request that came in as the run was ending: run again rather than drop it
      if (this.again && !this.closed) void this.ensure();
      else this.settle(null);
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    const { policy } = this.deps;
    while (this.again && !this.closed) {
      this.again = false;
      const all = await this.deps.collections();
      const existing = new Set(all.map((c) => c.id));
      for (const id of [...this.requested]) if (!existing.has(id)) this.done(id); // removed meanwhile
      const order = [...all.filter((c) => this.requested.has(c.id)), ...all.filter((c) => !this.requested.has(c.id))];
      for (const c of order) {
        if (this.closed) return;
        const explicit = this.requested.has(c.id);
        if (!explicit && !policy.mayRun(c.id)) continue;
        const stop = explicit ? () => this.closed : () => this.closed || !policy.mayRun(c.id) || this.requested.size > 0;
        this.backgroundFill = explicit ? null : c.id;
        let complete = false;
        try {
          complete = await this.deps.embedCollection(c, explicit, stop);
        } finally {
          this.backgroundFill = null;
        }
        if (explicit) this.done(c.id);
        else if (!complete && this.requested.size) {
          this.again = true; // yield to the explicit request, then come back
          break;
        }
      }
    }
  }

  private done(id: number): void {
    this.requested.delete(id);
    this.settle(id);
  }

  /** Resolves the waiters whose collections are all done (every waiter when id is null: the run ended). */
  private settle(id: number | null): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (id !== null) w.pending.delete(id);
      if (id === null || !w.pending.size) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}
