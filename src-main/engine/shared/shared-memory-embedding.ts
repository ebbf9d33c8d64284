// Background embedding of agent memory on a shared index (PostgreSQL), the counterpart of the
// SQLite embedding stage for the `~memory` collection: a write never waits for the model; after
// memory changes (here, or on another host: NOTIFY) its chunks without a vector are embedded by
// SharedEmbedder — the same model choice, one chunk per request, slices claimed so that several
// hosts share the work — one run at a time, and once more if memory changed during a run.
import { isTroveError } from '../errors.js';
import type { Storage } from '../store/storage.js';
import type { SharedEmbedder } from './shared-embedder.js';
import type { SharedMemory } from './shared-memory.js';

export class SharedMemoryEmbedding {
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private again = false;
  private saidUnavailable = false;
  private stopListening: (() => void) | null = null;

  constructor(
    private readonly memory: SharedMemory,
    private readonly storage: Storage,
    private readonly embedder: SharedEmbedder,
    private readonly log: (line: string) => void,
  ) {}

  /** Embeds what memory lacks now, then again whenever it changes. */
  start(): void {
    this.stopListening ??= this.memory.onChange(() => this.request());
    this.request();
  }

  get busy(): boolean {
    return this.running !== null;
  }

  /** Stops listening and cancels a run under way (its chunks stay pending), waiting for it. */
  async stop(): Promise<void> {
    this.stopListening?.();
    this.stopListening = null;
    this.abort.abort();
    await this.running;
  }

  private request(): void {
    if (this.abort.signal.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.request();
      }
    });
  }

  private async run(): Promise<void> {
    try {
      const id = await this.memory.existingCollection();
      const c = id === null ? undefined : await this.storage.collections.byId(id);
      if (!c) return;
      const r = await this.embedder.embed(c, { signal: this.abort.signal });
      this.saidUnavailable = false;
      if (r.embedded) this.log(`memory: ${r.embedded} chunk${r.embedded === 1 ? '' : 's'} embedded with ${r.model}${r.pending ? `, ${r.pending} still pending` : ''}`);
    } catch (err) {
      if (this.abort.signal.aborted) return;
      if (isTroveError(err) && err.code === 'UNAVAILABLE') {
        if (!this.saidUnavailable) this.log(`memory: not embedded on this host: ${err.message}`);
        this.saidUnavailable = true;
        return;
      }
      this.log(`memory: embedding failed: ${(err as Error).message}`);
    }
  }
}
