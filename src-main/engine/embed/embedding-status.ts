// How far embedding has come: per collection (model, vectors, chunks still waiting), and the
// coverage of a set of collections that semantic search notices quote on every query. Counting
// walks a collection's chunks (0.4 ms for 2,000), so for notices counts are kept until the index
// changes or a collection is filled, and at most 2 s while the stage writes: a search's notice is a
// map lookup.
import type { Storage } from '../store/storage.js';
import type { VectorSpace } from '../store/vectors.js';
import type { CollectionEmbeddingStatus, EmbeddingCoverage, EmbeddingProgress } from '../types/models.js';

/** Counts may lag the stage's writes by this much (they are recounted on the next index change anyway). */
const MAX_AGE_MS = 2_000;

/**
 * A collection's embedding status from its spaces and counts. A chunk has at most one vector in a
 * space and vectors go with their chunks, so chunks less those waiting is the vector count; asking vec0 for its
 * partition's rows walks them (20-80 ms for 2,000, measured).
 */
export function collectionEmbedding(
  active: VectorSpace | undefined,
  building: VectorSpace | undefined,
  chunks: number,
  needsEmbedding: number,
): Omit<CollectionEmbeddingStatus, 'collection'> {
  const vectors = chunks - needsEmbedding;
  return {
    model: active?.modelId ?? null,
    weightsSha256: active?.weightsSha256 ?? null,
    vectors,
    needsEmbedding,
    chunks,
    hasVectorIndex: vectors > 0,
    switchingTo: building?.modelId ?? null,
  };
}

export class EmbeddingCounts {
  private readonly cache = new Map<number, { at: number; version: number; status: Promise<Omit<CollectionEmbeddingStatus, 'collection'>> }>();
  private version = 0;

  constructor(private readonly storage: Storage) {}

  /** The index or the vectors changed: count again when next asked. */
  invalidate(): void {
    this.version++;
  }

  /** Counted now (status, `trove embed`'s answer). */
  async collection(collectionId: number, name: string): Promise<CollectionEmbeddingStatus> {
    const version = this.version;
    const status = this.count(collectionId);
    this.cache.set(collectionId, { at: performance.now(), version, status });
    status.catch(() => this.cache.get(collectionId)?.status === status && this.cache.delete(collectionId)); // a failed count is not kept
    return { collection: name, ...(await status) };
  }

  /** The same as collection(), counted at most every few seconds (every semantic search asks). */
  async recent(collectionId: number, name: string): Promise<CollectionEmbeddingStatus> {
    const hit = this.cache.get(collectionId);
    if (hit && hit.version === this.version && performance.now() - hit.at < MAX_AGE_MS) return { collection: name, ...(await hit.status) };
    return this.collection(collectionId, name);
  }

  private async count(collectionId: number): Promise<Omit<CollectionEmbeddingStatus, 'collection'>> {
    const { vectors, stats } = this.storage;
    const cv = await vectors.collection(collectionId);
    const [active, building, chunks] = await Promise.all([
      cv.activeSpaceId !== null ? vectors.space(cv.activeSpaceId) : undefined,
      cv.buildingSpaceId !== null ? vectors.space(cv.buildingSpaceId) : undefined,
      stats.chunkCount(collectionId),
    ]);
    const needsEmbedding = active ? await vectors.pendingCount(active.id, collectionId) : chunks;
    return collectionEmbedding(active, building, chunks, needsEmbedding);
  }
}

/** Embedded chunks over all chunks of these collections, with the stage's rate and ETA for them. */
export function coverageOf(statuses: readonly CollectionEmbeddingStatus[], progress: readonly EmbeddingProgress[]): EmbeddingCoverage {
  let embedded = 0;
  let chunks = 0;
  for (const s of statuses) {
    // vectors of chunks that are gone are deleted with them, so vectors never exceed chunks for long
    embedded += Math.min(s.vectors, s.chunks);
    chunks += s.chunks;
  }
  const names = new Set(statuses.map((s) => s.collection));
  const live = progress.filter((p) => names.has(p.collection) && (p.phase === 'filling' || p.phase === 'switching'));
  const chunksPerSecond = Math.round(live.reduce((n, p) => n + p.chunksPerSecond, 0) * 10) / 10;
  const left = chunks - embedded;
  return {
    embedded,
    chunks,
    percent: chunks ? Math.floor((embedded / chunks) * 1000) / 10 : 100,
    chunksPerSecond,
    etaSeconds: left > 0 && chunksPerSecond > 0 ? Math.round(left / chunksPerSecond) : null,
  };
}
