// Query planning for ranked keyword search. FTS5 ranks every row a query matches, so an OR of
// all a question's words over a large index is slow, while an AND of them usually finds nothing.
// The plan: look up each term's document frequency, run the strict AND first (cheap, and its
// rows are usually the best), and relax to an OR over the informative terms when AND finds too
// few — leaving out terms so frequent that they would make the OR scan most of the index while
// adding almost nothing to BM25 (idf of a term in >20% of rows is < 1.4).
import type { Db } from '../store/database.js';
import { termExpression, type QueryTerm } from './query.js';
import { indexTerm } from './terms.js';

export interface PlannedTerm extends QueryTerm {
  df: number;
}

export interface QueryPlan {
  /** Expressions to try in order; the next runs only if the previous found too few documents. */
  steps: { name: 'all-terms' | 'any-term' | 'expression'; expression: string }[];
  terms: PlannedTerm[];
  dropped: PlannedTerm[];
}

/** Above this share of all chunks a term is too common to drive an OR. */
const COMMON_SHARE = 0.2;
/** Roughly how many postings an OR may rank before the rarest terms alone must carry it. */
const OR_POSTINGS_BUDGET = 40_000;

export class QueryPlanner {
  private readonly dfStmt;
  private readonly prefixDfStmt;
  private readonly countStmt;
  private cachedRows: { generation: number; rows: number } | null = null;

  constructor(db: Db) {
    this.dfStmt = db.prepare<[string], { doc: number }>('SELECT doc FROM chunks_fts_vocab WHERE term = ?');
    this.prefixDfStmt = db.prepare<[string, string], { doc: number | null }>(
      'SELECT sum(doc) AS doc FROM chunks_fts_vocab WHERE term >= ? AND term < ?',
    );
    this.countStmt = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks');
  }

  plan(terms: QueryTerm[], generation: number): QueryPlan {
    const rows = this.totalRows(generation);
    const planned = terms.map((t) => ({ ...t, df: this.documentFrequency(t) }));
    const present = planned.filter((t) => t.df > 0).sort((a, b) => a.df - b.df);
    const absent = planned.filter((t) => t.df === 0);
    if (!present.length) return { steps: [], terms: planned, dropped: absent };

    const steps: QueryPlan['steps'] = [];
    if (present.length > 1) steps.push({ name: 'all-terms', expression: present.map(termExpression).join(' AND ') });

    const informative: PlannedTerm[] = [];
    const dropped: PlannedTerm[] = [...absent];
    let postings = 0;
    for (const t of present) {
      const common = t.df > rows * COMMON_SHARE;
      const overBudget = postings + t.df > OR_POSTINGS_BUDGET;
      if (informative.length && (common || overBudget)) dropped.push(t);
      else {
        informative.push(t);
        postings += t.df;
      }
    }
    steps.push({ name: 'any-term', expression: informative.map(termExpression).join(' OR ') });
    return { steps, terms: planned, dropped };
  }

  private documentFrequency(t: QueryTerm): number {
    if (t.prefix) {
      const p = t.token.text;
      return this.prefixDfStmt.get(p, p + '\uffff')?.doc ?? 0;
    }
    return this.dfStmt.get(indexTerm(t.token))?.doc ?? 0;
  }

  private totalRows(generation: number): number {
    if (this.cachedRows?.generation !== generation) this.cachedRows = { generation, rows: this.countStmt.get()!.n };
    return this.cachedRows.rows;
  }
}
