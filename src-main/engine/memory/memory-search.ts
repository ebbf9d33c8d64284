// Memory search by the documents' own code: the keyword leg is KeywordSearch over memory_fts
// (the same planner and BM25), the vector leg the documents' over the `~memory` collection's
// vector space, fused by search/fusion.ts and reranked by search/rerank.ts, on either backend.
// Filters arrive as one clause (the backend's own, MemoryRepository.searchClause) pushed into both
// legs. What comes back is the ranked entries (by document id) with each leg's rank and scores;
// the room turns a page of them into entries.
import { TroveError } from '../errors.js';
import type { EmbeddingService } from '../embed/embeddings.js';
import type { Storage } from '../store/storage.js';
import type { VectorSpace } from '../store/vectors.js';
import type { ResolvedFilters } from '../store/filters.js';
import { reciprocalRankFusion, RRF_K, weightedSumFusion, type FusedHit } from '../search/fusion.js';
import type { KeywordHit, KeywordSearch } from '../search/keyword-search.js';
import { rerankTop } from '../search/modes.js';
import type { QuerySyntax } from '../search/query.js';
import type { RerankedHit } from '../search/rerank.js';
import type { RankedHit } from '../search/hit.js';
import { nearestDocuments } from '../search/vector.js';
import type { MemorySearchMode, MemorySearchResponse } from '../types/memory.js';

export interface ValidMemorySearch {
  query: string;
  mode: MemorySearchMode;
  syntax: QuerySyntax;
  limit: number;
  offset: number;
  minSimilarity: number | undefined;
  fusion: NonNullable<MemorySearchResponse['fusion']>;
}

/** One ranked entry (by its document), with what each leg said about it. */
export interface RankedEntry {
  documentId: number;
  chunkId: number;
  score: number;
  keyword?: { rank: number; score: number; bm25: number };
  vector?: { rank: number; score: number; cosine: number };
  fused?: number;
  rerank?: { score: number };
}

export interface RankedPage {
  page: RankedEntry[];
  total: number;
  hasMore: boolean;
  legs: MemorySearchResponse['legs'];
  overlap: MemorySearchResponse['overlap'];
  model: string | null;
  notices: string[];
  plan: MemorySearchResponse['plan'];
  timings: Omit<MemorySearchResponse['timings'], 'totalMs'>;
  bm25Scale: MemorySearchResponse['bm25Scale'];
}

/** The hidden collection memory's entries are indexed in (its chunks, keyword rows and vectors). */
export const MEMORY_COLLECTION = '~memory';

/** Candidates each leg contributes to fusion (and the reranker's pool), as for documents. */
const LEG_DEPTH = 50;

export class MemorySearch {
  constructor(
    private readonly storage: Storage,
    private readonly keyword: KeywordSearch,
    private readonly embeddings: EmbeddingService,
  ) {}

  /** The vector space serving memory, or why there is none. */
  async space(collectionId: number | null): Promise<VectorSpace | string> {
    if (collectionId === null) return 'memory is empty';
    const space = await this.embeddings.activeSpace(collectionId);
    if (space) return space;
    return `no vectors yet for memory: ${this.embeddings.problem(MEMORY_COLLECTION) ?? 'entries are embedded in the background (or by `trove embed`); until then use keyword search'}`;
  }

  async run(req: ValidMemorySearch, filters: ResolvedFilters, collectionId: number | null, generation: number): Promise<RankedPage> {
    if (req.mode === 'keyword') return this.keywordOnly(req, filters, generation);
    if (collectionId !== null) await this.embeddings.catchUp([{ id: collectionId, name: MEMORY_COLLECTION }]); // an entry stored a moment ago is found by meaning
    const space = await this.space(collectionId);
    if (req.mode === 'vector' && typeof space === 'string') throw new TroveError('UNAVAILABLE', `semantic search is off: ${space}`);
    return this.semantic(req, filters, collectionId!, space, generation);
  }

  private async keywordOnly(req: ValidMemorySearch, filters: ResolvedFilters, generation: number): Promise<RankedPage> {
    const t0 = performance.now();
    // ranked documents only: the room reads its entries by document, no anchor or snippet is needed
    const r = await this.keyword.rank({ query: req.query, syntax: req.syntax, limit: req.limit, offset: req.offset, snippetChars: 40, snippets: false, explain: false, filters }, generation);
    const page = r.page.map((h, i) => ({ documentId: h.documentId, chunkId: h.chunkId, score: h.score, keyword: { rank: req.offset + i + 1, score: h.score, bm25: h.bm25 } }));
    return {
      page,
      total: r.totalEstimated,
      hasMore: r.hasMore,
      legs: { keyword: r.totalEstimated, vector: null },
      overlap: null,
      model: null,
      notices: [],
      plan: r.plan,
      timings: { keywordMs: ms(t0), vectorMs: null, embedMs: null },
      bm25Scale: r.bm25Scale,
    };
  }

  private async semantic(req: ValidMemorySearch, filters: ResolvedFilters, collectionId: number, space: VectorSpace | string, generation: number): Promise<RankedPage> {
    const needed = req.offset + req.limit + 1;
    const notices: string[] = [];
    const timings: RankedPage['timings'] = { keywordMs: null, vectorMs: null, embedMs: null };
    const plan = { strategy: req.mode as string, expression: '', dropped: [] as string[] };
    const depth = req.mode === 'vector' ? needed : Math.max(LEG_DEPTH, needed);
    let bm25Scale: RankedPage['bm25Scale'] = null;

    const vectorLeg = async (s: VectorSpace) => {
      const t0 = performance.now();
      const vector = await this.embeddings.models.embedQuery(s, req.query);
      const t1 = performance.now();
      timings.embedMs = ms(t0);
      const found = await nearestDocuments(this.storage, [{ space: s, collectionIds: [collectionId], vector }], depth, req.minSimilarity ?? 0, filters);
      timings.vectorMs = ms(t1);
      // fusion and paging read documentId, chunkId and score; the room reads the entries itself
      const hits = found.documents.map((d) => ({ documentId: d.documentId, chunkId: d.chunkId, score: round(d.score), title: '', signals: { cosine: 1 - d.distance } }) as unknown as RankedHit);
      return { hits, exhausted: found.exhausted };
    };
    if (req.mode === 'vector') {
      const r = await vectorLeg(space as VectorSpace);
      return pagedRanking(req, vectorRanking(r.hits), r.exhausted, { keyword: null, vector: r.hits.length }, null, (space as VectorSpace).modelId, notices, plan, timings, null);
    }

    // hybrid and rerank: the query is embedded in a worker while the keyword leg runs
    const vectorPromise = typeof space === 'string' ? null : vectorLeg(space);
    vectorPromise?.catch(() => undefined); // handled below
    let keywordHits: KeywordHit[] = [];
    try {
      const t0 = performance.now();
      const kw = await this.keyword.search({ query: req.query, syntax: req.syntax, limit: depth, offset: 0, snippetChars: 40, snippets: false, explain: false, filters }, generation);
      timings.keywordMs = ms(t0);
      keywordHits = kw.hits;
      bm25Scale = kw.bm25Scale;
      Object.assign(plan, { expression: kw.plan.expression, dropped: kw.plan.dropped });
    } catch (err) {
      // a query without a searchable word has no keyword leg; the vector leg can still answer it
      if (!(err instanceof TroveError && err.code === 'INVALID_INPUT') || !vectorPromise) throw err;
      notices.push(`keyword leg skipped: ${err.message}`);
    }
    const { vectorHits, model } = await settleVectorLeg(space, vectorPromise, notices);
    return fusedPage(req, { keywordHits, vectorHits, vectorRan: vectorPromise !== null, model, notices, plan, timings, bm25Scale }, depth, (fused) =>
      rerankTop(this.embeddings, this.keyword.anchors, req.query, fused, notices, generation),
    );
  }
}

/** What the hybrid and rerank modes' two legs found, for fusedPage. */
export interface MemoryLegs {
  keywordHits: KeywordHit[];
  vectorHits: RankedHit[];
  /** The vector leg was asked (a space serves memory), whether or not it answered. */
  vectorRan: boolean;
  model: string | null;
  notices: string[];
  plan: RankedPage['plan'];
  timings: RankedPage['timings'];
  bm25Scale: RankedPage['bm25Scale'];
}

/**
 * The hybrid's vector leg, awaited after the keyword leg ran: its hits and model, or none with the
 * reason in `notices` (no space yet: `space` is that reason; the query model failing: its message).
 */
async function settleVectorLeg(space: VectorSpace | string, leg: Promise<{ hits: RankedHit[] }> | null, notices: string[]): Promise<{ vectorHits: RankedHit[]; model: string | null }> {
  if (!leg) {
    notices.push(`vector leg skipped (keyword results only): ${space as string}`);
    return { vectorHits: [], model: null };
  }
  try {
    return { vectorHits: (await leg).hits, model: (space as VectorSpace).modelId };
  } catch (err) {
    if (!(err instanceof TroveError)) throw err;
    notices.push(`vector leg skipped (keyword results only): ${err.message}`);
    return { vectorHits: [], model: null };
  }
}

/**
 * Hybrid and rerank: the legs fused (RRF with the request's k, or weighted), reranked by `rerank`
 * in rerank mode, each entry with what each leg said, and the page.
 */
async function fusedPage(req: ValidMemorySearch, l: MemoryLegs, depth: number, rerank: (fused: FusedHit[]) => Promise<RerankedHit[]>): Promise<RankedPage> {
  const { keywordHits, vectorHits } = l;
  const f = req.fusion;
  const legs = [
    { name: 'keyword', weight: f.method === 'weighted' ? f.keyword : 1, hits: keywordHits },
    { name: 'vector', weight: f.method === 'weighted' ? f.semantic : 1, hits: vectorHits },
  ];
  let fused: RerankedHit[] = f.method === 'weighted' ? weightedSumFusion(legs) : reciprocalRankFusion(legs, f.k);
  l.plan.strategy = `${req.mode}:${f.method}`;
  if (req.mode === 'rerank') fused = await rerank(fused);
  const keywordAt = new Map(keywordHits.map((h, i) => [h.documentId, { rank: i + 1, score: h.score, bm25: h.bm25 }]));
  const vectorAt = new Map(vectorHits.map((h, i) => [h.documentId, { rank: i + 1, score: h.score, cosine: h.score }]));
  const ranked = fused.map((x): RankedEntry => {
    const keyword = keywordAt.get(x.hit.documentId);
    const vector = vectorAt.get(x.hit.documentId);
    const raw = f.method === 'rrf' ? (keyword ? 1 / (f.k + keyword.rank) : 0) + (vector ? 1 / (f.k + vector.rank) : 0) : x.score;
    return { documentId: x.hit.documentId, chunkId: x.hit.chunkId, score: round(x.score), keyword, vector, fused: round(raw, 6), ...(x.rerank ? { rerank: { score: round(x.rerank.score) } } : {}) };
  });
  const exhausted = keywordHits.length < depth && vectorHits.length < depth;
  const both = ranked.filter((x) => x.keyword && x.vector).length;
  const overlap = { both, keywordOnly: keywordHits.length - both, vectorOnly: vectorHits.length - both };
  return pagedRanking(req, ranked, exhausted, { keyword: keywordHits.length, vector: l.vectorRan ? vectorHits.length : null }, overlap, l.model, l.notices, l.plan, l.timings, l.bm25Scale);
}

/** The vector mode's ranking: documents by cosine, as the vector leg found them. */
function vectorRanking(hits: readonly RankedHit[]): RankedEntry[] {
  return hits.map((h, i) => ({ documentId: h.documentId, chunkId: h.chunkId, score: h.score, vector: { rank: i + 1, score: h.score, cosine: h.score } }));
}

function pagedRanking(
  req: ValidMemorySearch,
  ranked: RankedEntry[],
  exhausted: boolean,
  legs: RankedPage['legs'],
  overlap: RankedPage['overlap'],
  model: string | null,
  notices: string[],
  plan: RankedPage['plan'],
  timings: RankedPage['timings'],
  bm25Scale: RankedPage['bm25Scale'],
): RankedPage {
  const hasMore = ranked.length > req.offset + req.limit;
  return {
    page: ranked.slice(req.offset, req.offset + req.limit),
    total: exhausted ? ranked.length : Math.max(ranked.length, req.offset + req.limit + 1),
    hasMore,
    legs,
    overlap,
    model,
    notices,
    plan,
    timings,
    bm25Scale,
  };
}

/** The default fusion: reciprocal rank fusion with k = 60, as for documents. */
export const DEFAULT_MEMORY_FUSION = { method: 'rrf', k: RRF_K } as const;

export function ms(since: number): number {
  return Math.round((performance.now() - since) * 1000) / 1000;
}

function round(n: number, places = 4): number {
  const f = 10 ** places;
  return Math.round(n * f) / f;
}
