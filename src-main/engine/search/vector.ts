// Vector search: the nearest chunks of each collection's vector space under the filters (the
// backend's kNN, store/storage.ts VectorRepository.nearest), collapsed to documents with the best
// chunk as anchor. Scores are cosine similarities clipped to 0..1; documents below minScore (0.3 by
// default) are dropped. Documents and memory both search through here.
import type { Storage } from '../store/storage.js';
import type { VectorMatch, VectorSpace } from '../store/vectors.js';
import type { ResolvedFilters } from '../store/filters.js';

export const DEFAULT_VECTOR_MIN_SCORE = 0.3;
/** The most nearest chunks one round asks a space for. */
export const MAX_K = 4096;

/** One space and the collections whose searches it serves, with the query embedded for it. */
export interface SpaceQuery {
  space: VectorSpace;
  collectionIds: number[];
  vector: Float32Array;
}

/** A document found by the vector leg: its nearest chunk and cosine score. */
export interface NearestDocument {
  documentId: number;
  chunkId: number;
  distance: number;
  /** How many of its chunks the rounds returned. */
  chunks: number;
  score: number;
}

/**
 * The best `top` documents across the spaces, each with its nearest chunk, asking each space for
 * more chunks round by round until enough documents are found; `exhausted` when nothing more could match.
 */
export async function nearestDocuments(
  storage: Storage,
  spaces: readonly SpaceQuery[],
  top: number,
  minScore: number,
  filters: ResolvedFilters,
): Promise<{ documents: NearestDocument[]; exhausted: boolean }> {
  const best = new Map<number, DocumentNearest>();
  let exhausted = true;
  for (const sq of spaces) {
    for (let k = Math.min(MAX_K, top * 4 + 16); ; k = Math.min(MAX_K, k * 4)) {
      // collections go in as the space's partition; the rest of the filters are the backend's to push down
      const rows = await storage.vectors.nearest(sq.space.id, sq.vector, sq.collectionIds, k, { ...filters, collectionIds: undefined });
      const outcome = settleRound(rows, rows.length < k, k, top, minScore, best);
      if (outcome.settled) {
        if (outcome.more) exhausted = false;
        break;
      }
    }
  }
  return { documents: rankedDocuments(best, minScore, top), exhausted };
}

/** A document's nearest chunk in a space, and how many of its chunks the round returned. */
interface DocumentNearest {
  chunkId: number;
  distance: number;
  chunks: number;
}

/**
 * One kNN round of a space (`full`: it returned fewer rows than the k asked), collapsed to
 * documents. The round settles the space when it found enough documents, the rest are already
 * below minScore, or there is nothing more to fetch; then its documents go into `best` (the
 * nearest chunk wins across spaces), and `more` says whether further rows could have matched.
 */
function settleRound(rows: readonly VectorMatch[], full: boolean, k: number, top: number, minScore: number, best: Map<number, DocumentNearest>): { settled: boolean; more: boolean } {
  const docs = new Map<number, DocumentNearest>();
  for (const r of rows) {
    const d = docs.get(r.documentId);
    if (d) d.chunks++;
    else docs.set(r.documentId, { chunkId: r.chunkId, distance: r.distance, chunks: 1 });
  }
  const last = rows[rows.length - 1];
  const belowMin = last !== undefined && 1 - last.distance < minScore;
  if (!(full || docs.size >= top || belowMin || k >= MAX_K)) return { settled: false, more: true };
  for (const [id, d] of docs) {
    const prev = best.get(id);
    if (!prev || d.distance < prev.distance) best.set(id, d);
  }
  return { settled: true, more: !full && !belowMin };
}

/** The best documents, scored by cosine (0..1), at or above minScore, at most `top`. */
function rankedDocuments(best: ReadonlyMap<number, DocumentNearest>, minScore: number, top: number): NearestDocument[] {
  return [...best.entries()]
    .map(([documentId, d]) => ({ documentId, ...d, score: Math.max(0, Math.min(1, 1 - d.distance)) }))
    .filter((d) => d.score >= minScore)
    .sort((a, b) => b.score - a.score || a.documentId - b.documentId)
    .slice(0, top);
}

export function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
