// Background embedding for a host serving a shared index (PostgreSQL), the counterpart of SQLite's
// embedding stage: whenever a collection's queue runs dry on this host (its progress settles idle:
// a start-up scan, a watched change), its chunks without vectors are embedded, the work shared with
// every other host through embedding_claims (shared-embedder.ts). One collection at a time, so the
// model workers never compete with each other; a collection asked for again while it is being
// embedded is embedded once more afterwards. A collection whose model this host does not have is
// said once and left to the hosts that have it (its keyword index is complete either way).
import { isTroveError } from '../errors.js';
import type { SharedEmbedResult } from './shared-embedder.js';

/** What the loop needs of the indexer (SharedIndexer): its progress and its embed(). */
export interface EmbeddingSource {
  onProgress(listener: (e: { collection: string; phase: string }) => void): () => void;
  listCollections(): Promise<{ name: string }[]>;
  embed(opts: { collection: string; signal: AbortSignal }): Promise<SharedEmbedResult[]>;
}

export class SharedEmbeddingLoop {
  private readonly wanted = new Set<string>();
  private readonly saidUnavailable = new Set<string>();
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private stopProgress: (() => void) | null = null;

  constructor(
    private readonly source: EmbeddingSource,
    /** One line for the host's log (stderr in `trove serve`). */
    private readonly log: (line: string) => void,
  ) {}

  /** Embeds what every folder collection still lacks, then each collection again whenever its queue runs dry. */
  async start(): Promise<void> {
    if (this.abort.signal.aborted) return; // stopped for good
    this.stopProgress ??= this.source.onProgress((e) => {
      if (e.phase === 'idle') this.request(e.collection);
    });
    for (const c of await this.source.listCollections()) this.request(c.name);
  }

  /** Stops listening, cancels the run under way (its chunks stay pending for the next run or another host) and waits for it. */
  async stop(): Promise<void> {
    this.stopProgress?.();
    this.stopProgress = null;
    this.abort.abort();
    this.wanted.clear();
    await this.running;
  }

  /** A run is under way (a host's idle check). */
  get busy(): boolean {
    return this.running !== null;
  }

  private request(collection: string): void {
    if (this.abort.signal.aborted) return;
    this.wanted.add(collection);
    this.running ??= this.drain().finally(() => {
      this.running = null;
      // asked for between the drain's last look and now
      if (this.wanted.size && !this.abort.signal.aborted) this.request([...this.wanted][0]!);
    });
  }

  private async drain(): Promise<void> {
    while (this.wanted.size && !this.abort.signal.aborted) {
      const collection = [...this.wanted][0]!;
      this.wanted.delete(collection);
      try {
        for (const r of await this.source.embed({ collection, signal: this.abort.signal })) {
          this.saidUnavailable.delete(collection);
          if (r.embedded) this.log(`${r.collection}: ${r.embedded} chunk${r.embedded === 1 ? '' : 's'} embedded with ${r.model}${r.pending ? `, ${r.pending} still pending` : ''}`);
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        if (isTroveError(err) && err.code === 'NOT_FOUND') continue; // removed meanwhile, by some host
        if (isTroveError(err) && err.code === 'UNAVAILABLE') {
          if (!this.saidUnavailable.has(collection)) this.log(`${collection}: not embedded on this host: ${err.message}`);
          this.saidUnavailable.add(collection);
          continue;
        }
        this.log(`${collection}: embedding failed: ${(err as Error).message}`);
      }
    }
  }
}
