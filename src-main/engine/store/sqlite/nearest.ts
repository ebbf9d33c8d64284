// SQLite's nearest-chunk search behind the storage interface (VectorRepository.nearest): the k
// nearest chunks of some collections that pass a document filter, exactly, as fast as this
// backend allows. Without a filter: the space's usearch ANN index when it is ready and the
// collections hold enough of it for over-fetching to work (ann-spaces.ts), else sqlite-vec's
// partitioned kNN. With a filter: the kNN first and the filter on what it returns, growing k
// while too few survive, and finally the exact scan of the chunks the filter keeps — so a
// filtered search never comes back short while matches exist. sqlite-vec's scans go through the
// storage's reader threads when the engine's thread is busy (a kNN compares every vector of the
// collections: milliseconds each, which a loaded host's one engine thread cannot spare).
import type { Db } from '../database.js';
import type { RowReader } from '../row-reader.js';
import type { VectorMatch, VectorSpace, VectorStore } from '../vectors.js';
import type { AnnSpaces } from './ann-spaces.js';

/** The most nearest chunks one kNN asks sqlite-vec for before a filtered search scans exactly. */
const MAX_FILTERED_K = 4096;
/** Below this share of the space, sqlite-vec's partitioned kNN is exact and fast: no ANN. */
const MIN_ANN_SHARE = 0.05;
const SHARE_TTL_MS = 10_000;

export class SqliteNearest {
  private readonly shareCache = new Map<string, { share: number; at: number }>();
  private readonly ownersStmt;
  private readonly chunkCountStmt;

  constructor(
    db: Db,
    private readonly vectors: VectorStore,
    private readonly ann: AnnSpaces,
    private readonly read: RowReader,
  ) {
    this.ownersStmt = db.prepare<[string], { id: number; documentId: number; collectionId: number }>(
      `SELECT c.id, c.document_id AS documentId, d.collection_id AS collectionId
         FROM json_each(?) j JOIN chunks c ON c.id = j.value JOIN documents d ON d.id = c.document_id`,
    );
    this.chunkCountStmt = db.prepare<[string], { n: number }>(
      'SELECT count(*) AS n FROM json_each(?) j JOIN documents d ON d.collection_id = j.value JOIN chunks c ON c.document_id = d.id',
    );
  }

  async nearest(space: VectorSpace, query: Float32Array, collectionIds: readonly number[], k: number, filter?: { where: string; params: unknown[] }): Promise<VectorMatch[]> {
    if (!collectionIds.length) return [];
    if (!filter?.where) return this.approximate(space, query, collectionIds, k) ?? this.vectors.nearest(space.id, query, collectionIds, k, undefined, this.read);
    for (let fetch = k; ; fetch = Math.min(MAX_FILTERED_K, fetch * 4)) {
      const near = await this.vectors.nearestThenFilter(space.id, query, collectionIds, fetch, filter, this.read);
      if (near.rows.length >= k || near.scanned < fetch) return near.rows.slice(0, k);
      if (fetch >= MAX_FILTERED_K) break;
    }
    // a filter that keeps little of the space: the exact scan of what it keeps
    return this.vectors.nearest(space.id, query, collectionIds, k, filter, this.read);
  }

  /**
   * k nearest chunks of these collections from the space's ANN index, or null (use exact
   * search) when there is no index yet, the collections are too small a share of it for
   * over-fetching to work, or too few candidates survived the collection check.
   */
  private approximate(space: VectorSpace, query: Float32Array, collectionIds: readonly number[], k: number): VectorMatch[] | null {
    const index = this.ann.get(space);
    if (!index || !index.size) return null;
    const share = this.share(space.id, collectionIds, index.size);
    if (share < MIN_ANN_SHARE) return null;
    const fetch = Math.min(index.size, Math.ceil((k * 2) / share));
    const matches = index.search(query, fetch);
    if (!matches.length) return [];
    const wanted = new Set(collectionIds);
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
  private share(spaceId: number, collectionIds: readonly number[], size: number): number {
    const key = `${spaceId}:${collectionIds.join(',')}`;
    const hit = this.shareCache.get(key);
    if (hit && Date.now() - hit.at < SHARE_TTL_MS) return hit.share;
    const n = this.chunkCountStmt.get(JSON.stringify(collectionIds))!.n;
    const share = Math.min(1, n / size);
    this.shareCache.set(key, { share, at: Date.now() });
    return share;
  }
}
