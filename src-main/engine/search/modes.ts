// The semantic search modes on top of the keyword leg: vector, hybrid (keyword + vector fused)
// and rerank (hybrid, then a cross-encoder over the top candidates), over the storage interface.
// Returns ranked hits and notices that say what was skipped and why (no vectors yet, no
// reranker) and how much of the index the vector leg can see while embedding is under way.
import { ocrHitInfo } from '../ocr/merge.js';
import { TroveError } from '../errors.js';
import type { EmbeddingService } from '../embed/embeddings.js';
import type { Storage } from '../store/storage.js';
import type { VectorSpace } from '../store/vectors.js';
import type { ResolvedFilters } from '../store/filters.js';
import { reciprocalRankFusion, weightedSumFusion, type FusedHit } from './fusion.js';
import { queryMatcher } from './highlight.js';
import type { RankedHit } from './hit.js';
import { indexChanged, PAGE_ATTEMPTS, type Bm25Scale, type KeywordSearch } from './keyword-search.js';
import { anchorSnippet, anchorText, type PageAnchor } from './page-anchors.js';
import type { ValidSearchRequest } from './request.js';
import { blendRerank, DEFAULT_RERANK_TOP, type RerankedHit } from './rerank.js';
import type { TermMatcher } from './snippet.js';
import { DEFAULT_VECTOR_MIN_SCORE, nearestDocuments, round, type NearestDocument, type SpaceQuery } from './vector.js';

export interface ModeResult {
  hits: RankedHit[];
  total: number;
  exhausted: boolean;
  notices: string[];
  plan: { strategy: string; expression: string; dropped: string[] };
  /** Which legs answered (a leg that was skipped, or failed, says so in notices). */
  ran: { keyword: boolean; vector: boolean };
  /** The keyword leg's BM25 scale (see KeywordResult), null when it did not run. */
  bm25Scale: Bm25Scale | null;
}

/** Candidates each leg contributes to fusion (and the reranker's pool). */
const LEG_DEPTH = 50;

/** rrf: reciprocal rank fusion (k=60); weighted: a weighted sum of normalised scores, 0.4 keyword / 0.6 vector. */
export type FusionMethod = 'rrf' | 'weighted';

interface Named {
  id: number;
  name: string;
}

export class ModeSearch {
  constructor(
    private readonly storage: Storage,
    private readonly keyword: KeywordSearch,
    private readonly embeddings: EmbeddingService,
    private readonly opts: { fusion: FusionMethod },
  ) {}

  /** The spaces serving these collections, and the collections without vectors. */
  async spacesFor(collections: readonly Named[]): Promise<{ spaces: { space: VectorSpace; collectionIds: number[] }[]; missing: Named[] }> {
    const bySpace = new Map<number, { space: VectorSpace; collectionIds: number[] }>();
    const missing: Named[] = [];
    for (const c of collections) {
      const space = await this.embeddings.activeSpace(c.id);
      if (!space) missing.push(c);
      else if (bySpace.has(space.id)) bySpace.get(space.id)!.collectionIds.push(c.id);
      else bySpace.set(space.id, { space, collectionIds: [c.id] });
    }
    return { spaces: [...bySpace.values()], missing };
  }

  /** Why vector search cannot run over these collections (null: it can); catchUp: a search is about to run (EmbeddingService.catchUp). */
  async unavailableReason(collections: readonly Named[], opts: { catchUp?: boolean } = {}): Promise<string | null> {
    if (opts.catchUp) await this.embeddings.catchUp(collections);
    const { spaces, missing } = await this.spacesFor(collections);
    return spaces.length ? null : this.noVectors(collections, missing);
  }

  private async noVectors(collections: readonly Named[], missing: readonly Named[]): Promise<string> {
    if (!collections.length) return 'there are no collections to search';
    const why = missing.map((c) => this.embeddings.problem(c.name)).find(Boolean);
    return `no vectors yet for ${missing.map((c) => c.name).join(', ')}: ${why ?? (await this.embeddings.noVectorsYet(collections))}`;
  }

  async run(req: ValidSearchRequest, filters: ResolvedFilters, collections: readonly Named[], generation: number): Promise<ModeResult> {
    const needed = req.offset + req.limit + 1;
    const notices: string[] = [];
    await this.embeddings.catchUp(collections); // what was just written is found, when it is little
    const { spaces, missing } = await this.spacesFor(collections);
    if (req.mode === 'vector' && !spaces.length) throw new TroveError('UNAVAILABLE', `vector search is off: ${await this.noVectors(collections, missing)}`);
    if (missing.length && spaces.length) notices.push(`no vectors yet for ${missing.map((c) => c.name).join(', ')}: their documents come from keyword search only`);
    // how much of the index the vector leg can see yet (none while embedding is complete)
    const coverage = spaces.length ? await this.embeddings.coverageNotice(collections) : null;
    if (coverage) notices.push(coverage);
    const plan = { strategy: req.mode as string, expression: '', dropped: [] as string[] };

    // hybrid and rerank rank 2 x LEG_DEPTH candidates and return one page: cut snippets for that page only
    const snippets = req.mode === 'vector';
    const vectorLeg = async (top: number) => {
      const queries: SpaceQuery[] = [];
      for (const s of spaces) queries.push({ ...s, vector: await this.embeddings.models.embedQuery(s.space, req.query) });
      const minScore = req.mode === 'vector' ? (req.minScore ?? DEFAULT_VECTOR_MIN_SCORE) : DEFAULT_VECTOR_MIN_SCORE;
      for (let attempt = 1; ; attempt++) {
        const found = await nearestDocuments(this.storage, queries, top, minScore, filters);
        const hits = await this.vectorHits(found.documents, req, snippets, generation, attempt > 1);
        if (hits) return { hits, exhausted: found.exhausted };
        if (attempt === PAGE_ATTEMPTS) throw indexChanged(); // else found again on the index as it is now
      }
    };

    if (req.mode === 'vector') {
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
      const kw = await this.keyword.search({ query: req.query, syntax: req.syntax, limit: depth, offset: 0, snippetChars: req.snippetChars, snippets, explain: req.explain, filters }, generation);
      keywordHits = kw.hits;
      bm25Scale = kw.bm25Scale;
      ran.keyword = true;
      Object.assign(plan, { expression: kw.plan.expression, dropped: kw.plan.dropped });
    } catch (err) {
      // a query of stop words has no keyword leg; the vector leg can still answer it
      if (!(err instanceof TroveError && err.code === 'INVALID_INPUT') || !vectorPromise) throw err;
      notices.push(`keyword leg skipped: ${err.message}`);
    }
    let vectorHits: RankedHit[] = [];
    if (!vectorPromise) notices.push(`vector leg skipped (keyword results only): ${await this.noVectors(collections, missing)}`);
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
    if (req.mode === 'rerank') fused = await this.rerank(req.query, fused, notices, generation);
    if (req.minScore !== undefined) fused = fused.filter((f) => f.score >= req.minScore!);
    await this.cutSnippets(fused.slice(req.offset, req.offset + req.limit), req, generation);
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

  /** The hits, or null when a chunk left the index before its anchor was read. */
  private async vectorHits(docs: readonly NearestDocument[], req: ValidSearchRequest, snippets: boolean, generation: number, fresh: boolean): Promise<RankedHit[] | null> {
    const matcher = queryMatcher(req.query, req.syntax);
    const anchors = await this.keyword.anchors.read(docs, snippets, generation, fresh);
    if (docs.some((d) => !anchors.has(d.chunkId))) return null;
    return docs.map((d) => vectorHit(d, anchors.get(d.chunkId)!, matcher, req, snippets));
  }

  /** Snippets for the hits a page shows (the legs left them out), marking the words the query searched for. */
  private async cutSnippets(page: readonly FusedHit[], req: ValidSearchRequest, generation: number): Promise<void> {
    if (!page.length) return;
    const matcher = queryMatcher(req.query, req.syntax);
    const anchors = await this.keyword.anchors.read(page.map((f) => f.hit), true, generation);
    for (const f of page) {
      const a = anchors.get(f.hit.chunkId);
      if (!a) continue; // its chunk went away meanwhile: no snippet rather than a wrong one
      const s = anchorSnippet(a, matcher, req.snippetChars);
      f.hit = { ...f.hit, snippet: s.text, highlights: s.highlights, line: s.line };
    }
  }

  private rerank(query: string, fused: FusedHit[], notices: string[], generation: number): Promise<RerankedHit[]> {
    return rerankTop(this.embeddings, this.keyword.anchors, query, fused, notices, generation);
  }
}

/**
 * The rerank blend (documents here, memory in memory/memory-search.ts): the top fused hits' chunk
 * texts scored by the reranker; a reranker that is not there leaves the fused order and says so in
 * `notices`.
 */
export async function rerankTop(
  embeddings: EmbeddingService,
  anchors: KeywordSearch['anchors'],
  query: string,
  fused: FusedHit[],
  notices: string[],
  generation: number,
): Promise<RerankedHit[]> {
  const top = fused.slice(0, DEFAULT_RERANK_TOP);
  if (!top.length) return fused;
  try {
    const passages = async () => {
      const read = await anchors.read(top.map((h) => h.hit), true, generation);
      return top.map((h) => {
        const a = read.get(h.hit.chunkId);
        return a ? anchorText(a) : h.hit.title;
      });
    };
    return blendRerank(fused, await embeddings.models.rerankScores(query, passages));
  } catch (err) {
    if (!(err instanceof TroveError)) throw err;
    notices.push(`rerank skipped: ${err.message}`);
    return fused;
  }
}

function vectorHit(d: NearestDocument, a: PageAnchor, matcher: TermMatcher, req: ValidSearchRequest, snippets: boolean): RankedHit {
  const snippet = snippets ? anchorSnippet(a, matcher, req.snippetChars) : { text: '', line: a.chunk.lineStart, highlights: [] };
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
    ...ocrHitInfo(a.doc.ocrConfidence, a.chunk.page),
    signals: { cosine: 1 - d.distance },
    ...(req.explain ? { explain: { cosine: round(1 - d.distance), matchedChunks: d.chunks } } : {}),
  };
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
