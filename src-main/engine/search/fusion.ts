// Hybrid fusion of ranked legs (keyword, vector): reciprocal rank fusion (k = 60, a weight per
// leg) or a weighted sum of the legs' 0..1 scores (semantic 0.6 / keyword 0.4 by default).
// Every fused hit keeps each leg's rank and score for `explain`.
import type { RankedHit } from './hit.js';

export interface Leg {
  name: string;
  weight: number;
  hits: readonly RankedHit[];
}

export interface FusedHit {
  hit: RankedHit;
  score: number;
  legs: Record<string, { rank: number; score: number }>;
}

export const RRF_K = 60;

/** Σ weight / (k + rank) per document, normalised so a document first in every leg scores 1. */
export function reciprocalRankFusion(legs: readonly Leg[], k = RRF_K): FusedHit[] {
  const best = legs.reduce((s, l) => s + l.weight / (k + 1), 0) || 1;
  return fuse(legs, (rank, _score, weight) => weight / (k + rank), best);
}

/** Σ weight × leg score (each leg's scores are already 0..1); a document absent from a leg gets 0 there. */
export function weightedSumFusion(legs: readonly Leg[]): FusedHit[] {
  const total = legs.reduce((s, l) => s + l.weight, 0) || 1;
  return fuse(legs, (_rank, score, weight) => weight * score, total);
}

function fuse(legs: readonly Leg[], part: (rank: number, score: number, weight: number) => number, scale: number): FusedHit[] {
  const byDoc = new Map<number, FusedHit>();
  for (const leg of legs) {
    leg.hits.forEach((hit, i) => {
      let f = byDoc.get(hit.documentId);
      if (!f) {
        f = { hit, score: 0, legs: {} };
        byDoc.set(hit.documentId, f);
      } else if (hit.signals) f.hit = { ...f.hit, signals: { ...f.hit.signals, ...hit.signals } }; // every leg's evidence, one hit
      f.legs[leg.name] = { rank: i + 1, score: hit.score };
      f.score += part(i + 1, hit.score, leg.weight);
    });
  }
  return [...byDoc.values()]
    .map((f) => ({ ...f, score: Math.min(1, f.score / scale) }))
    .sort((a, b) => b.score - a.score || a.hit.documentId - b.hit.documentId);
}
