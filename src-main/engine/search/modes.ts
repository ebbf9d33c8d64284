// The semantic search modes on top of the keyword leg: vector, hybrid (keyword + vector fused)
// and rerank (hybrid, then a cross-encoder over the top candidates). Returns ranked hits and
// notices that say what was skipped and why (no vectors yet, no reranker).
import { TroveError } from '../errors.js';
import type { EmbeddingService } from '../embed/embeddings.js';
import type { CollectionStore } from '../store/collections.js';
import type { Db } from '../store/database.js';
import type { VectorStore } from '../store/vectors.js';
import type { ResolvedFilters } from './filters.js';
import { reciprocalRankFusion, weightedSumFusion, type FusedHit } from './fusion.js';
import type { Bm25Scale, LexicalSearch } from './lexical.js';
import { queryMatcher } from './highlight.js';
import type { ValidSearchRequest } from './request.js';
import { blendRerank, DEFAULT_RERANK_TOP, passagesOf, type RerankedHit } from './rerank.js';
import type { RankedHit } from './hit.js';
import { DEFAULT_VECTOR_MIN_SCORE, round, VectorSearch, type SpaceQuery } from './vector.js';

export interface ModeResult {
  hits: RankedHit[];
  total: number;
  exhausted: boolean;
  notices: string[];
  plan: { strategy: string; expression: string; dropped: string[] };
  /** Which legs answered (a leg that was skipped, or failed, says so in notices). */
  ran: { keyword: boolean; vector: boolean };
  /** The keyword leg's BM25 scale (see LexicalResult), null when it did not run. */
  bm25Scale: Bm25Scale | null;
}

/** Candidates each leg contributes to fusion (and the reranker's pool). */
const LEG_DEPTH = 50;

/** rrf: reciprocal rank fusion (k=60); weighted: a weighted sum of normalised scores, 0.4 keyword / 0.6 vector. */
export type FusionMethod = 'rrf' | 'weighted';

export class ModeSearch {
  private readonly vector: VectorSearch;

  private readonly vectors: VectorStore;

  constructor(
    db: Db,
    private readonly embeddings: EmbeddingService,
    private readonly lexical: LexicalSearch,
    private readonly collections: CollectionStore,
    private readonly opts: { fusion: FusionMethod },
  ) {
    this.vectors = embeddings.vectors;
    this.vector = new VectorSearch(db, embeddings.vectors, lexical.anchors, embeddings.ann);
  }

  /**
   * The spaces serving these collections, or why there are none. Synchronous so callers can
   * tell at once whether a mode is available.
   */
  spacesFor(collectionIds: readonly number[]): { spaces: { spaceId: number; collectionIds: number[] }[]; missing: string[] } {
    const bySpace = new Map<number, number[]>();
    const missing: string[] = [];
    for (const id of collectionIds) {
      const cv = this.vectors.collection(id);
      if (cv.activeSpaceId === null) {
        missing.push(this.collections.byId(id)?.name ?? String(id));
        continue;
      }
      bySpace.set(cv.activeSpaceId, [...(bySpace.get(cv.activeSpaceId) ?? []), id]);
    }
    return { spaces: [...bySpace].map(([spaceId, ids]) => ({ spaceId, collectionIds: ids })), missing };
  }

  /** Why vector search cannot run over these collections (null: it can). */
  unavailableReason(collectionIds: readonly number[]): string | null {
    const { spaces, missing } = this.spacesFor(collectionIds);
    if (spaces.length) return null;
    if (!collectionIds.length) return 'there are no collections to search';
    const why = missing.map((n) => this.embeddings.problem(n)).find(Boolean);
    return `no vectors yet for ${missing.join(', ')}: ${why ?? this.embeddings.noVectorsYet(this.named(collectionIds))}`;
  }

  private named(collectionIds: readonly number[]): { id: number; name: string }[] {
    return collectionIds.map((id) => ({ id, name: this.collections.byId(id)?.name ?? String(id) }));
  }

  /** Throws UNAVAILABLE (with the reason) when vector search cannot run over these collections. */
  assertAvailable(mode: ValidSearchRequest['mode'], collectionIds: readonly number[]): void {
    if (mode !== 'vector') return; // hybrid and rerank fall back and say so in notices
    const reason = this.unavailableReason(collectionIds);
    if (reason) throw new TroveError('UNAVAILABLE', `vector search is off: ${reason}`);
  }

  async run(req: ValidSearchRequest, filters: ResolvedFilters, collectionIds: number[], generation: number): Promise<ModeResult> {
    const needed = req.offset + req.limit + 1;
    const notices: string[] = [];
    const { spaces, missing } = this.spacesFor(collectionIds);
    if (missing.length && spaces.length) notices.push(`no vectors yet for ${missing.join(', ')}: their documents come from keyword search only`);
    // how much of the index the vector leg can see yet (none while embedding is complete)
    const coverage = spaces.length ? this.embeddings.coverageNotice(this.named(collectionIds)) : null;
    if (coverage) notices.push(coverage);
    const plan = { strategy: req.mode as string, expression: '', dropped: [] as string[] };

    // hybrid and rerank rank 2 x LEG_DEPTH candidates and return one page: cut snippets for that page only
    const snippets = req.mode === 'vector';
    const vectorLeg = async (top: number) => {
      const queries: SpaceQuery[] = [];
      for (const s of spaces) {
        const space = this.vectors.space(s.spaceId)!;
        queries.push({ space, collectionIds: s.collectionIds, vector: await this.embeddings.embedQuery(space, req.query) });
      }
      const minScore = req.mode === 'vector' ? (req.minScore ?? DEFAULT_VECTOR_MIN_SCORE) : DEFAULT_VECTOR_MIN_SCORE;
      return this.vector.search({ query: req.query, syntax: req.syntax, top, minScore, snippetChars: req.snippetChars, snippets, explain: req.explain, filters, generation }, queries);
    };

    if (req.mode === 'vector') {
      if (!spaces.length) throw new TroveError('UNAVAILABLE', `vector search is off: ${this.unavailableReason(collectionIds)}`);
      const r = await vectorLeg(needed);
      return { hits: r.hits, total: r.hits.length, exhausted: r.exhausted, notices, plan, ran: { keyword: false, vector: true }, bm25Scale: null };
    }

    // hybrid and rerank: keyword and vector legs (the vector leg's query embedding runs in a worker meanwhile)
    const depth = Math.max(LEG_DEPTH, needed);
    const vectorPromise = spaces.length ? vectorLeg(depth) : null;
    vectorPromise?.catch(() => undefined); // handled below; no unhandled rejection while the keyword leg runs
    let keywordHits: RankedHit[] = [];
    let bm25Scale: Bm25Scale | null = null;
    const ran = { keyword: false, vector: false };
    try {
      const lx = this.lexical.search({ query: req.query, syntax: req.syntax, limit: depth, offset: 0, snippetChars: req.snippetChars, snippets, explain: req.explain, filters }, generation);
      keywordHits = lx.hits; // lexical hits carry their anchor chunk id: already ranked hits
      bm25Scale = lx.bm25Scale;
      ran.keyword = true;
      Object.assign(plan, { expression: lx.plan.expression, dropped: lx.plan.dropped });
    } catch (err) {
      // a query of stop words has no keyword leg; the vector leg can still answer it
      if (!(err instanceof TroveError && err.code === 'INVALID_INPUT') || !vectorPromise) throw err;
      notices.push(`keyword leg skipped: ${err.message}`);
    }
    let vectorHits: RankedHit[] = [];
    if (!vectorPromise) notices.push(`vector leg skipped (keyword results only): ${this.unavailableReason(collectionIds)}`);
    else {
      try {
        vectorHits = (await vectorPromise).hits;
        ran.vector = true;
      } catch (err) {
        if (!(err instanceof TroveError)) throw err;
        notices.push(`vector leg skipped (keyword results only): ${err.message}`);
      }
    }
    const legs = [
      { name: 'keyword', weight: 1, hits: keywordHits },
      { name: 'vector', weight: 1, hits: vectorHits },
    ];
    const fusion = this.opts.fusion;
    let fused: RerankedHit[] =
      fusion === 'weighted'
        ? weightedSumFusion([{ ...legs[0]!, weight: 0.4 }, { ...legs[1]!, weight: 0.6 }])
        : reciprocalRankFusion(legs);
    plan.strategy = `${req.mode}:${fusion}`;
    if (req.mode === 'rerank') fused = await this.rerank(req.query, fused, notices, generation);
    if (req.minScore !== undefined) fused = fused.filter((f) => f.score >= req.minScore!);
    this.cutSnippets(fused.slice(req.offset, req.offset + req.limit), req, generation);
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

  /** Snippets for the hits a page shows (the legs left them out), marking the words the query searched for. */
  private cutSnippets(page: readonly FusedHit[], req: ValidSearchRequest, generation: number): void {
    if (!page.length) return;
    const matcher = queryMatcher(req.query, req.syntax);
    for (const f of page) {
      const a = this.lexical.anchors.get(f.hit.chunkId);
      if (!a) continue; // its chunk went away meanwhile: no snippet rather than a wrong one
      const s = this.lexical.anchors.snippet(f.hit.documentId, a, generation, matcher, req.snippetChars);
      f.hit = { ...f.hit, snippet: s.text, highlights: s.highlights, line: s.line };
    }
  }

  private async rerank(query: string, fused: FusedHit[], notices: string[], generation: number): Promise<RerankedHit[]> {
    const top = fused.slice(0, DEFAULT_RERANK_TOP);
    if (!top.length) return fused;
    try {
      const logits = await this.embeddings.rerankScores(query, () => passagesOf(this.lexical.anchors, top, generation));
      return blendRerank(fused, logits);
    } catch (err) {
      if (!(err instanceof TroveError)) throw err;
      notices.push(`rerank skipped: ${err.message}`);
      return fused;
    }
  }
}

/** A fused (and maybe reranked) hit as the page shows it, with its legs' evidence under `explain`. */
export function explainedHit(f: RerankedHit, explain: boolean, fusion: string): RankedHit {
  const hit = { ...f.hit, score: round(f.score) };
  if (!explain) return { ...hit, explain: undefined };
  return {
    ...hit,
    explain: {
      fusion,
      fused: round(f.score),
      legs: f.legs,
      ...(f.rerank ? { rerank: { logit: round(f.rerank.logit), score: round(f.rerank.score), fusionRank: f.rerank.fusionRank } } : {}),
      ...(f.hit.explain ? { anchor: f.hit.explain } : {}),
    },
  };
}
