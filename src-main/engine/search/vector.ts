// Vector search: kNN over each collection's vector space (filters pushed into the query, see
// store/vectors.ts), collapsed to documents with the best chunk as anchor. Scores are cosine
// similarities clipped to 0..1; hits below minScore (default 0.3) are dropped.
import type { Db } from '../store/database.js';
import type { VectorMatch, VectorSpace, VectorStore } from '../store/vectors.js';
import type { AnnSpaces } from '../store/sqlite/ann-spaces.js';
import { filterSql, type ResolvedFilters } from './filters.js';
import type { Anchors } from './anchors.js';
import type { RankedHit } from './hit.js';
import type { QuerySyntax } from './query.js';
import { queryMatcher } from './highlight.js';
import type { TermMatcher } from './snippet.js';

export const DEFAULT_VECTOR_MIN_SCORE = 0.3;
/** The most nearest chunks one round asks a space for. */
export const MAX_K = 4096;

export interface VectorRequest {
  query: string;
  syntax: QuerySyntax;
  /** How many documents to return, best first (pagination is done by the caller). */
  top: number;
  minScore: number;
  snippetChars: number;
  /** false: leave snippet empty (line: the chunk's first line), as in LexicalRequest. */
  snippets?: boolean;
  explain: boolean;
  filters: ResolvedFilters;
  /** The index generation (for the document text cache). */
  generation: number;
}

/** One space and the collections whose searches it serves, with the query embedded for it. */
export interface SpaceQuery {
  space: VectorSpace;
  collectionIds: number[];
  vector: Float32Array;
}

export class VectorSearch {
  private readonly shareCache = new Map<string, { share: number; at: number }>();
  private readonly ownersStmt;
  private readonly chunkCountStmt;

  constructor(
    db: Db,
    private readonly vectors: VectorStore,
    private readonly anchors: Anchors,
    private readonly ann: AnnSpaces | null = null,
  ) {
    this.ownersStmt = db.prepare<[string], { id: number; documentId: number; collectionId: number }>(
      `SELECT c.id, c.document_id AS documentId, d.collection_id AS collectionId
         FROM json_each(?) j JOIN chunks c ON c.id = j.value JOIN documents d ON d.id = c.document_id`,
    );
    this.chunkCountStmt = db.prepare<[string], { n: number }>(
      'SELECT count(*) AS n FROM json_each(?) j JOIN documents d ON d.collection_id = j.value JOIN chunks c ON c.document_id = d.id',
    );
  }

  /** Best documents across the spaces, each with its nearest chunk; `exhausted` when nothing more could match. */
  search(req: VectorRequest, spaces: readonly SpaceQuery[]): { hits: RankedHit[]; exhausted: boolean } {
    const f = filterSql({ ...req.filters, collectionIds: undefined }); // collections go in as the partition key
    const best = new Map<number, DocumentNearest>();
    let exhausted = true;
    for (const sq of spaces) {
      for (let k = Math.min(MAX_K, req.top * 4 + 16); ; k = Math.min(MAX_K, k * 4)) {
        let rows: VectorMatch[];
        let full: boolean;
        if (f.where) {
          // a filter: the nearest k, filtered; once k reaches its cap with too few kept (a filter that
          // keeps little of the space), the exact scan over what the filter keeps
          const near = this.vectors.nearestThenFilter(sq.space.id, sq.vector, sq.collectionIds, k, f);
          rows = near.rows;
          full = near.scanned < k;
          if (!full && k >= MAX_K && distinctDocuments(rows) < req.top) {
            rows = this.vectors.nearest(sq.space.id, sq.vector, sq.collectionIds, k, f);
            full = rows.length < k;
          }
        } else {
          rows = this.approximate(sq, k) || this.vectors.nearest(sq.space.id, sq.vector, sq.collectionIds, k);
          full = rows.length < k;
        }
        const outcome = settleRound(rows, full, k, req.top, req.minScore, best);
        if (outcome.settled) {
          if (outcome.more) exhausted = false;
          break;
        }
      }
    }
    const ranked = rankedDocuments(best, req.minScore, req.top);
    const matcher = queryMatcher(req.query, req.syntax);
    return { hits: ranked.map((d) => this.hit(d, matcher, req)), exhausted };
  }

  /**
   * k nearest chunks of these collections from the space's ANN index, or null (use exact
   * search) when there is no index yet, the collections are too small a share of it for
   * over-fetching to work, or too few candidates survived the collection check.
   */
  private approximate(sq: SpaceQuery, k: number): VectorMatch[] | null {
    const index = this.ann?.get(sq.space);
    if (!index || !index.size) return null;
    const share = this.share(sq, index.size);
    if (share < 0.05) return null; // a small partition: sqlite-vec's partitioned kNN is exact and fast there
    const fetch = Math.min(index.size, Math.ceil((k * 2) / share));
    const matches = index.search(sq.vector, fetch);
    if (!matches.length) return [];
    const wanted = new Set(sq.collectionIds);
    const byId = new Map(this.ownersStmt.all(JSON.stringify(matches.map((m) => m.key))).map((r) => [r.id, r]));
    const out: VectorMatch[] = [];
    for (const m of matches) {
      const o = byId.get(m.key);
      if (o && wanted.has(o.collectionId)) out.push({ chunkId: m.key, documentId: o.documentId, distance: m.distance });
    }
    if (out.length < Math.min(k, Math.round(index.size * share))) return null; // too few survived: exact instead
    return out.slice(0, k);
  }

  /** The share of the index these collections hold (cached briefly: a count over chunks). */
  private share(sq: SpaceQuery, size: number): number {
    const key = `${sq.space.id}:${sq.collectionIds.join(',')}`;
    const hit = this.shareCache.get(key);
    if (hit && Date.now() - hit.at < 10_000) return hit.share;
    const n = this.chunkCountStmt.get(JSON.stringify(sq.collectionIds))!.n;
    const share = Math.min(1, n / size);
    this.shareCache.set(key, { share, at: Date.now() });
    return share;
  }

  private hit(d: { documentId: number; chunkId: number; distance: number; chunks: number; score: number }, matcher: TermMatcher, req: VectorRequest): RankedHit {
    const a = this.anchors.get(d.chunkId)!;
    const headingPath = a.heading_path ? (JSON.parse(a.heading_path) as string[]) : [];
    const snippet = req.snippets === false ? { text: '', line: a.line_start, highlights: [] } : this.anchors.snippet(d.documentId, a, req.generation, matcher, req.snippetChars);
    return {
      documentId: d.documentId,
      chunkId: d.chunkId,
      docid: a.docid,
      collection: a.collection,
      path: a.path,
      title: a.title,
      kind: a.kind,
      tags: JSON.parse(a.tags) as string[],
      modifiedMs: a.mtime_ms,
      score: round(d.score),
      snippet: snippet.text,
      highlights: snippet.highlights,
      line: snippet.line,
      page: a.page,
      chunk: { ordinal: a.ordinal, lineStart: a.line_start, lineEnd: a.line_end, headingPath, page: a.page },
      signals: { cosine: 1 - d.distance },
      ...(req.explain ? { explain: { cosine: round(1 - d.distance), matchedChunks: d.chunks } } : {}),
    };
  }
}

function distinctDocuments(rows: readonly VectorMatch[]): number {
  return new Set(rows.map((r) => r.documentId)).size;
}

/** A document's nearest chunk in a space, and how many of its chunks the round returned. */
export interface DocumentNearest {
  chunkId: number;
  distance: number;
  chunks: number;
}

/**
 * One kNN round of a space (`full`: it returned fewer rows than the k asked), collapsed to
 * documents. The round settles the space when it found enough documents, the rest are already
 * below minScore, or there is nothing more to fetch; then its documents go into `best` (the
 * nearest chunk wins across spaces), and `more` says whether further rows could have matched.
 * Shared by the SQLite search and the storage-backed one (search/storage-modes.ts).
 */
export function settleRound(rows: readonly VectorMatch[], full: boolean, k: number, top: number, minScore: number, best: Map<number, DocumentNearest>): { settled: boolean; more: boolean } {
  const docs = new Map<number, DocumentNearest>();
  for (const r of rows) {
    const d = docs.get(r.documentId);
    if (d) d.chunks++;
    else docs.set(r.documentId, { chunkId: r.chunkId, distance: r.distance, chunks: 1 });
  }
  const last = rows[rows.length - 1];
  const belowMin = last !== undefined && 1 - last.distance < minScore;
  if (!(full || docs.size >= top || belowMin || k >= MAX_K)) return { settled: false, more: true };
  for (const [id, d] of docs) {
    const prev = best.get(id);
    if (!prev || d.distance < prev.distance) best.set(id, d);
  }
  return { settled: true, more: !full && !belowMin };
}

/** The best documents, scored by cosine (0..1), at or above minScore, at most `top`. */
export function rankedDocuments(best: ReadonlyMap<number, DocumentNearest>, minScore: number, top: number) {
  return [...best.entries()]
    .map(([documentId, d]) => ({ documentId, ...d, score: Math.max(0, Math.min(1, 1 - d.distance)) }))
    .filter((d) => d.score >= minScore)
    .sort((a, b) => b.score - a.score || a.documentId - b.documentId)
    .slice(0, top);
}

export function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
