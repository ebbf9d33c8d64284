// One keyword index on PostgreSQL (one per collection kind, store/keyword-index.ts): the tsvector
// table with its GIN index says which chunks match an expression; the postings table (term,
// chunk, weighted frequency, length) gives document frequencies and BM25 — FTS5's bm25() with
// column weights 4/2/1, k1 1.2, b 0.75, so both backends rank alike (docs/scale-out.md has the
// measurements that chose postings over scoring from tsvectors). The planner above the seam
// (search/plan.ts) decides the steps; this module runs one step.
import type { ResolvedFilters } from '../filters.js';
import type { FtsRow } from '../chunks.js';
import type { KeywordIndex } from '../keyword-index.js';
import type { PostgresDatabase, Queryable } from './connection.js';
import { COPY_FROM_ROWS, COPY_PART_CHARS, copyRows, copyText } from './copy-rows.js';
import { pgFilterSql } from './filters.js';
import { keywordDocument, tsqueryOf, type KeywordDocument } from './keyword-text.js';
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
  private readonly terms: string;

  constructor(
    private readonly db: PostgresDatabase,
    readonly index: KeywordIndex,
  ) {
    this.terms = `${index}_terms`;
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
   * the server inserts the batch's chunks). The postings go in (term, chunk) order, the order of
   * their primary key, so a batch's ~45,000 fill the index's pages one after another instead of
   * landing on a random page each; many rows go by COPY (copy-rows.ts).
   */
  async writeRows(rows: readonly KeywordRow[], on: Queryable): Promise<void> {
    if (!rows.length) return;
    const ids: number[] = [];
    const tsvs: string[] = [];
    const lens: number[] = [];
    // each term's postings as (row, f) pairs, rows in the order given (the chunks' id order)
    const postings = new Map<string, number[]>();
    let count = 0;
    for (const { id, doc } of rows) {
      const k = ids.length;
      ids.push(id);
      tsvs.push(doc.tsvector);
      lens.push(doc.length);
      for (const [term, f] of doc.terms) {
        const list = postings.get(term);
        if (list) list.push(k, f);
        else postings.set(term, [k, f]);
      }
      count += doc.terms.size;
    }
    const terms = [...postings.keys()].sort();
    if (ids.length >= COPY_FROM_ROWS) {
      await copyRows(on, this.index, ['chunk_id', 'tsv', 'len'], keywordRowsText(ids, tsvs, lens));
    } else {
      await on.query(`INSERT INTO ${this.index} (chunk_id, tsv, len) SELECT * FROM unnest($1::bigint[], $2::tsvector[], $3::int[])`, [ids, tsvs, lens]);
    }
    if (count >= COPY_FROM_ROWS) {
      await copyRows(on, this.terms, ['term', 'chunk_id', 'f', 'len'], postingsText(terms, postings, ids, lens));
    } else if (count) {
      const t: string[] = [];
      const c: number[] = [];
      const f: number[] = [];
      const l: number[] = [];
      for (const term of terms) {
        const list = postings.get(term)!;
        for (let i = 0; i < list.length; i += 2) {
          t.push(term);
          c.push(ids[list[i]!]!);
          f.push(list[i + 1]!);
          l.push(lens[list[i]!]!);
        }
      }
      await on.query(`INSERT INTO ${this.terms} (term, chunk_id, f, len) SELECT * FROM unnest($1::text[], $2::bigint[], $3::real[], $4::int[])`, [t, c, f, l]);
    }
  }

  /** Rows and their average length (the caller caches them per index generation). */
  async counts(on: Queryable = this.db.pool): Promise<KeywordCounts> {
    const r = await this.db.one<{ n: number; a: number | null }>(`SELECT count(*) AS n, avg(len)::float8 AS a FROM ${this.index}`, [], on);
    return { rows: r?.n ?? 0, avgLength: r?.a ?? 0 };
  }

  /** Chunks holding the term (for a prefix: holding any term that starts with it). */
  async documentFrequency(t: KeywordTerm, on: Queryable = this.db.pool): Promise<number> {
    const r = t.prefix
      ? await this.db.one<{ n: number }>(`SELECT count(DISTINCT chunk_id) AS n FROM ${this.terms} WHERE term >= $1 AND term < $2`, [t.term, t.term + AFTER_PREFIX], on)
      : await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM ${this.terms} WHERE term = $1`, [t.term], on);
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
    // one postings scan per term: an exact term is one key of the primary key, a prefix one range of it
    const legs = match.terms.map((t, i) => {
      const cond = t.prefix ? `term >= ${p(t.term)} AND term < ${p(t.term + AFTER_PREFIX)}` : `term = ${p(t.term)}`;
      return `SELECT chunk_id, ${i} AS i, ${p(idfs[i]!)}::float8 AS idf, sum(f)::float8 AS f, min(len) AS len FROM ${this.terms} WHERE ${cond} GROUP BY chunk_id`;
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
   * term's by the (term, chunk_id) key, as FTS5 intersects — instead of reading every posting of
   * every term and keeping the chunks that have them all (a common word's ten thousand postings cost
   * ~40 ms on cpp-docs; this reads the rare one's few and probes). Each intersection is its own
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
    // each step a fence of two relations (survivors × one term's postings): planned in microseconds
    const steps = order.map(({ t, i }, k) =>
      k === 0
        ? `s0 AS MATERIALIZED (SELECT chunk_id, len, f AS f${i} FROM ${this.terms} WHERE term = ${p(t.term)})`
        : `s${k} AS MATERIALIZED (SELECT s.*, t.f AS f${i} FROM s${k - 1} s JOIN ${this.terms} t ON t.term = ${p(t.term)} AND t.chunk_id = s.chunk_id)`,
    );
    const f = pgFilterSql(filters, params.length + 1);
    params.push(...f.params);
    const sql = `
      WITH ${steps.join(',\n           ')}
      SELECT s.chunk_id AS "chunkId", c.document_id AS "documentId", -(${score}) AS rank
        FROM s${steps.length - 1} s
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

/** The chunks' keyword rows in COPY's text format. */
function* keywordRowsText(ids: readonly number[], tsvs: readonly string[], lens: readonly number[]): Generator<string> {
  let part = '';
  for (let k = 0; k < ids.length; k++) {
    part += `${ids[k]}\t${copyText(tsvs[k]!)}\t${lens[k]}\n`;
    if (part.length >= COPY_PART_CHARS) {
      yield part;
      part = '';
    }
  }
  if (part) yield part;
}

/** The postings in COPY's text format, term by term (each row's chunk id and length from the batch's arrays). */
function* postingsText(terms: readonly string[], postings: ReadonlyMap<string, number[]>, ids: readonly number[], lens: readonly number[]): Generator<string> {
  let part = '';
  for (const term of terms) {
    const t = copyText(term);
    const list = postings.get(term)!;
    for (let i = 0; i < list.length; i += 2) part += `${t}\t${ids[list[i]!]}\t${list[i + 1]}\t${lens[list[i]!]}\n`;
    if (part.length >= COPY_PART_CHARS) {
      yield part;
      part = '';
    }
  }
  if (part) yield part;
}
