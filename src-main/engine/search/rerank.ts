// Cross-encoder reranking of the top fused candidates, blended with the fusion score by rank
// band: the fusion order is trusted most at the top (top 3: 75% fusion / 25% rerank; 4-10:
// 60/40; 11+: 40/60), where a small reranker is most likely to do harm.
import type { Db } from '../store/database.js';
import type { FusedHit } from './fusion.js';

export const DEFAULT_RERANK_TOP = 30;

export function fusionWeightForRank(rank: number): number {
  if (rank <= 3) return 0.75;
  if (rank <= 10) return 0.6;
  return 0.4;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export interface RerankedHit extends FusedHit {
  rerank?: { logit: number; score: number; fusionRank: number };
}

/** The anchor chunk text of each candidate: what the cross-encoder reads. */
export function passagesOf(db: Db, hits: readonly FusedHit[]): string[] {
  const stmt = db.prepare<[number], { text: string; char_start: number; char_end: number }>(
    'SELECT t.text, c.char_start, c.char_end FROM chunks c JOIN contents t ON t.document_id = c.document_id WHERE c.id = ?',
  );
  return hits.map((h) => {
    const r = stmt.get(h.hit.chunkId);
    return r ? r.text.slice(r.char_start, r.char_end) : h.hit.title;
  });
}

/** Blends fusion and rerank scores of the first `logits.length` hits and re-sorts them; the rest keep their place after. */
export function blendRerank(fused: readonly FusedHit[], logits: Float32Array): RerankedHit[] {
  const n = Math.min(fused.length, logits.length);
  const top: RerankedHit[] = fused.slice(0, n).map((f, i) => {
    const w = fusionWeightForRank(i + 1);
    const r = sigmoid(logits[i]!);
    return { ...f, score: w * f.score + (1 - w) * r, rerank: { logit: logits[i]!, score: r, fusionRank: i + 1 } };
  });
  top.sort((a, b) => b.score - a.score || a.hit.documentId - b.hit.documentId);
  return [...top, ...fused.slice(n)];
}
