// One FTS5 keyword index behind the storage interface (store/storage.ts): term counts from its
// fts5vocab table, plan steps rendered as FTS5 MATCH expressions and ranked by the same SQL as
// search/lexical.ts (bm25() with column weights 4/2/1, or the native trove_bm25() with the
// planner's phrase counts), filters pushed down with search/filters.ts.
import type { Statement } from 'better-sqlite3';
import { filterSql } from './filters.js';
import type { ResolvedFilters } from '../filters.js';
import { hasRankFunction, rankParams, rankSql } from './rank.js';
import { quote } from '../../text/terms.js';
import type { Db } from '../database.js';
import { FtsTotalsReader } from '../fts-totals.js';
import { vocabularyOf, type KeywordIndex } from '../keyword-index.js';
import type { ReaderPool } from './reader-pool.js';
import type { KeywordCandidate, KeywordCounts, KeywordExpression, KeywordIndexRepository, KeywordStep, KeywordTerm } from '../storage.js';

/** A term as FTS5 MATCH syntax: quoted (no input can be FTS5 syntax), `*` for a prefix. */
export function fts5Term(t: KeywordTerm): string {
  return t.prefix ? `${quote(t.text)}*` : quote(t.text);
}

export function fts5Expression(e: KeywordExpression): string {
  switch (e.t) {
    case 'term':
      return fts5Term(e.term);
    case 'phrase': {
      const p = quote(e.terms.map((t) => t.text).join(' '));
      return e.prefixLast ? `${p}*` : p;
    }
    case 'or':
      return `(${e.items.map(fts5Expression).join(' OR ')})`;
    case 'and': {
      const pos = `(${e.items.map(fts5Expression).join(' AND ')})`;
      return e.not?.length ? `(${pos} NOT (${e.not.map(fts5Expression).join(' OR ')}))` : pos;
    }
  }
}

/** An OR step walking fewer postings than this checks a filter per matching row. */
const SET_MIN_POSTINGS = 256;
/**
 * A filter offering a set form (FilterClause.asSet) costs about one index probe per member to
 * build once, against ~three b-tree probes (chunk, document, the room's row) per matching row to
 * check: the set is built when it holds fewer members than this many times the step's postings.
 */
const SET_PER_POSTING = 3;

export class SqliteKeywordIndex implements KeywordIndexRepository {
  /** A filter's set size per cap, counted once per filter (a search asks again for each fetch round). */
  private readonly setSizes = new WeakMap<object, Map<number, number>>();
  private readonly statements = new Map<string, Statement<unknown[], KeywordCandidate>>();
  private readonly nativeRank: boolean;
  private readonly dfStmt;
  private readonly prefixDfStmt;
  private readonly countStmt;
  private readonly matchingStmt;
  private readonly totals: FtsTotalsReader;

  constructor(
    private readonly db: Db,
    readonly index: KeywordIndex,
    /** Where the candidate steps run: a reader thread when the pool runs (reader-pool.ts), else this connection. */
    private readonly readers: ReaderPool,
  ) {
    const vocab = vocabularyOf(index);
    this.nativeRank = hasRankFunction(db);
    this.dfStmt = db.prepare<[string], { doc: number }>(`SELECT doc FROM ${vocab} WHERE term = ?`);
    this.prefixDfStmt = db.prepare<[string, string], { doc: number | null }>(`SELECT sum(doc) AS doc FROM ${vocab} WHERE term >= ? AND term < ?`);
    this.countStmt = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${index}_docsize`);
    this.totals = new FtsTotalsReader(db, index);
    this.matchingStmt = db.prepare<[string], { id: number }>(`SELECT DISTINCT c.document_id AS id FROM ${index} f JOIN chunks c ON c.id = f.rowid WHERE ${index} MATCH ?`);
  }

  /**
   * Rows of the index and their average length, as BM25 should see them: FTS5's own totals still
   * count deleted rows (store/fts-totals.ts). The caller keeps them per index generation and hands
   * them to every step, as on PostgreSQL.
   */
  async counts(): Promise<KeywordCounts> {
    const rows = this.countStmt.get()!.n;
    const totals = this.totals.read();
    return { rows, avgLength: totals.rows > 0 ? totals.tokens / totals.rows : 0 };
  }

  /** fts5vocab's row count; for a prefix the sum over its terms (what the planner has always used). */
  async documentFrequency(t: KeywordTerm): Promise<number> {
    if (!t.prefix) return this.dfStmt.get(t.term)?.doc ?? 0; // one vocabulary row: cheaper here than a thread's round trip
    // a short prefix sums many terms' rows
    return (await this.readers.run<{ doc: number | null } | undefined>(this.prefixDfStmt, [t.text, t.text + '\uffff'], 'get'))?.doc ?? 0;
  }

  async candidates(step: KeywordStep, filters: ResolvedFilters, limit: number, counts: KeywordCounts): Promise<KeywordCandidate[]> {
    if (!step.terms.length) return [];
    // every step is ranked by the BM25 of its words; an expression (phrase, boolean) by its positive
    // words, on the rows the expression matches — not by FTS5's bm25() of the expression, which
    // scores a phrase as one phrase (PostgreSQL ranks the words too: the same answers)
    const words = step.terms.map(fts5Term).join(step.op === 'and' ? ' AND ' : ' OR ');
    const within = step.op === 'expression' ? [fts5Expression(step.expression)] : [];
    // the native rank takes each phrase's row count; a prefix's summed count is not exact
    const hits = this.nativeRank ? step.terms.map((t) => (t.prefix ? null : t.df)) : [];
    const f = filterSql(filters, this.useSetForm(step, filters));
    const stmt = this.statement(f.where, f.key, hits.length, within.length > 0);
    // BM25's N and average length from the caller's counts (FTS5's own totals overstate them)
    const totals = this.nativeRank ? { rows: counts.rows, tokens: Math.round(counts.avgLength * counts.rows) } : null;
    return this.readers.run<KeywordCandidate[]>(stmt, [...rankParams(this.nativeRank, limit, totals, hits), words, ...within, ...f.params, limit]);
  }

  /**
   * The filter as each step runs it: checked per matching row (few postings: the AND steps, a rare
   * word), or — for an OR step over many postings, when the filter offers it and it is small
   * enough — as a set of documents the statement builds once. Same rows either way.
   */
  private useSetForm(step: KeywordStep, filters: ResolvedFilters): boolean {
    const set = filters.extra?.asSet;
    if (!set || step.op !== 'or') return false;
    const postings = step.terms.reduce((n, t) => n + t.df, 0);
    if (postings < SET_MIN_POSTINGS) return false;
    const cap = postings * SET_PER_POSTING;
    let sizes = this.setSizes.get(set);
    if (!sizes) this.setSizes.set(set, (sizes = new Map()));
    let size = sizes.get(cap);
    if (size === undefined) sizes.set(cap, (size = set.size(cap)));
    return size < cap;
  }

  async documentsMatching(expression: KeywordExpression): Promise<Set<number>> {
    return new Set((await this.readers.run<{ id: number }[]>(this.matchingStmt, [fts5Expression(expression)])).map((r) => r.id));
  }

  /** `within`: the rows are those an expression (a second MATCH parameter) matches too. */
  private statement(where: string, key: string, phrases: number, within: boolean): Statement<unknown[], KeywordCandidate> {
    const cacheKey = `${key}|${phrases}|${within}`;
    let stmt = this.statements.get(cacheKey);
    if (stmt) return stmt;
    const rank = rankSql(this.nativeRank, phrases, this.index);
    const fts = this.index;
    const matching = within ? ` AND ${fts}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)` : '';
    stmt = this.db.prepare<unknown[], KeywordCandidate>(
      where
        ? `SELECT f.rowid AS chunkId, c.document_id AS documentId, ${rank} AS rank
             FROM ${fts} f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id
            WHERE ${fts} MATCH ?${matching.replace(`${fts}.rowid`, 'f.rowid')} AND ${where} ORDER BY rank, f.rowid LIMIT ?`
        : `SELECT m.chunkId, c.document_id AS documentId, m.rank
             FROM (SELECT rowid AS chunkId, ${rank} AS rank FROM ${fts} WHERE ${fts} MATCH ?${matching} ORDER BY rank, rowid LIMIT ?) m
             JOIN chunks c ON c.id = m.chunkId ORDER BY m.rank, m.chunkId`,
    );
    if (this.statements.size > 64) this.statements.clear();
    this.statements.set(cacheKey, stmt);
    return stmt;
  }
}
