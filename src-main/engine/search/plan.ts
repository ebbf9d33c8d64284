// Query planning for ranked keyword search. FTS5 computes BM25 for every row a query matches
// (~2 µs per posting here), so an OR of a question's words over a large index costs tens of ms,
// while an AND — which seeks along the rarest term's postings — costs about one. But an AND of
// every word usually finds nothing for a real question.
//
// The plan relaxes step by step: AND of all terms, then AND without the most frequent term, and so
// on (at most MAX_AND_STEPS), and finally an OR over the informative terms within a postings
// budget. (An OR of pairwise ANDs as an extra step was measured: slower, and lower nDCG.) Documents found by a stricter step rank above those found by a looser one
// (coordination-level ranking, BM25 within a level), so a document with every word comes first.
import type { Db } from '../store/database.js';
import { termExpression, type QueryTerm } from './query.js';
import { indexTerm } from './terms.js';

export interface PlannedTerm extends QueryTerm {
  df: number;
}

export interface PlanStep {
  name: 'all-terms' | 'most-terms' | 'any-term' | 'expression';
  expression: string;
  /**
   * Rows matching each phrase of the expression, in order (null: not known exactly, e.g. a
   * prefix): ranking takes them instead of counting them again (store/rank-extension.ts).
   */
  hits?: (number | null)[];
}

export interface QueryPlan {
  /** Tried in order; each adds the documents it finds below those of the steps before it. */
  steps: PlanStep[];
  terms: PlannedTerm[];
  /** Terms that the final OR leaves out (absent from the index, or too frequent to be worth it). */
  dropped: PlannedTerm[];
}

/** Above this share of all chunks a term is too common to drive an OR. */
const COMMON_SHARE = 0.2;
/** Roughly how many postings the final OR may rank. */
const OR_POSTINGS_BUDGET = 4_000;
const MAX_AND_STEPS = 4;
const DF_CACHE_SIZE = 5_000;

export class QueryPlanner {
  private readonly dfStmt;
  private readonly prefixDfStmt;
  private readonly countStmt;
  private cache: { generation: number; rows: number; df: Map<string, number> } = { generation: -1, rows: 0, df: new Map() };

  constructor(db: Db) {
    this.dfStmt = db.prepare<[string], { doc: number }>('SELECT doc FROM chunks_fts_vocab WHERE term = ?');
    this.prefixDfStmt = db.prepare<[string, string], { doc: number | null }>(
      'SELECT sum(doc) AS doc FROM chunks_fts_vocab WHERE term >= ? AND term < ?',
    );
    this.countStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks');
  }

  plan(terms: QueryTerm[], generation: number): QueryPlan {
    if (this.cache.generation !== generation) this.cache = { generation, rows: this.countStmt.get()!.n, df: new Map() };
    const rows = this.cache.rows;
    const planned = terms.map((t) => ({ ...t, df: this.documentFrequency(t) }));
    const present = planned.filter((t) => t.df > 0).sort((a, b) => a.df - b.df);
    const absent = planned.filter((t) => t.df === 0);
    if (!present.length) return { steps: [], terms: planned, dropped: absent };

    const steps: PlanStep[] = [];
    // AND steps: all present terms, then drop the most frequent one at a time (down to two)
    for (let n = present.length; n >= 2 && steps.length < MAX_AND_STEPS; n--) {
      const terms = present.slice(0, n);
      steps.push({ name: n === present.length ? 'all-terms' : 'most-terms', expression: terms.map(termExpression).join(' AND '), hits: terms.map(exactHits) });
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
    if (!steps.length || informative.length > 1 || steps.at(-1)!.expression !== or) steps.push({ name: 'any-term', expression: or, hits: informative.map(exactHits) });
    return { steps, terms: planned, dropped };
  }

  /** Chunks containing the term (fts5vocab's row count); for a prefix, the sum over its terms. */
  private documentFrequency(t: QueryTerm): number {
    // fts5vocab counts rows by walking the term's postings: cache per index generation
    const key = t.prefix ? `${t.token.text}*` : indexTerm(t.token);
    const cached = this.cache.df.get(key);
    if (cached !== undefined) return cached;
    const df = t.prefix
      ? (this.prefixDfStmt.get(t.token.text, t.token.text + '\uffff')?.doc ?? 0)
      : (this.dfStmt.get(key)?.doc ?? 0);
    if (this.cache.df.size >= DF_CACHE_SIZE) this.cache.df.clear();
    this.cache.df.set(key, df);
    return df;
  }
}

/** A prefix's summed count overstates the rows it matches (a row with two of its terms counts twice). */
function exactHits(t: PlannedTerm): number | null {
  return t.prefix ? null : t.df;
}
