// The background embedding stage: after keyword indexing, finds chunks without a vector in
// their collection's space (the current model at the current weights digest) and embeds them
// in batches. Resumable by construction: the work list is "chunks without a vector", so an
// interrupted run simply continues, and chunks that already have one are never re-embedded.
import type { VectorStore } from '../store/vectors.js';
import type { ModelPool } from './pool.js';
import type { EmbeddingProgress } from '../types/models.js';

export type { EmbeddingProgress };

export interface StageTarget {
  collectionId: number;
  collection: string;
  spaceId: number;
  switching: boolean;
  pool: ModelPool;
}

export async function fillSpace(
  vectors: VectorStore,
  /** A document's text ('' when it is gone). */
  textOf: (documentId: number) => string,
  t: StageTarget,
  opts: { batch: number; isStopped: () => boolean; onProgress?: (p: EmbeddingProgress) => void },
): Promise<boolean> {
  let total = vectors.pendingCount(t.spaceId, t.collectionId);
  const started = performance.now();
  let done = 0;
  const report = (phase: EmbeddingProgress['phase']) => {
    const secs = (performance.now() - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    opts.onProgress?.({
      collection: t.collection,
      model: t.pool.model.spec.id,
      phase,
      done,
      total,
      chunksPerSecond: Math.round(rate * 10) / 10,
      etaSeconds: rate > 0 ? Math.round((total - done) / rate) : null,
    });
  };
  report(t.switching ? 'switching' : 'filling');
  while (!opts.isStopped()) {
    const batch = vectors.pending(t.spaceId, t.collectionId, opts.batch);
    if (!batch.length) break;
    const texts = new Map<number, string>();
    const items = batch.map((c) => {
      let text = texts.get(c.documentId);
      if (text === undefined) {
        text = textOf(c.documentId);
        texts.set(c.documentId, text);
      }
      return { chunk: c, text: text.slice(c.charStart, c.charEnd) };
    });
    // one chunk per request: both workers stay busy and every vector is exact (see onnx-model.ts)
    const vecs = await Promise.all(items.map((it) => t.pool.embed([it.text], 'passage')));
    if (opts.isStopped()) return false;
    // chunks deleted while they were embedded are skipped here and gone from the pending list
    vectors.insert(t.spaceId, t.collectionId, items.map((it, i) => ({ chunkId: it.chunk.id, vector: vecs[i]! })));
    done += items.length;
    report(t.switching ? 'switching' : 'filling');
  }
  if (opts.isStopped()) return false;
  total = Math.max(done, total);
  done = total;
  report('done');
  return true;
}
