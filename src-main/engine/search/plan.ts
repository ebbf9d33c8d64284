// Query planning for ranked keyword search. FTS5 computes BM25 for every row a query matches
// (~2 µs per posting here), so an OR of a question's words over a large index costs tens of ms,
// while an AND — which seeks along the rarest term's postings — costs about one. But an AND of
// every word usually finds nothing for a real question.
//
// The plan relaxes step by step: AND of all terms, then AND without the most frequent term, and so
// on (at most MAX_AND_STEPS), and finally an OR over the informative terms within a postings
// budget. (An OR of pairwise ANDs as an extra step was measured: slower, and lower nDCG.) Documents found by a stricter step rank above those found by a looser one
// (coordination-level ranking, BM25 within a level), so a document with every word comes first.
import { termExpression, type QueryTerm } from './query.js';

export interface PlannedTerm extends QueryTerm {
  df: number;
}

export interface PlanStep {
  name: 'all-terms' | 'most-terms' | 'any-term' | 'expression';
  expression: string;
  /** The terms it combines (AND for all-terms and most-terms, OR for any-term); absent for an expression. */
  terms?: PlannedTerm[];
}

export interface QueryPlan {
  /** Tried in order; each adds the documents it finds below those of the steps before it. */
  steps: PlanStep[];
  terms: PlannedTerm[];
  /** Terms that the final OR leaves out (absent from the index, or too frequent to be worth it). */
  dropped: PlannedTerm[];
  /**
   * The most BM25 any row could score for the terms the index has: each one's IDF times
   * (k1 + 1), the limit of its saturating term-frequency part (FTS5's bm25: k1 1.2). A row's
   * BM25 over it is an IDF-weighted average of how fully the row holds each word, comparable
   * across indexes and queries (engine/knowledge/calibrate.ts). 0 when the index has none.
   */
  bm25Bound: number;
  /** The share of the query's terms the index has at all (a corpus without some of them cannot match the query fully). */
  termCoverage: number;
}

/** FTS5 bm25()'s k1. */
const BM25_K1 = 1.2;

/** FTS5 bm25()'s IDF of a term found in `hits` of `rows` rows (never below 1e-6). */
export function bm25Idf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/** Above this share of all chunks a term is too common to drive an OR. */
const COMMON_SHARE = 0.2;
/** Roughly how many postings the final OR may rank. */
const OR_POSTINGS_BUDGET = 4_000;
const MAX_AND_STEPS = 4;
/** The plan for terms with their counts over an index of `rows` chunks (pure; keyword-search.ts counts them). */
export function planSteps(planned: PlannedTerm[], rows: number): QueryPlan {
  const present = planned.filter((t) => t.df > 0).sort((a, b) => a.df - b.df);
  const absent = planned.filter((t) => t.df === 0);
  const bm25Bound = present.reduce((sum, t) => sum + bm25Idf(rows, Math.min(t.df, rows)) * (BM25_K1 + 1), 0);
  const termCoverage = planned.length ? present.length / planned.length : 0;
  if (!present.length) return { steps: [], terms: planned, dropped: absent, bm25Bound, termCoverage };

  const steps: PlanStep[] = [];
  // AND steps: all present terms, then drop the most frequent one at a time (down to two)
  for (let n = present.length; n >= 2 && steps.length < MAX_AND_STEPS; n--) {
    const terms = present.slice(0, n);
    steps.push({ name: n === present.length ? 'all-terms' : 'most-terms', expression: terms.map(termExpression).join(' AND '), terms });
  }
  const informative: PlannedTerm[] = [];
  const dropped: PlannedTerm[] = [...absent];
  let postings = 0;
  for (const t of present) {
    const common = t.df > rows * COMMON_SHARE;
    if (informative.length && (common || postings + t.df > OR_POSTINGS_BUDGET)) dropped.push(t);
    else {
      informative.push(t);
      postings += t.df;
    }
  }
  const or = informative.map(termExpression).join(' OR ');
  if (!steps.length || informative.length > 1 || steps.at(-1)!.expression !== or) steps.push({ name: 'any-term', expression: or, terms: informative });
  return { steps, terms: planned, dropped, bm25Bound, termCoverage };
}


/**
 * The requested page of ranked documents (those under minScore dropped) and what the caller says
 * about the rest.
 */
export function rankedPage<T>(
  ranked: readonly (T & { score: number })[],
  req: { offset: number; limit: number; minScore?: number },
  exhausted: boolean,
  needed: number,
): { page: (T & { score: number })[]; hasMore: boolean; nextOffset: number | null; totalEstimated: number } {
  const kept = ranked.filter((r) => req.minScore === undefined || r.score >= req.minScore);
  const hasMore = kept.length > req.offset + req.limit;
  return {
    page: kept.slice(req.offset, req.offset + req.limit),
    hasMore,
    nextOffset: hasMore ? req.offset + req.limit : null,
    totalEstimated: exhausted ? kept.length : Math.max(kept.length, needed),
  };
}
