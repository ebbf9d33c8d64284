// A document hit inside the engine, as every leg (keyword, vector, fusion, rerank) passes it on:
// the public hit fields plus what the legs need and faces do not see (the document and its anchor
// chunk by row id, the modified time in ms). response.ts turns it into the public SearchResult.
import type { HitFields } from '../types/search.js';

export interface RankedHit extends HitFields {
  documentId: number;
  /** The anchor chunk: the document's best-matching chunk. */
  chunkId: number;
  modifiedMs: number;
  /**
   * The legs' raw evidence for this document, for callers that compare scores across result
   * sets (engine/knowledge): its best chunk's BM25 (keyword leg) and cosine similarity (vector
   * leg). Faces never see it (response.ts picks the public fields).
   */
  signals?: { bm25?: number; cosine?: number };
}
