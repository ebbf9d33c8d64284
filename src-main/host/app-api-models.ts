// Model downloads started from the app (Settings): `models.pull` answers at once and the files
// arrive in the background through the engine's downloader (resumable, sha256-checked, atomic),
// with a few progress events a second and one `model.finished` when it ends either way.
import type { ApiEvent } from '../api/results.js';
import { TroveError, type Engine } from '../engine/index.js';

/** Bytes arrive per network chunk; the UI needs about four updates a second. */
const PUSH_INTERVAL_MS = 250;

export class ModelPulls {
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(
    private readonly engine: Pick<Engine, 'models'>,
    private readonly emit: (e: ApiEvent) => void,
    /** Base URL serving <model id>/<file> instead of each model's own source (TROVE_MODELS_MIRROR). */
    private readonly mirror?: string,
  ) {}

  start(id: string): { started: string } {
    this.engine.models.assertKnown(id); // NOT_FOUND now, not as a failed download event
    if (this.running.has(id)) throw new TroveError('CONFLICT', `"${id}" is already downloading; wait for it to finish`);
    let last = 0;
    let lastFile = '';
    const run = this.engine.models
      .pull(id, {
        mirror: this.mirror,
        signal: this.abort.signal,
        onProgress: (p) => {
          const now = Date.now();
          // always the first and last report of each file, in between at most every PUSH_INTERVAL_MS
          if (p.file === lastFile && now - last < PUSH_INTERVAL_MS && p.received !== p.total) return;
          last = now;
          lastFile = p.file;
          this.emit({ type: 'model.progress', model: id, file: p.file, received: p.received, total: p.total, source: p.source });
        },
      })
      .then(
        (r) => this.emit({ type: 'model.finished', model: id, error: null, source: r.source }),
        (err: unknown) => this.emit({ type: 'model.finished', model: id, error: err instanceof Error ? err.message : String(err), source: null }),
      )
      .finally(() => this.running.delete(id));
    this.running.set(id, run);
    return { started: id };
  }

  /** Resolves when no download is running. */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }

  /** Stops running downloads (their .part files stay, so a later pull resumes). */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.running.values()]);
  }
}
