// The scheduling of a serving host's background embedding on a shared index (the embedding itself
// is tested against PostgreSQL in test/storage/shared-embedding.test.ts and through a real
// `trove serve --database` in test/mcp/postgres-serve-indexing.test.ts): every collection once at
// start, a collection again when its queue runs dry, one run at a time, a request during a run
// honoured after it, a model this host lacks said once, and stop() cancelling the run under way.
import { describe, expect, it } from 'vitest';
import { TroveError } from '../../src-main/engine/errors.js';
import { SharedEmbeddingLoop, type EmbeddingSource } from '../../src-main/engine/shared/shared-embedding-loop.js';

class Source implements EmbeddingSource {
  readonly calls: string[] = [];
  running = 0;
  maxRunning = 0;
  private listener: ((e: { collection: string; phase: string }) => void) | null = null;
  private release: (() => void) | null = null;
  hold = false;

  onProgress(listener: (e: { collection: string; phase: string }) => void) {
    this.listener = listener;
    return () => (this.listener = null);
  }
  async listCollections() {
    return [{ name: 'docs' }, { name: 'far' }];
  }
  async embed({ collection, signal }: { collection: string; signal: AbortSignal }) {
    this.calls.push(collection);
    this.maxRunning = Math.max(this.maxRunning, ++this.running);
    try {
      if (this.hold) await new Promise<void>((resolve) => { this.release = resolve; signal.addEventListener('abort', () => resolve()); });
      else await new Promise((r) => setTimeout(r, 1));
      if (signal.aborted) throw new TroveError('INTERNAL', 'embedding cancelled');
      if (collection === 'far') throw new TroveError('UNAVAILABLE', 'model multilingual-e5-small is not on this host');
      return [{ collection, model: 'all-MiniLM-L6-v2', embedded: 2, pending: 0 }];
    } finally {
      this.running--;
    }
  }
  idle(collection: string) {
    this.listener?.({ collection, phase: 'idle' });
  }
  letGo() {
    this.release?.();
    this.release = null;
  }
}

async function waitFor(condition: () => boolean) {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(condition()).toBe(true);
}

const settled = (loop: SharedEmbeddingLoop) => waitFor(() => !loop.busy);

describe('SharedEmbeddingLoop', () => {
  it('embeds every collection at start and again when its queue runs dry, one run at a time, saying a missing model once', async () => {
    const source = new Source();
    const log: string[] = [];
    const loop = new SharedEmbeddingLoop(source, (l) => log.push(l));
    await loop.start();
    await settled(loop);
    expect(source.calls).toEqual(['docs', 'far']);
    source.idle('far');
    source.idle('docs');
    source.idle('docs'); // asked twice before it ran: once
    await settled(loop);
    expect(source.calls).toEqual(['docs', 'far', 'far', 'docs']);
    expect(source.maxRunning).toBe(1);
    expect(log.filter((l) => l.startsWith('far: not embedded on this host: model multilingual-e5-small'))).toHaveLength(1);
    expect(log.filter((l) => l === 'docs: 2 chunks embedded with all-MiniLM-L6-v2')).toHaveLength(2);
    await loop.stop();
  });

  it('a collection asked for during its own run is embedded again after it; stop() cancels the run and ignores later progress', async () => {
    const source = new Source();
    const loop = new SharedEmbeddingLoop(source, () => undefined);
    source.hold = true;
    await loop.start();
    await waitFor(() => source.running === 1);
    expect(source.calls).toEqual(['docs']);
    source.idle('docs'); // new chunks arrived while 'docs' was being embedded
    source.letGo();
    await waitFor(() => source.calls.length === 2 && source.running === 1);
    source.letGo(); // 'far'
    await waitFor(() => source.calls.length === 3 && source.running === 1);
    expect(source.calls).toEqual(['docs', 'far', 'docs']);
    await loop.stop(); // cancels the held third run
    expect(loop.busy).toBe(false);
    source.idle('docs');
    await loop.start(); // a stopped loop stays stopped
    expect(loop.busy).toBe(false);
    expect(source.calls).toEqual(['docs', 'far', 'docs']);
  });
});
