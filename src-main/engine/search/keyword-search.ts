// Keyword search over one keyword index of the storage interface (store/storage.ts), on either
// backend: plans the query (plan.ts: relaxing AND steps, then an OR within a postings budget),
// asks the backend for each step's best chunks under the filters, collapses chunks to documents
// (the best chunk is the anchor), ranks documents of a stricter step above those of a looser one,
// normalises scores over the result set, pages, and cuts snippets and explanations for the page.
// Every syntax: match and prefix through the planner's steps, phrase and boolean as one expression
// step (query.ts's tree), ranked by BM25 over the expression's words.
import { ocrHitInfo } from '../ocr/merge.js';
import { TroveError } from '../errors.js';
import type { KeywordIndex } from '../store/keyword-index.js';
import type { KeywordCounts, KeywordStep, PlannedKeywordTerm, Storage } from '../store/storage.js';
import type { ResolvedFilters } from '../store/filters.js';
import { rankedPage, planSteps, type PlannedTerm, type PlanStep } from './plan.js';
import { keywordTerm, parseQuery, type QuerySyntax, type QueryTerm } from './query.js';
import type { RankedHit } from './hit.js';
import { anchorSnippet, anchorText, type PageAnchor, type PageAnchors } from './page-anchors.js';
import { TermMatcher } from './snippet.js';

export interface KeywordRequest {
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
export type KeywordExplain = {
  bm25: number;
  strategy: string;
  expression: string;
  fields: { title: string[]; headings: string[]; body: string[] };
  matchedChunks: number;
};

export interface KeywordHit extends RankedHit {
  /** The document's best chunk's BM25 (higher is better), before normalising to 0..1. */
  bm25: number;
  explain?: KeywordExplain;
}

/** A BM25 score over `bound` is how fully a row holds the query's words the index has; `coverage` is the share of the words it has. */
export interface Bm25Scale {
  bound: number;
  coverage: number;
}

export interface KeywordPlanInfo {
  strategy: string;
  expression: string;
  dropped: string[];
}

export interface KeywordResult {
  hits: KeywordHit[];
  hasMore: boolean;
  nextOffset: number | null;
  totalEstimated: number;
  plan: KeywordPlanInfo;
  /** How keyword scores compare across indexes (plan.ts bm25Bound, termCoverage); null for expressions (phrase, boolean). */
  bm25Scale: Bm25Scale | null;
}

/** A ranked document without its anchor read (KeywordSearch.rank). */
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

export interface RankedCandidates extends Omit<KeywordResult, 'hits'> {
  page: RankedCandidate[];
  /** The words a snippet or highlight marks (search/query.ts). */
  highlight: QueryTerm[];
}

interface DocCandidate {
  documentId: number;
  chunkId: number;
  rank: number;
  chunks: number;
}

const MAX_CHUNK_FETCH = 20_000;
const DF_CACHE_SIZE = 5_000;
/**
 * A counted term stays usable across index changes while the number of rows has moved by at most
 * this share since it was counted: counting walks the term's postings (0.5–1.2 ms for a common
 * word in cpp-docs on SQLite, a round trip on PostgreSQL), and a watched folder changes the index
 * every few seconds, while a count a few rows off plans and ranks the same (BM25 statistics, like
 * Lucene's per segment). A term counted as absent is always counted again: a new file may bring it.
 */
const DF_DRIFT = 0.01;

/**
 * Rankings a search tries when a ranked chunk left the index before its page was read: a batch
 * (this host's or another's) landed in between, as it can on PostgreSQL, whose reads are not one
 * snapshot. Ranked again, the page is the index as it is now; only an index changing under every
 * try fails the search.
 */
export const PAGE_ATTEMPTS = 3;

export function indexChanged(): TroveError {
  return new TroveError('CONFLICT', 'the index changed during the search; search again');
}

export class KeywordSearch {
  private generation = -1;
  private counts: Promise<KeywordCounts> | null = null;
  /** term (or `prefix*`) → its count and the rows of the index when it was counted */
  private readonly df = new Map<string, { df: Promise<number>; rows: number }>();

  constructor(
    private readonly storage: Storage,
    /** Shared with the vector leg: a page of hits' chunks, documents and texts. */
    readonly anchors: PageAnchors,
    /** The keyword index searched: one collection kind's (store/keyword-index.ts). */
    private readonly index: KeywordIndex = 'chunks_fts',
  ) {}

  async search(req: KeywordRequest, generation: number): Promise<KeywordResult> {
    for (let attempt = 1; ; attempt++) {
      const r = await this.rank(req, generation);
      const { page, highlight, ...rest } = r;
      if (!page.length) return { hits: [], ...rest };
      const anchors = await this.anchors.read(page, req.snippets !== false || req.explain, generation, attempt > 1);
      if (page.some((c) => !anchors.has(c.chunkId))) {
        if (attempt < PAGE_ATTEMPTS) continue; // ranked again on the index as it is now
        throw indexChanged();
      }
      const matcher = new TermMatcher(highlight); // what a snippet centres on and marks (search/highlight.ts)
      return { hits: page.map((c) => keywordHit(c, anchors.get(c.chunkId)!, matcher, req, r.plan)), ...rest };
    }
  }

  /**
   * The ranked page as documents and scores only, without reading their anchors or cutting
   * snippets: for a caller that shows its own rows (memory reads its entries by document).
   */
  async rank(req: KeywordRequest, generation: number): Promise<RankedCandidates> {
    const parsed = parseQuery(req.query, req.syntax);
    const repo = this.storage.keyword(this.index);
    const counts = await this.countsAt(generation);
    let steps: { name: PlanStep['name']; expression: string; match: KeywordStep }[];
    let dropped: PlannedTerm[] = [];
    let bm25Scale: Bm25Scale | null = null;
    let excluded: Set<number> | null = null;
    if (parsed.kind === 'terms') {
      const planned: PlannedTerm[] = await Promise.all(parsed.terms.map(async (t) => ({ ...t, df: await this.documentFrequency(t, counts.rows) })));
      const p = planSteps(planned, counts.rows);
      steps = p.steps.map((step) => ({ name: step.name, expression: step.expression, match: termStep(step) }));
      dropped = p.dropped;
      bm25Scale = { bound: p.bm25Bound, coverage: p.termCoverage };
    } else {
      // one step: the rows matching the expression, scored as BM25 of its (positive) words
      const words = [...new Map(parsed.highlight.map((t) => [`${t.prefix ? '*' : ''}${keywordTerm(t).term}`, t])).values()];
      const terms = await Promise.all(words.map(async (t) => ({ ...keywordTerm(t), df: await this.documentFrequency(t, counts.rows) })));
      steps = [{ name: 'expression', expression: parsed.expression, match: { op: 'expression', expression: parsed.tree, terms } }];
      if (parsed.excludeTree) excluded = await repo.documentsMatching(parsed.excludeTree);
    }
    const needed = req.offset + req.limit + 1; // one more than the page tells us whether there is more
    const docs: DocCandidate[] = [];
    const tierOf = new Map<number, number>();
    let exhausted = true;
    let last: (typeof steps)[number] | undefined;
    for (const [tier, step] of steps.entries()) {
      last = step;
      const found = await this.collect(step.match, req.filters, needed, counts);
      exhausted = found.exhausted;
      for (const d of found.docs) {
        if (tierOf.has(d.documentId) || excluded?.has(d.documentId)) continue;
        tierOf.set(d.documentId, tier);
        docs.push(d);
      }
      if (docs.length >= needed) break;
    }
    const plan = { strategy: last?.name ?? 'none', expression: last?.expression ?? '', dropped: dropped.map((t) => t.token.text) };
    const highlight = parsed.highlight;
    if (!docs.length) return { page: [], hasMore: false, nextOffset: null, totalEstimated: 0, plan, bm25Scale, highlight };

    const raws = docs.map((d) => -d.rank);
    const scores = normalise(tiered(raws, docs.map((d) => tierOf.get(d.documentId)!)));
    const { page, ...rest } = rankedPage(docs.map((d, i) => ({ d, score: scores[i]!, raw: raws[i]! })), req, exhausted, needed);
    return {
      page: page.map(({ d, score, raw }) => ({ documentId: d.documentId, chunkId: d.chunkId, score: round(score), bm25: round(raw), rawBm25: raw, matchedChunks: d.chunks })),
      ...rest,
      plan,
      bm25Scale,
      highlight,
    };
  }

  /** The index's row count (and average length), taken again when the index has changed. */
  private countsAt(generation: number): Promise<KeywordCounts> {
    if (generation !== this.generation || !this.counts) {
      this.generation = generation;
      const read = this.storage.keyword(this.index).counts();
      read.catch(() => this.counts === read && (this.counts = null)); // a failed read is not kept
      this.counts = read;
    }
    return this.counts;
  }

  /** Rows holding the term (for a prefix, any term it starts), kept while the index stays about the same size. */
  private documentFrequency(t: QueryTerm, rows: number): Promise<number> {
    const term = keywordTerm(t);
    const key = `${term.prefix ? '*' : ''}${term.term}`;
    const cached = this.df.get(key);
    if (cached && Math.abs(cached.rows - rows) <= rows * DF_DRIFT) return cached.df;
    if (this.df.size >= DF_CACHE_SIZE) this.df.clear();
    const df = this.storage.keyword(this.index).documentFrequency(term);
    this.df.set(key, { df, rows });
    // absent terms and failed reads are counted again next time
    df.then(
      (n) => n === 0 && this.df.get(key)?.df === df && this.df.delete(key),
      () => this.df.get(key)?.df === df && this.df.delete(key),
    );
    return df;
  }

  /** Ranked chunks of one step until `needed` distinct documents are found (or nothing more matches). */
  private async collect(match: KeywordStep, filters: ResolvedFilters, needed: number, counts: KeywordCounts): Promise<{ docs: DocCandidate[]; exhausted: boolean }> {
    const repo = this.storage.keyword(this.index);
    for (let limit = needed * 4 + 16; ; limit *= 4) {
      const rows = await repo.candidates(match, filters, limit, counts);
      const byDoc = new Map<number, DocCandidate>();
      for (const row of rows) {
        const d = byDoc.get(row.documentId);
        if (d) d.chunks++;
        else byDoc.set(row.documentId, { documentId: row.documentId, chunkId: row.chunkId, rank: row.rank, chunks: 1 });
      }
      const exhausted = rows.length < limit;
      if (exhausted || byDoc.size >= needed || limit >= MAX_CHUNK_FETCH) return { docs: [...byDoc.values()], exhausted };
    }
  }
}

function keywordHit(c: RankedCandidate, a: PageAnchor, matcher: TermMatcher, req: KeywordRequest, plan: KeywordPlanInfo): KeywordHit {
  const { chunk, doc, collection } = a;
  const snippet = req.snippets === false ? { text: '', line: chunk.lineStart, highlights: [] } : anchorSnippet(a, matcher, req.snippetChars);
  const hit: KeywordHit = {
    documentId: doc.id,
    chunkId: chunk.id,
    docid: doc.docid,
    collection,
    path: doc.path,
    title: doc.title,
    kind: doc.kind,
    tags: doc.tags,
    modifiedMs: doc.mtimeMs,
    score: c.score,
    bm25: c.bm25,
    snippet: snippet.text,
    highlights: snippet.highlights,
    line: snippet.line,
    page: chunk.page,
    chunk: { ordinal: chunk.ordinal, lineStart: chunk.lineStart, lineEnd: chunk.lineEnd, headingPath: chunk.headingPath, page: chunk.page },
    ...ocrHitInfo(doc.ocrConfidence, chunk.page),
    signals: { bm25: c.rawBm25 },
  };
  if (req.explain) {
    hit.explain = {
      bm25: c.bm25,
      strategy: plan.strategy,
      expression: plan.expression,
      fields: {
        title: matcher.termsIn(doc.title),
        headings: matcher.termsIn(chunk.headingPath.join('\n')),
        body: matcher.termsIn(anchorText(a)),
      },
      matchedChunks: c.matchedChunks,
    };
  }
  return hit;
}

/** A planner step as data: every term, or any of them. */
function termStep(step: PlanStep): KeywordStep {
  const terms: PlannedKeywordTerm[] = (step.terms ?? []).map((t) => ({ ...keywordTerm(t), df: t.df }));
  return { op: step.name === 'any-term' ? 'or' : 'and', terms };
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
