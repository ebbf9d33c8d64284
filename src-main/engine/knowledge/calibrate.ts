// Scores that mean the same thing whichever source and mode produced them. The engine's own
// scores are relative to their result set (keyword: min/max over the set, so every source's
// best hit is 1.0; hybrid: reciprocal-rank fusion, so the first document of both legs is 1.0),
// which is right for ranking one result list and useless for merging several. Calibration
// maps each hit's raw evidence to an absolute 0..1 scale instead:
//   keyword   BM25 / the most BM25 any row could score for the query's words that index has
//             (plan.ts bm25Bound: Σ IDF × (k1 + 1)) — an IDF-weighted average of how fully the row
//             holds each word, near 1 in a small corpus and a large one alike — times the share
//             of the query's words the index has at all (a corpus without some of them cannot
//             answer the query fully);
//   semantic  the cosine similarity of query and best chunk;
//   hybrid    the mean of both (a leg that ran and did not find the document counts 0).
// The BM25 ratio is then put on the cosine's scale (keywordEvidence), measured on SciFact so
// that a relevant document scores about the same whichever evidence found it.
// Finally the source's own ranking is kept: scores are made non-increasing down the source's
// order (a running minimum), so merging never reorders one source's results — knowledge.search
// over one source ranks exactly as the engine does — and a page's scores do not depend on how
// deep the merge looked (the minimum over a prefix is stable), so pagination stays consistent.
import type { Bm25Scale } from '../search/keyword-search.js';
import type { KnowledgeScoreType } from '../types/knowledge.js';

/**
 * BM25 ratios sit lower than cosines and spread wider. Measured on SciFact's 300 test queries,
 * top 10 of each leg (all-MiniLM-L6-v2): relevant documents' ratio p10/p50/p90 0.20/0.42/0.68
 * against cosine 0.48/0.64/0.77; irrelevant ones' 0.14/0.23/0.39 against 0.39/0.51/0.63. The
 * square root (times the coverage, ~1 there) lands on the cosine's scale: relevant
 * 0.45/0.64/0.83, irrelevant 0.37/0.48/0.63.
 */
export function keywordEvidence(bm25: number, scale: Bm25Scale | null): number | null {
  if (!scale || !scale.bound) return null;
  if (!(bm25 > 0)) return 0;
  return Math.sqrt(Math.min(1, bm25 / scale.bound)) * scale.coverage;
}

/** Cosine similarity clipped to 0..1 (a negative cosine is no evidence at all). */
export function semanticEvidence(cosine: number): number {
  return Math.min(1, Math.max(0, cosine));
}

export interface HitEvidence {
  bm25?: number;
  cosine?: number;
}

/** What ran for a result list: which legs, and the keyword leg's BM25 scale. */
export interface LegsRun {
  keyword: boolean;
  vector: boolean;
  bm25Scale: Bm25Scale | null;
}

export function scoreTypeOf(run: LegsRun): KnowledgeScoreType {
  if (run.keyword && run.vector) return 'hybrid';
  return run.vector ? 'semantic' : 'fts';
}

/** One hit's absolute evidence (0..1), or null when its leg gave nothing comparable. */
export function evidenceOf(signals: HitEvidence | undefined, run: LegsRun): number | null {
  const k = run.keyword ? (signals?.bm25 !== undefined ? keywordEvidence(signals.bm25, run.bm25Scale) : 0) : undefined;
  const v = run.vector ? (signals?.cosine !== undefined ? semanticEvidence(signals.cosine) : 0) : undefined;
  if (k === null) return null;
  if (k !== undefined && v !== undefined) return (k + v) / 2;
  return k ?? v ?? null;
}

/** Below a hit's neighbour above it by this much at least: one source's order survives rounding-free merges. */
const STEP = 1e-6;

/**
 * Calibrated scores for one source's ranked list: each hit's evidence, capped by the score of
 * the hit above it. A hit without comparable evidence (an FTS expression has no BM25 bound)
 * falls back to positional decay, 1 / (1 + rank), as the spec has it when BM25 is missing.
 */
export function calibrate(evidence: readonly (number | null)[]): number[] {
  const out: number[] = [];
  let ceiling = 1;
  evidence.forEach((e, rank) => {
    const raw = e ?? 1 / (1 + rank);
    const score = Math.max(0, Math.min(raw, ceiling));
    out.push(score);
    ceiling = score - STEP;
  });
  return out;
}

/** Scores as results show them: four decimals. */
export function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
