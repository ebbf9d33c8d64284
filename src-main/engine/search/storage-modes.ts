// Vector, hybrid and rerank search over the storage interface (store/storage.ts), so they run on
// PostgreSQL (pgvector HNSW, filters pushed into the scan): the same legs, fusion, rerank blend,
// pagination and hits as modes.ts and vector.ts, with every read an awaited repository call. The
// SQLite engine keeps modes.ts (sqlite-vec, usearch, cached statements). The query is embedded
// by a QueryEmbedder: this host only searches the vectors, it does not write them.
import { TroveError } from '../errors.js';
import type { QueryEmbedder } from '../embed/query-embedder.js';
import type { Storage } from '../store/storage.js';
import type { VectorMatch, VectorSpace } from '../store/vectors.js';
import type { ResolvedFilters } from './filters.js';
import { reciprocalRankFusion, weightedSumFusion, type FusedHit } from './fusion.js';
import { queryMatcher } from './highlight.js';
import type { RankedHit } from './hit.js';
import type { Bm25Scale } from './lexical.js';
import { explainedHit, type FusionMethod, type ModeResult } from './modes.js';
import type { ValidSearchRequest } from './request.js';
import { blendRerank, DEFAULT_RERANK_TOP, type RerankedHit } from './rerank.js';
import { snippetAround, type TermMatcher } from './snippet.js';
import type { StorageKeywordSearch } from './storage-keyword.js';
import { pageAnchors, type PageAnchor } from './storage-anchors.js';
import { DEFAULT_VECTOR_MIN_SCORE, MAX_K, rankedDocuments, round, settleRound, type DocumentNearest } from './vector.js';

const NOT_EMBEDDING = 'vectors are made by `trove embed --database`, `trove index --database` or a `trove serve --database` host';

/** Candidates each leg contributes to fusion (and the reranker's pool), as modes.ts. */
const LEG_DEPTH = 50;

interface SpaceQuery {
  space: VectorSpace;
  collectionIds: number[];
}

export class StorageModeSearch {
  constructor(
    private readonly storage: Storage,
    private readonly keyword: StorageKeywordSearch,
    private readonly embedder: QueryEmbedder,
    private readonly opts: { fusion: FusionMethod },
  ) {}

  /** The spaces serving these collections, and the collections without vectors (by name). */
  async spacesFor(collectionIds: readonly number[]): Promise<{ spaces: SpaceQuery[]; missing: string[] }> {
    const bySpace = new Map<number, number[]>();
    const missing: string[] = [];
    for (const id of collectionIds) {
      const cv = await this.storage.vectors.collection(id);
      if (cv.activeSpaceId === null) missing.push((await this.storage.collections.byId(id))?.name ?? String(id));
      else bySpace.set(cv.activeSpaceId, [...(bySpace.get(cv.activeSpaceId) ?? []), id]);
    }
    const spaces: SpaceQuery[] = [];
    for (const [spaceId, ids] of bySpace) {
      const space = await this.storage.vectors.space(spaceId);
      if (space) spaces.push({ space, collectionIds: ids });
    }
    return { spaces, missing };
  }

  /** Why vector search cannot run over these collections (null: it can), as modes.ts says it. */
  async unavailableReason(collectionIds: readonly number[]): Promise<string | null> {
    const { spaces, missing } = await this.spacesFor(collectionIds);
    if (spaces.length) return null;
    return collectionIds.length ? `no vectors yet for ${missing.join(', ')} (${NOT_EMBEDDING})` : 'there are no collections to search';
  }

  async run(req: ValidSearchRequest, filters: ResolvedFilters, collectionIds: readonly number[]): Promise<ModeResult> {
    const needed = req.offset + req.limit + 1;
    const notices: string[] = [];
    const { spaces, missing } = await this.spacesFor(collectionIds);
    const noVectors = () => (collectionIds.length ? `no vectors yet for ${missing.join(', ')} (${NOT_EMBEDDING})` : 'there are no collections to search');
    if (missing.length && spaces.length) notices.push(`no vectors yet for ${missing.join(', ')}: their documents come from keyword search only`);
    const plan = { strategy: req.mode as string, expression: '', dropped: [] as string[] };
    const snippets = req.mode === 'vector';
    const vectorLeg = (top: number) => {
      const minScore = req.mode === 'vector' ? (req.minScore ?? DEFAULT_VECTOR_MIN_SCORE) : DEFAULT_VECTOR_MIN_SCORE;
      return this.vectorSearch(req, filters, spaces, top, minScore, snippets);
    };

    if (req.mode === 'vector') {
      if (!spaces.length) throw new TroveError('UNAVAILABLE', `vector search is off: ${noVectors()}`);
      const r = await vectorLeg(needed);
      return { hits: r.hits, total: r.hits.length, exhausted: r.exhausted, notices, plan, ran: { keyword: false, vector: true }, bm25Scale: null };
    }

    const depth = Math.max(LEG_DEPTH, needed);
    const vectorPromise = spaces.length ? vectorLeg(depth) : null;
    vectorPromise?.catch(() => undefined); // handled below
    let keywordHits: RankedHit[] = [];
    let bm25Scale: Bm25Scale | null = null;
    const ran = { keyword: false, vector: false };
    try {
      const lx = await this.keyword.search({ query: req.query, syntax: req.syntax, limit: depth, offset: 0, snippetChars: req.snippetChars, snippets, explain: req.explain, filters });
      keywordHits = lx.hits;
      bm25Scale = lx.bm25Scale;
      ran.keyword = true;
      Object.assign(plan, { expression: lx.plan.expression, dropped: lx.plan.dropped });
    } catch (err) {
      if (!(err instanceof TroveError && err.code === 'INVALID_INPUT') || !vectorPromise) throw err;
      notices.push(`keyword leg skipped: ${err.message}`);
    }
    let vectorHits: RankedHit[] = [];
    if (!vectorPromise) notices.push(`vector leg skipped (keyword results only): ${noVectors()}`);
    else {
      try {
        vectorHits = (await vectorPromise).hits;
        ran.vector = true;
      } catch (err) {
        if (!(err instanceof TroveError)) throw err;
        notices.push(`vector leg skipped (keyword results only): ${err.message}`);
      }
    }
    const fusion = this.opts.fusion;
    const legs = [
      { name: 'keyword', weight: fusion === 'weighted' ? 0.4 : 1, hits: keywordHits },
      { name: 'vector', weight: fusion === 'weighted' ? 0.6 : 1, hits: vectorHits },
    ];
    let fused: RerankedHit[] = fusion === 'weighted' ? weightedSumFusion(legs) : reciprocalRankFusion(legs);
    plan.strategy = `${req.mode}:${fusion}`;
    if (req.mode === 'rerank') fused = await this.rerank(req.query, fused, notices);
    if (req.minScore !== undefined) fused = fused.filter((f) => f.score >= req.minScore!);
    await this.cutSnippets(fused.slice(req.offset, req.offset + req.limit), req);
    return {
      hits: fused.map((f) => explainedHit(f, req.explain, fusion)),
      total: fused.length,
      exhausted: keywordHits.length < depth && vectorHits.length < depth,
      notices,
      plan,
      ran,
      bm25Scale,
    };
  }

  /** Best documents across the spaces, each with its nearest chunk (vector.ts's collapse and stopping rules). */
  private async vectorSearch(req: ValidSearchRequest, filters: ResolvedFilters, spaces: readonly SpaceQuery[], top: number, minScore: number, snippets: boolean) {
    const best = new Map<number, DocumentNearest>();
    let exhausted = true;
    for (const sq of spaces) {
      const vector = await this.embedder.embedQuery(sq.space, req.query);
      for (let k = Math.min(MAX_K, top * 4 + 16); ; k = Math.min(MAX_K, k * 4)) {
        const rows: VectorMatch[] = await this.storage.vectors.nearest(sq.space.id, vector, sq.collectionIds, k, filters);
        const outcome = settleRound(rows, rows.length < k, k, top, minScore, best);
        if (outcome.settled) {
          if (outcome.more) exhausted = false;
          break;
        }
      }
    }
    const ranked = rankedDocuments(best, minScore, top);
    const matcher = queryMatcher(req.query, req.syntax);
    const anchors = await pageAnchors(this.storage, ranked, snippets);
    const hits = ranked.map((d) => {
      const a = anchors.get(d.chunkId);
      if (!a) throw new TroveError('CONFLICT', 'the index changed during the search; search again');
      return this.vectorHit(d, a, matcher, req, snippets);
    });
    return { hits, exhausted };
  }

  private vectorHit(d: { documentId: number; chunkId: number; distance: number; chunks: number; score: number }, a: PageAnchor, matcher: TermMatcher, req: ValidSearchRequest, snippets: boolean): RankedHit {
    const snippet = snippets ? snippetAround(a.text, a.chunk.charStart, a.chunk.charEnd, a.chunk.lineStart, matcher, req.snippetChars) : { text: '', line: a.chunk.lineStart, highlights: [] };
    return {
      documentId: d.documentId,
      chunkId: d.chunkId,
      docid: a.doc.docid,
      collection: a.collection,
      path: a.doc.path,
      title: a.doc.title,
      kind: a.doc.kind,
      tags: a.doc.tags,
      modifiedMs: a.doc.mtimeMs,
      score: round(d.score),
      snippet: snippet.text,
      highlights: snippet.highlights,
      line: snippet.line,
      page: a.chunk.page,
      chunk: { ordinal: a.chunk.ordinal, lineStart: a.chunk.lineStart, lineEnd: a.chunk.lineEnd, headingPath: a.chunk.headingPath, page: a.chunk.page },
      signals: { cosine: 1 - d.distance },
      ...(req.explain ? { explain: { cosine: round(1 - d.distance), matchedChunks: d.chunks } } : {}),
    };
  }

  /** Snippets for the hits a page shows (the legs left them out). */
  private async cutSnippets(page: readonly FusedHit[], req: ValidSearchRequest): Promise<void> {
    if (!page.length) return;
    const matcher = queryMatcher(req.query, req.syntax);
    const anchors = await pageAnchors(this.storage, page.map((f) => f.hit), true);
    for (const f of page) {
      const a = anchors.get(f.hit.chunkId);
      if (!a) continue; // its chunk went away meanwhile: no snippet rather than a wrong one
      const s = snippetAround(a.text, a.chunk.charStart, a.chunk.charEnd, a.chunk.lineStart, matcher, req.snippetChars);
      f.hit = { ...f.hit, snippet: s.text, highlights: s.highlights, line: s.line };
    }
  }

  private rerank(query: string, fused: FusedHit[], notices: string[]): Promise<RerankedHit[]> {
    return storageRerank(this.storage, this.embedder, query, fused, notices);
  }
}

/**
 * The rerank blend over the storage interface (documents here, memory in shared-memory-search.ts):
 * the top fused hits' chunk texts scored by the reranker; a reranker that is not there leaves the
 * fused order and says so in `notices`.
 */
export async function storageRerank(storage: Storage, embedder: QueryEmbedder, query: string, fused: FusedHit[], notices: string[]): Promise<RerankedHit[]> {
  const top = fused.slice(0, DEFAULT_RERANK_TOP);
  if (!top.length) return fused;
  try {
    const passages = async () => {
      const anchors = await pageAnchors(storage, top.map((h) => h.hit), true);
      return top.map((h) => {
        const a = anchors.get(h.hit.chunkId);
        return a ? a.text.slice(a.chunk.charStart, a.chunk.charEnd) : h.hit.title;
      });
    };
    return blendRerank(fused, await embedder.rerankScores(query, passages));
  } catch (err) {
    if (!(err instanceof TroveError)) throw err;
    notices.push(`rerank skipped: ${err.message}`);
    return fused;
  }
}
