// Keyword search: plans and runs the FTS5 query, collapses chunks to documents (best chunk
// as anchor), normalises scores, paginates, and builds snippets and explanations.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/database.js';
import type { KeywordIndex } from '../store/keyword-index.js';
import { hasRankFunction, rankParams, rankSql } from './rank.js';
import { filterSql, type FilterSql, type ResolvedFilters } from './filters.js';
import { rankedPage, QueryPlanner, type PlanStep, type QueryPlan } from './plan.js';
import { parseQuery, type QuerySyntax, type QueryTerm } from './query.js';
import { Anchors } from './anchors.js';
import type { RankedHit } from './hit.js';
import { TermMatcher } from './snippet.js';

export interface LexicalRequest {
  query: string;
  syntax: QuerySyntax;
  limit: number;
  offset: number;
  minScore?: number;
  snippetChars: number;
  /** false: leave snippet empty (line: the chunk's first line) for a caller that cuts them later, for fewer hits. */
  snippets?: boolean;
  explain: boolean;
  filters: ResolvedFilters;
}

/** Why a keyword hit ranks where it does (`explain`). */
export type LexicalExplain = {
  bm25: number;
  strategy: string;
  expression: string;
  fields: { title: string[]; headings: string[]; body: string[] };
  matchedChunks: number;
};

export interface LexicalHit extends RankedHit {
  /** The document's best chunk's BM25 (higher is better), before normalising to 0..1. */
  bm25: number;
  explain?: LexicalExplain;
}

export interface LexicalResult {
  hits: LexicalHit[];
  hasMore: boolean;
  nextOffset: number | null;
  totalEstimated: number;
  plan: { strategy: string; expression: string; dropped: string[] };
  /** How keyword scores compare across indexes (plan.ts bm25Bound, termCoverage); null for FTS expressions (phrase, boolean). */
  bm25Scale: Bm25Scale | null;
}

/** A BM25 score over `bound` is how fully a row holds the query's words the index has; `coverage` is the share of the words it has. */
export interface Bm25Scale {
  bound: number;
  coverage: number;
}

/** A ranked document without its anchor read (LexicalSearch.rank). */
export interface RankedCandidate {
  documentId: number;
  /** Its best-matching chunk. */
  chunkId: number;
  /** 0..1 over the result set (plan tiers respected), rounded. */
  score: number;
  /** The best chunk's BM25 (higher is better), rounded; rawBm25 unrounded. */
  bm25: number;
  rawBm25: number;
  matchedChunks: number;
}

export interface RankedCandidates extends Omit<LexicalResult, 'hits'> {
  page: RankedCandidate[];
  /** The words a snippet or highlight marks (search/query.ts). */
  highlight: QueryTerm[];
}

interface CandidateRow {
  chunkId: number;
  documentId: number;
  rank: number;
}

interface DocCandidate {
  documentId: number;
  best: CandidateRow;
  chunks: number;
}

const MAX_CHUNK_FETCH = 20_000;
/** An OR step walking fewer postings than this checks a filter per matching row. */
const SET_MIN_POSTINGS = 256;
/**
 * A filter offering a set form (FilterClause.asSet) costs about one index probe per member to
 * build once, against ~three b-tree probes (chunk, document, the room's row) per matching row to
 * check: the set is built when it holds fewer members than this many times the step's postings.
 */
const SET_PER_POSTING = 3;

/**
 * The filter as each plan step runs it: checked per matching row (few postings: the AND steps,
 * a rare word), or — for an OR step over many postings, when the filter offers it and it is small
 * enough — as a set of documents built once by the statement. Same rows either way.
 */
class StepFilter {
  private readonly perRow: FilterSql;
  private asSet: FilterSql | undefined;
  private readonly sizes = new Map<number, number>();

  constructor(private readonly filters: ResolvedFilters) {
    this.perRow = filterSql(filters);
  }

  forStep(step: PlanStep): FilterSql {
    const set = this.filters.extra?.asSet;
    if (!set || step.name !== 'any-term' || !step.terms) return this.perRow;
    const postings = step.terms.reduce((n, t) => n + t.df, 0);
    if (postings < SET_MIN_POSTINGS) return this.perRow;
    const cap = postings * SET_PER_POSTING;
    let size = this.sizes.get(cap);
    if (size === undefined) this.sizes.set(cap, (size = set.size(cap)));
    return size < cap ? (this.asSet ??= filterSql(this.filters, true)) : this.perRow;
  }
}

export class LexicalSearch {
  private readonly planner: QueryPlanner;
  private readonly statements = new Map<string, Statement<unknown[], CandidateRow>>();
  private readonly excludeStmt;
  private readonly nativeRank: boolean;

  constructor(
    private readonly db: Db,
    /** Shared with the vector leg (search/anchors.ts). */
    readonly anchors = new Anchors(db),
    /** The keyword index searched: one collection kind's (store/keyword-index.ts). */
    private readonly index: KeywordIndex = 'chunks_fts',
  ) {
    this.planner = new QueryPlanner(db, index);
    this.nativeRank = hasRankFunction(db);
    this.excludeStmt = db.prepare<[string], { id: number }>(
      `SELECT DISTINCT c.document_id AS id FROM ${index} f JOIN chunks c ON c.id = f.rowid WHERE ${index} MATCH ?`,
    );
  }

  search(req: LexicalRequest, generation: number): LexicalResult {
    const r = this.rank(req, generation);
    if (!r.page.length) return { hits: [], hasMore: r.hasMore, nextOffset: r.nextOffset, totalEstimated: r.totalEstimated, plan: r.plan, bm25Scale: r.bm25Scale };
    const matcher = new TermMatcher(r.highlight); // what a snippet centres on and marks (search/highlight.ts)
    const hits = r.page.map((c) => this.hit(c, matcher, req, r.plan, generation));
    return { hits, hasMore: r.hasMore, nextOffset: r.nextOffset, totalEstimated: r.totalEstimated, plan: r.plan, bm25Scale: r.bm25Scale };
  }

  /**
   * The ranked page as documents and scores only, without reading their anchors or cutting
   * snippets: for a caller that shows its own rows (memory reads its entries by document).
   */
  rank(req: LexicalRequest, generation: number): RankedCandidates {
    const parsed = parseQuery(req.query, req.syntax);
    const plan: QueryPlan =
      parsed.kind === 'terms'
        ? this.planner.plan(parsed.terms, generation)
        : { steps: [{ name: 'expression', expression: parsed.expression }], terms: [], dropped: [], bm25Bound: 0, termCoverage: 0 };
    const bm25Scale = parsed.kind === 'terms' ? { bound: plan.bm25Bound, coverage: plan.termCoverage } : null;
    const needed = req.offset + req.limit + 1; // one more than the page tells us whether there is more
    const docs: DocCandidate[] = [];
    const tierOf = new Map<number, number>();
    let exhausted = true;
    let last: PlanStep | undefined;
    const excluded = parsed.kind === 'expression' && parsed.exclude ? this.documentsMatching(parsed.exclude) : null;
    const filter = new StepFilter(req.filters);
    for (const [tier, step] of plan.steps.entries()) {
      last = step;
      const found = this.collect(step, filter, needed);
      exhausted = found.exhausted;
      for (const d of found.docs) {
        if (tierOf.has(d.documentId) || excluded?.has(d.documentId)) continue;
        tierOf.set(d.documentId, tier);
        docs.push(d);
      }
      if (docs.length >= needed) break;
    }
    const dropped = plan.dropped.map((t) => t.token.text);
    const planInfo = { strategy: last?.name ?? 'none', expression: last?.expression ?? '', dropped };
    const highlight = parsed.highlight;
    if (!docs.length) return { page: [], hasMore: false, nextOffset: null, totalEstimated: 0, plan: planInfo, bm25Scale, highlight };

    const raws = docs.map((d) => -d.best.rank);
    const scores = normalise(tiered(raws, docs.map((d) => tierOf.get(d.documentId)!)));
    const { page, ...rest } = rankedPage(docs.map((d, i) => ({ d, score: scores[i]!, raw: raws[i]! })), req, exhausted, needed);
    return {
      page: page.map(({ d, score, raw }) => ({ documentId: d.documentId, chunkId: d.best.chunkId, score: round(score), bm25: round(raw), rawBm25: raw, matchedChunks: d.chunks })),
      ...rest,
      plan: planInfo,
      bm25Scale,
      highlight,
    };
  }

  private documentsMatching(expression: string): Set<number> {
    const rows = this.excludeStmt.all(expression);
    return new Set(rows.map((r) => r.id));
  }

  /** Fetches ranked chunks until `needed` distinct documents are found (or nothing more matches). */
  private collect(step: PlanStep, filter: StepFilter, needed: number): { docs: DocCandidate[]; exhausted: boolean } {
    const hits = this.nativeRank ? (step.hits ?? []) : [];
    const f = filter.forStep(step);
    const stmt = this.candidateStatement(f, hits.length);
    for (let limit = needed * 4 + 16; ; limit *= 4) {
      const rows = stmt.all(...rankParams(this.nativeRank, limit, hits), step.expression, ...f.params, limit);
      const byDoc = new Map<number, DocCandidate>();
      for (const row of rows) {
        const d = byDoc.get(row.documentId);
        if (d) d.chunks++;
        else byDoc.set(row.documentId, { documentId: row.documentId, best: row, chunks: 1 });
      }
      const exhausted = rows.length < limit;
      if (exhausted || byDoc.size >= needed || limit >= MAX_CHUNK_FETCH) return { docs: [...byDoc.values()], exhausted };
    }
  }

  /** `phrases`: how many phrase counts the rank function takes as leading parameters. */
  private candidateStatement(f: FilterSql, phrases: number) {
    const key = `${f.key}|${phrases}`;
    let stmt = this.statements.get(key);
    if (!stmt) {
      const rank = rankSql(this.nativeRank, phrases, this.index);
      const fts = this.index;
      const sql = f.where
        ? `SELECT f.rowid AS chunkId, c.document_id AS documentId, ${rank} AS rank
             FROM ${fts} f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id
            WHERE ${fts} MATCH ? AND ${f.where} ORDER BY rank LIMIT ?`
        : `SELECT m.chunkId, c.document_id AS documentId, m.rank
             FROM (SELECT rowid AS chunkId, ${rank} AS rank FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rank LIMIT ?) m
             JOIN chunks c ON c.id = m.chunkId ORDER BY m.rank`;
      stmt = this.db.prepare<unknown[], CandidateRow>(sql);
      if (this.statements.size > 64) this.statements.clear(); // filter shapes are few in practice; never grow without bound
      this.statements.set(key, stmt);
    }
    return stmt;
  }

  private hit(c: RankedCandidate, matcher: TermMatcher, req: LexicalRequest, plan: LexicalResult['plan'], generation: number): LexicalHit {
    const a = this.anchors.get(c.chunkId)!;
    const headingPath = a.heading_path ? (JSON.parse(a.heading_path) as string[]) : [];
    const snippet = req.snippets === false ? { text: '', line: a.line_start, highlights: [] } : this.anchors.snippet(c.documentId, a, generation, matcher, req.snippetChars);
    const hit: LexicalHit = {
      documentId: c.documentId,
      chunkId: c.chunkId,
      docid: a.docid,
      collection: a.collection,
      path: a.path,
      title: a.title,
      kind: a.kind,
      tags: JSON.parse(a.tags) as string[],
      modifiedMs: a.mtime_ms,
      score: c.score,
      bm25: c.bm25,
      snippet: snippet.text,
      highlights: snippet.highlights,
      line: snippet.line,
      page: a.page,
      chunk: { ordinal: a.ordinal, lineStart: a.line_start, lineEnd: a.line_end, headingPath, page: a.page },
      signals: { bm25: c.rawBm25 },
    };
    if (req.explain) {
      hit.explain = {
        bm25: c.bm25,
        strategy: plan.strategy,
        expression: plan.expression,
        fields: {
          title: matcher.termsIn(a.title),
          headings: matcher.termsIn(headingPath.join('\n')),
          body: matcher.termsIn(this.anchors.chunkText(c.documentId, a, generation)),
        },
        matchedChunks: c.matchedChunks,
      };
    }
    return hit;
  }
}

/**
 * Makes scores respect plan tiers: every document of a stricter step scores above every document
 * of a looser one, BM25 order kept within a step. Input is in final order (tier, then BM25).
 */
export function tiered(raw: number[], tiers: number[]): number[] {
  const out = raw.slice();
  let floor = -Infinity;
  for (let i = out.length - 1; i >= 0; ) {
    let j = i;
    while (j > 0 && tiers[j - 1] === tiers[i]) j--;
    const min = Math.min(...out.slice(j, i + 1));
    const shift = floor === -Infinity || min > floor ? 0 : floor - min + 1e-6;
    for (let k = j; k <= i; k++) out[k]! += shift;
    floor = Math.max(...out.slice(j, i + 1));
    i = j - 1;
  }
  return out;
}

/** Min/max over the result set to 0..1; when every score is equal, rank position decides. */
export function normalise(raw: number[]): number[] {
  const max = Math.max(...raw);
  const min = Math.min(...raw);
  if (raw.length > 1 && max - min > 1e-9) return raw.map((r) => (r - min) / (max - min));
  return raw.map((_, i) => 1 - i / raw.length);
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
