// Cross-encoder reranking of the top fused candidates, blended with the fusion score by rank
// band: the fusion order is trusted most at the top (top 3: 75% fusion / 25% rerank; 4-10:
// 60/40; 11+: 40/60), where a small reranker is most likely to do harm.
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
