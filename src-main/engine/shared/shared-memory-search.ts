// Memory search on a shared index (PostgreSQL): the same legs as documents there — the storage
// keyword index over memory_fts (search/storage-keyword.ts: the planner, BM25 from postings) and
// pgvector over the `~memory` collection's space — with memory's filters pushed into both as one
// clause over documents d, then the same fusion, rerank blend and paging as the SQLite room
// (memory/memory-search.ts fusedPage / pagedRanking). Returns ranked entries by document id.
import { TroveError } from '../errors.js';
import type { QueryEmbedder } from '../embed/query-embedder.js';
import { fusedPage, ms, pagedRanking, settleVectorLeg, vectorRanking, type RankedPage, type ValidMemorySearch } from '../memory/memory-search.js';
import type { ResolvedFilters } from '../store/filters.js';
import type { RankedHit } from '../search/hit.js';
import type { LexicalHit } from '../search/lexical.js';
import type { StorageKeywordSearch } from '../search/storage-keyword.js';
import { MAX_K, rankedDocuments, round, settleRound, type DocumentNearest } from '../search/vector.js';
import { storageRerank } from '../search/storage-modes.js';
import type { Storage } from '../store/storage.js';
import type { VectorSpace } from '../store/vectors.js';

/** Candidates each leg contributes to fusion (and the reranker's pool), as memory-search.ts. */
const LEG_DEPTH = 50;

export class SharedMemorySearch {
  constructor(
    private readonly storage: Storage,
    private readonly keyword: StorageKeywordSearch,
    private readonly embedder: QueryEmbedder,
  ) {}

  /** The vector space serving memory, or why there is none (memory-search.ts's words). */
  async space(collectionId: number | null): Promise<VectorSpace | string> {
    if (collectionId === null) return 'memory is empty';
    const id = (await this.storage.vectors.collection(collectionId)).activeSpaceId;
    const space = id === null ? undefined : await this.storage.vectors.space(id);
    if (space) return space;
    return 'no vectors yet for memory: entries are embedded in the background (or by `trove embed`); until then use keyword search';
  }

  async run(req: ValidMemorySearch, filters: ResolvedFilters, collectionId: number | null): Promise<RankedPage> {
    if (req.mode === 'keyword') return this.keywordOnly(req, filters);
    const space = await this.space(collectionId);
    if (req.mode === 'vector' && typeof space === 'string') throw new TroveError('UNAVAILABLE', `semantic search is off: ${space}`);
    return this.semantic(req, filters, collectionId!, space);
  }

  private async keywordOnly(req: ValidMemorySearch, filters: ResolvedFilters): Promise<RankedPage> {
    const t0 = performance.now();
    const r = await this.keyword.search({ query: req.query, syntax: req.syntax, limit: req.limit, offset: req.offset, snippetChars: 40, snippets: false, explain: false, filters });
    const page = r.hits.map((h, i) => ({ documentId: h.documentId, chunkId: h.chunkId, score: h.score, keyword: { rank: req.offset + i + 1, score: h.score, bm25: h.bm25 } }));
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

  private async semantic(req: ValidMemorySearch, filters: ResolvedFilters, collectionId: number, space: VectorSpace | string): Promise<RankedPage> {
    const needed = req.offset + req.limit + 1;
    const notices: string[] = [];
    const timings: RankedPage['timings'] = { keywordMs: null, vectorMs: null, embedMs: null };
    const plan = { strategy: req.mode as string, expression: '', dropped: [] as string[] };
    const depth = req.mode === 'vector' ? needed : Math.max(LEG_DEPTH, needed);
    const vectorLeg = async (s: VectorSpace) => {
      const t0 = performance.now();
      const vector = await this.embedder.embedQuery(s, req.query);
      const t1 = performance.now();
      timings.embedMs = ms(t0);
      const r = await this.nearest(s, vector, collectionId, depth, req.minSimilarity ?? 0, filters);
      timings.vectorMs = ms(t1);
      return r;
    };
    if (req.mode === 'vector') {
      const r = await vectorLeg(space as VectorSpace);
      return pagedRanking(req, vectorRanking(r.hits), r.exhausted, { keyword: null, vector: r.hits.length }, null, (space as VectorSpace).modelId, notices, plan, timings, null);
    }
    // hybrid and rerank: the query is embedded in a worker while the keyword leg runs
    const vectorPromise = typeof space === 'string' ? null : vectorLeg(space);
    vectorPromise?.catch(() => undefined); // handled below
    let keywordHits: LexicalHit[] = [];
    let bm25Scale: RankedPage['bm25Scale'] = null;
    try {
      const t0 = performance.now();
      const lx = await this.keyword.search({ query: req.query, syntax: req.syntax, limit: depth, offset: 0, snippetChars: 40, snippets: false, explain: false, filters });
      timings.keywordMs = ms(t0);
      keywordHits = lx.hits;
      bm25Scale = lx.bm25Scale;
      Object.assign(plan, { expression: lx.plan.expression, dropped: lx.plan.dropped });
    } catch (err) {
      // a query without a searchable word has no keyword leg; the vector leg can still answer it
      if (!(err instanceof TroveError && err.code === 'INVALID_INPUT') || !vectorPromise) throw err;
      notices.push(`keyword leg skipped: ${err.message}`);
    }
    const { vectorHits, model } = await settleVectorLeg(space, vectorPromise, notices);
    return fusedPage(req, { keywordHits, vectorHits, vectorRan: vectorPromise !== null, model, notices, plan, timings, bm25Scale }, depth, (fused) => storageRerank(this.storage, this.embedder, req.query, fused, notices));
  }

  /** The best `top` entries by cosine (vector.ts's collapse to documents and stopping rules), filters inside the scan. */
  private async nearest(space: VectorSpace, vector: Float32Array, collectionId: number, top: number, minScore: number, filters: ResolvedFilters): Promise<{ hits: RankedHit[]; exhausted: boolean }> {
    const best = new Map<number, DocumentNearest>();
    let exhausted = true;
    for (let k = Math.min(MAX_K, top * 4 + 16); ; k = Math.min(MAX_K, k * 4)) {
      const rows = await this.storage.vectors.nearest(space.id, vector, [collectionId], k, filters);
      const outcome = settleRound(rows, rows.length < k, k, top, minScore, best);
      if (outcome.settled) {
        if (outcome.more) exhausted = false;
        break;
      }
    }
    // fusion and paging read documentId, chunkId and score; the room reads the entries itself
    const hits = rankedDocuments(best, minScore, top).map(
      (d) => ({ documentId: d.documentId, chunkId: d.chunkId, score: round(d.score), title: '', signals: { cosine: 1 - d.distance } }) as unknown as RankedHit,
    );
    return { hits, exhausted };
  }

}
