// One keyword index on PostgreSQL (one per collection kind, store/keyword-index.ts): the tsvector
// table with its GIN index says which chunks match an expression; the postings table (per term and
// written run of chunks: the chunks, weighted frequencies and lengths as arrays, postings.ts) gives
// document frequencies and BM25 — FTS5's bm25() with
// column weights 4/2/1, k1 1.2, b 0.75, so both backends rank alike (docs/scale-out.md has the
// measurements that chose postings over scoring from tsvectors). The planner above the seam
// (search/plan.ts) decides the steps; this module runs one step.
import type { ResolvedFilters } from '../filters.js';
import type { FtsRow } from '../chunks.js';
import type { KeywordIndex } from '../keyword-index.js';
import type { PostgresDatabase, Queryable } from './connection.js';
import { BINARY_COPY_FROM_ROWS, COPY_FROM_ROWS, copyRows } from './copy-rows.js';
import { pgFilterSql } from './filters.js';
import { keywordDocument, tsqueryOf, tsvectorText, type KeywordDocument } from './keyword-text.js';
import { batchPostings, keywordRowsCopy, POSTINGS_COLUMNS, postingsCopy, postingsRows, rowArrays } from './postings.js';
import type { KeywordCandidate, KeywordCounts, KeywordExpression, KeywordIndexRepository, KeywordStep, KeywordTerm, PlannedKeywordTerm } from '../storage.js';

const K1 = 1.2;
const B = 0.75;
/**
 * BM25's term part as SQL, every constant a float8: a bare literal like 0.75 is numeric in
 * PostgreSQL, and numeric arithmetic on each of a common term's ten thousand postings cost ~15%
 * of an AND step of two such terms.
 */
const bm25Part = (f: string, len: string, avgdl: string): string =>
  `${f} * ${K1 + 1}::float8 / (${f} + ${K1}::float8 * (${1 - B}::float8 + ${B}::float8 * ${len} / ${avgdl}::float8))`;
/** The largest code point: every term with a prefix sorts below prefix + this (the terms are COLLATE "C"). */
const AFTER_PREFIX = String.fromCodePoint(0x10ffff);


/** BM25's inverse document frequency as FTS5 computes it (never below 1e-6). */
export function idf(rows: number, df: number): number {
  const v = Math.log((rows - df + 0.5) / (df + 0.5));
  return v > 0 ? v : 1e-6;
}

/** A chunk's keyword row before it is written: its id and its terms. */
export interface KeywordRow {
  id: number;
  doc: KeywordDocument;
}

export class PostgresKeywordIndex implements KeywordIndexRepository {
  private readonly postings: string;

  constructor(
    private readonly db: PostgresDatabase,
    readonly index: KeywordIndex,
  ) {
    this.postings = `${index}_postings`;
  }

  /** Writes chunks' keyword rows (in the caller's transaction: the batch's). */
  async write(rows: readonly FtsRow[], on: Queryable): Promise<void> {
    return this.writeRows(
      rows.map((r) => ({ id: r.id, doc: keywordDocument(r.title, r.headings, r.body) })),
      on,
    );
  }

  /**
   * Writes chunks' keyword rows whose terms are already made (the index writer makes them while
   * the server inserts the batch's chunks), and their postings as one row per term
   * (postings.ts), in term order; many rows go by COPY (copy-rows.ts).
   */
  async writeRows(rows: readonly KeywordRow[], on: Queryable): Promise<void> {
    if (!rows.length) return;
    const b = batchPostings(rows);
    if (b.ids.length >= BINARY_COPY_FROM_ROWS) {
      await copyRows(on, this.index, ['chunk_id', 'tsv', 'len'], keywordRowsCopy(b), 'binary');
    } else {
      await on.query(`INSERT INTO ${this.index} (chunk_id, tsv, len) SELECT * FROM unnest($1::bigint[], $2::tsvector[], $3::int[])`, [
        b.ids,
        b.rows.map((r) => tsvectorText(r.doc.tsv)),
        b.lens,
      ]);
    }
    if (!b.count) return;
    if (b.termIds.length >= COPY_FROM_ROWS) {
      await copyRows(on, this.postings, POSTINGS_COLUMNS, postingsCopy(b, postingsRows(b)));
      return;
    }
    const r = [...postingsRows(b)].map((x) => ({ ...x, ...rowArrays(b, x) }));
    await on.query(
      `INSERT INTO ${this.postings} (${POSTINGS_COLUMNS.join(', ')})
       SELECT term, lo, hi, n, d::int[], f::real[], len::int[] FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[], $5::text[], $6::text[], $7::text[]) x(term, lo, hi, n, d, f, len)`,
      [r.map((x) => x.term), r.map((x) => x.lo), r.map((x) => x.hi), r.map((x) => x.n), r.map((x) => x.d), r.map((x) => x.f), r.map((x) => x.len)],
    );
  }

  /** Rows and their average length (the caller caches them per index generation). */
  async counts(on: Queryable = this.db.pool): Promise<KeywordCounts> {
    const r = await this.db.one<{ n: number; a: number | null }>(`SELECT count(*) AS n, avg(len)::float8 AS a FROM ${this.index}`, [], on);
    return { rows: r?.n ?? 0, avgLength: r?.a ?? 0 };
  }

  /** Chunks holding the term (for a prefix: holding any term that starts with it). */
  async documentFrequency(t: KeywordTerm, on: Queryable = this.db.pool): Promise<number> {
    const r = t.prefix
      ? await this.db.one<{ n: number }>(
          `SELECT count(DISTINCT p.lo + u.d) AS n FROM ${this.postings} p CROSS JOIN LATERAL unnest(p.d) u(d) WHERE p.term >= $1 AND p.term < $2`,
          [t.term, t.term + AFTER_PREFIX],
          on,
        )
      : await this.db.one<{ n: number }>(`SELECT coalesce(sum(n), 0)::int AS n FROM ${this.postings} WHERE term = $1`, [t.term], on);
    return r?.n ?? 0;
  }

  /**
   * The best `limit` chunks of one step, filters pushed down, by BM25 (ties by chunk id). The
   * terms' counts and the index's come from the planner's caches, as FTS5's native ranking takes
   * them as parameters.
   */
  async candidates(match: KeywordStep, filters: ResolvedFilters, limit: number, stats: KeywordCounts, on: Queryable = this.db.pool): Promise<KeywordCandidate[]> {
    if (!match.terms.length) return [];
    if (match.op === 'and' && match.terms.length > 1 && match.terms.every((t) => !t.prefix)) return this.allTerms(match.terms, filters, limit, stats, on);
    const idfs = match.terms.map((t) => idf(stats.rows, t.df));
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    const avgdl = p(stats.avgLength || 1);
    // one postings scan per term: an exact term is one key of the index, a prefix one range of it.
    // Its rows' arrays are unnested in the select list (ProjectSet, value per call: about half the
    // time of unnest(d, f, len) in FROM, which fills a tuplestore per array); a chunk is in one row
    // of a term, so only a prefix's terms need summing per chunk.
    const legs = match.terms.map((t, i) => {
      const idfParam = `${p(idfs[i]!)}::float8`;
      if (!t.prefix) {
        return `SELECT p.lo + unnest(p.d) AS chunk_id, ${i} AS i, ${idfParam} AS idf, unnest(p.f)::float8 AS f, unnest(p.len) AS len FROM ${this.postings} p WHERE p.term = ${p(t.term)}`;
      }
      const u = `SELECT p.lo + unnest(p.d) AS chunk_id, unnest(p.f) AS f, unnest(p.len) AS len FROM ${this.postings} p WHERE p.term >= ${p(t.term)} AND p.term < ${p(t.term + AFTER_PREFIX)}`;
      return `SELECT u.chunk_id, ${i} AS i, ${idfParam} AS idf, sum(u.f)::float8 AS f, min(u.len) AS len FROM (${u}) u GROUP BY u.chunk_id`;
    });
    const score = `sum(h.idf * ${bm25Part('h.f', 'h.len', avgdl)})`;
    const f = pgFilterSql(filters, params.length + 1);
    params.push(...f.params);
    const matched =
      match.op === 'expression'
        ? `JOIN (SELECT chunk_id FROM ${this.index} WHERE tsv @@ ${p(tsqueryOf(match.expression))}::tsquery) m ON m.chunk_id = h.chunk_id`
        : '';
    const having = match.op === 'and' ? `HAVING count(*) = ${p(match.terms.length)}` : '';
    if (!f.where && !matched) {
      // nothing to filter by: rank the postings alone and look up only the page's chunks (a common
      // term has tens of thousands of postings; joining each with its chunk first cost most of the query)
      const sql = `
        WITH h AS (${legs.join(' UNION ALL ')}),
        best AS (SELECT h.chunk_id, -${score} AS rank FROM h GROUP BY h.chunk_id ${having} ORDER BY rank, h.chunk_id LIMIT ${p(limit)})
        SELECT best.chunk_id AS "chunkId", c.document_id AS "documentId", best.rank FROM best JOIN chunks c ON c.id = best.chunk_id
         ORDER BY best.rank, best.chunk_id`;
      return this.db.query<KeywordCandidate>(sql, params, on);
    }
    const sql = `
      WITH h AS (${legs.join(' UNION ALL ')})
      SELECT h.chunk_id AS "chunkId", c.document_id AS "documentId", -${score} AS rank
        FROM h ${matched} JOIN chunks c ON c.id = h.chunk_id ${f.where ? `JOIN documents d ON d.id = c.document_id WHERE ${f.where}` : ''}
       GROUP BY h.chunk_id, c.document_id ${having}
       ORDER BY rank, h.chunk_id LIMIT ${p(limit)}`;
    return this.db.query<KeywordCandidate>(sql, params, on);
  }

  /**
   * An AND step of exact terms: the rarest term's postings, intersected with each next-rarest
   * term's, as FTS5 intersects — of the next term only the postings rows whose chunk range holds a
   * survivor are unnested, instead of aggregating every posting of every term and keeping the
   * chunks that have them all (a common word has ten thousand postings on cpp-docs). Each intersection is its own
   * materialized step of two relations: written as one self-join per term, PostgreSQL spent 12–18 ms
   * planning a six-term AND (seven relations in one equivalence class) for a 0.4 ms execution
   * (EXPLAIN ANALYZE, memory at 100,000 entries). The same chunks and the same BM25.
   */
  private async allTerms(terms: readonly PlannedKeywordTerm[], filters: ResolvedFilters, limit: number, stats: KeywordCounts, on: Queryable): Promise<KeywordCandidate[]> {
    const order = terms.map((t, i) => ({ t, i })).sort((a, b) => a.t.df - b.t.df || a.i - b.i);
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    const avgdl = p(stats.avgLength || 1);
    // summed in the query's term order, as FTS5 sums: the same float result, so near-ties order alike
    const score = terms.map((t, i) => `${p(idf(stats.rows, t.df))}::float8 * ${bm25Part(`s.f${i}`, 's.len', avgdl)}`).join(' + ');
    // each step a fence of two relations (survivors × one term's postings): planned in microseconds.
    // Of the next term only the rows whose chunk range holds a survivor are unnested: the survivors'
    // ids sorted into an array once (a${k}), width_bucket counts those at or below a bound by binary
    // search, so a row holds one when more are at or below hi than below lo.
    const steps = order.flatMap(({ t, i }, k) => {
      if (k === 0) return [`s0 AS MATERIALIZED (SELECT p.lo + unnest(p.d) AS chunk_id, unnest(p.len) AS len, unnest(p.f) AS f${i} FROM ${this.postings} p WHERE p.term = ${p(t.term)})`];
      const ids = `(SELECT ids FROM a${k})`;
      return [
        `a${k} AS MATERIALIZED (SELECT array_agg(chunk_id ORDER BY chunk_id) AS ids FROM s${k - 1})`,
        `s${k} AS MATERIALIZED (SELECT s.*, u.f AS f${i} FROM s${k - 1} s JOIN (
           SELECT p.lo + unnest(p.d) AS chunk_id, unnest(p.f) AS f FROM ${this.postings} p
            WHERE p.term = ${p(t.term)} AND width_bucket(p.hi, ${ids}) > width_bucket(p.lo - 1, ${ids})) u ON u.chunk_id = s.chunk_id)`,
      ];
    });
    const f = pgFilterSql(filters, params.length + 1);
    params.push(...f.params);
    const sql = `
      WITH ${steps.join(',\n           ')}
      SELECT s.chunk_id AS "chunkId", c.document_id AS "documentId", -(${score}) AS rank
        FROM s${order.length - 1} s
        JOIN chunks c ON c.id = s.chunk_id ${f.where ? `JOIN documents d ON d.id = c.document_id WHERE ${f.where}` : ''}
       ORDER BY rank, s.chunk_id LIMIT ${p(limit)}`;
    return this.db.query<KeywordCandidate>(sql, params, on);
  }

  /** Documents with a chunk matching this expression (a boolean query's top-level NOT drops them). */
  async documentsMatching(expression: KeywordExpression, on: Queryable = this.db.pool): Promise<Set<number>> {
    const rows = await this.db.query<{ id: number }>(
      `SELECT DISTINCT c.document_id AS id FROM ${this.index} f JOIN chunks c ON c.id = f.chunk_id WHERE f.tsv @@ $1::tsquery`,
      [tsqueryOf(expression)],
      on,
    );
    return new Set(rows.map((r) => r.id));
  }
}
