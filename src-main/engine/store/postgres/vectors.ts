// Chunk vectors on PostgreSQL with pgvector (store/vectors.ts's spaces and rules): one table per
// space (model + weights digest), `vector(dims)` with an HNSW index for cosine distance, rows
// going with their chunks by foreign key. Searches run through the index with pgvector 0.8's
// iterative scans (set for every connection in postgres/connection.ts), so collection and
// document filters are applied inside the index scan and a filtered search is not cut short
// while matches exist; the relaxed order is put back in order by the outer query.
import pgvector from 'pgvector';
import type { ResolvedFilters } from '../filters.js';
import type { VectorRepository } from '../storage.js';
import type { CollectionVectors, PendingChunk, VectorMatch, VectorRow, VectorSpace } from '../vectors.js';
import type { PostgresDatabase, Queryable } from './connection.js';
import { pgFilterSql } from './filters.js';

interface RawSpace {
  id: number;
  model_id: string;
  weights_sha256: string;
  dims: number;
}

/**
 * A space's table; its HNSW index can come later (`createSpaceIndex`): a bulk copy is faster
 * into a table without one (trove migrate).
 */
export async function createSpaceTable(on: Queryable, spaceId: number, dims: number, withIndex = true): Promise<void> {
  const t = table(spaceId);
  await on.query(`CREATE TABLE ${t} (
    chunk_id bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    collection_id bigint NOT NULL,
    embedding vector(${Math.trunc(dims)}) NOT NULL)`);
  await on.query(`CREATE INDEX ${t}_collection ON ${t} (collection_id)`);
  if (withIndex) await createSpaceIndex(on, spaceId);
}

export async function createSpaceIndex(on: Queryable, spaceId: number): Promise<void> {
  const t = table(spaceId);
  await on.query(`CREATE INDEX IF NOT EXISTS ${t}_hnsw ON ${t} USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)`);
}

const spaceOf = (r: RawSpace): VectorSpace => ({ id: r.id, modelId: r.model_id, weightsSha256: r.weights_sha256, dims: r.dims });
export const table = (spaceId: number) => `vec_space_${Math.trunc(spaceId)}`;
const literal = (v: Float32Array) => pgvector.toSql(Array.from(v))!;

export class PostgresVectors implements VectorRepository {
  constructor(private readonly db: PostgresDatabase) {}

  async space(id: number): Promise<VectorSpace | undefined> {
    const r = await this.db.one<RawSpace>('SELECT * FROM vector_spaces WHERE id = $1', [id]);
    return r && spaceOf(r);
  }

  async ensureSpace(modelId: string, weightsSha256: string, dims: number): Promise<VectorSpace> {
    const found = await this.db.one<RawSpace>('SELECT * FROM vector_spaces WHERE model_id = $1 AND weights_sha256 = $2', [modelId, weightsSha256]);
    if (found) return spaceOf(found);
    return this.db.transaction(async (c) => {
      // two hosts may create the same space at once: the loser reads the winner's
      const r = await c.query<RawSpace>(
        `INSERT INTO vector_spaces (model_id, weights_sha256, dims, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (model_id, weights_sha256) DO NOTHING RETURNING *`,
        [modelId, weightsSha256, Math.trunc(dims), Date.now()],
      );
      if (!r.rows[0]) return spaceOf((await c.query<RawSpace>('SELECT * FROM vector_spaces WHERE model_id = $1 AND weights_sha256 = $2', [modelId, weightsSha256])).rows[0]!);
      await createSpaceTable(c, r.rows[0].id, dims);
      return spaceOf(r.rows[0]);
    });
  }

  async dropUnusedSpaces(): Promise<void> {
    const unused = await this.db.query<{ id: number }>(
      `SELECT s.id FROM vector_spaces s WHERE NOT EXISTS (SELECT 1 FROM collection_vectors v WHERE v.active_space_id = s.id OR v.building_space_id = s.id)`,
    );
    for (const { id } of unused) {
      await this.db.transaction(async (c) => {
        await c.query(`DROP TABLE IF EXISTS ${table(id)}`);
        await c.query('DELETE FROM vector_spaces WHERE id = $1', [id]);
      });
    }
  }

  async collection(collectionId: number): Promise<CollectionVectors> {
    const r = await this.db.one<{ model_choice: string | null; active_space_id: number | null; building_space_id: number | null }>(
      'SELECT model_choice, active_space_id, building_space_id FROM collection_vectors WHERE collection_id = $1',
      [collectionId],
    );
    return { collectionId, modelChoice: r?.model_choice ?? null, activeSpaceId: r?.active_space_id ?? null, buildingSpaceId: r?.building_space_id ?? null };
  }

  private async setColumn(collectionId: number, column: 'model_choice' | 'active_space_id' | 'building_space_id', value: unknown): Promise<void> {
    await this.db.query(
      `INSERT INTO collection_vectors (collection_id, ${column}) VALUES ($1, $2) ON CONFLICT (collection_id) DO UPDATE SET ${column} = excluded.${column}`,
      [collectionId, value],
    );
  }

  setModelChoice(collectionId: number, modelId: string | null): Promise<void> {
    return this.setColumn(collectionId, 'model_choice', modelId);
  }

  setActive(collectionId: number, spaceId: number | null): Promise<void> {
    return this.setColumn(collectionId, 'active_space_id', spaceId);
  }

  setBuilding(collectionId: number, spaceId: number | null): Promise<void> {
    return this.setColumn(collectionId, 'building_space_id', spaceId);
  }

  async swap(collectionId: number): Promise<void> {
    const c = await this.collection(collectionId);
    if (c.buildingSpaceId === null) return;
    await this.db.transaction(async (client) => {
      if (c.activeSpaceId !== null && c.activeSpaceId !== c.buildingSpaceId) {
        await client.query(`DELETE FROM ${table(c.activeSpaceId)} WHERE collection_id = $1`, [collectionId]);
      }
      await client.query('UPDATE collection_vectors SET active_space_id = building_space_id, building_space_id = NULL WHERE collection_id = $1', [collectionId]);
    });
    await this.dropUnusedSpaces();
  }

  /**
   * Up to `limit` chunks without a vector in the space that no other host holds, claimed until
   * `until` in one statement: two hosts inserting the same claim wait on each other, and the
   * loser's conflicting row is taken only when its claim has expired.
   */
  async claimPending(spaceId: number, collectionId: number, limit: number, now: number, until: number, after = 0): Promise<PendingChunk[]> {
    const claimed = await this.db.query<{ chunk_id: number }>(
      `INSERT INTO embedding_claims (space_id, chunk_id, until)
       SELECT $1, c.id, $4 FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE d.collection_id = $2 AND c.id > $6 AND NOT EXISTS (SELECT 1 FROM ${table(spaceId)} v WHERE v.chunk_id = c.id)
          AND NOT EXISTS (SELECT 1 FROM embedding_claims e WHERE e.space_id = $1 AND e.chunk_id = c.id AND e.until > $5)
        ORDER BY c.id LIMIT $3
       ON CONFLICT (space_id, chunk_id) DO UPDATE SET until = excluded.until WHERE embedding_claims.until <= $5
       RETURNING chunk_id`,
      [spaceId, collectionId, limit, until, now, after],
    );
    if (!claimed.length) return [];
    return this.db.query<PendingChunk>(
      `SELECT c.id, c.document_id AS "documentId", c.char_start AS "charStart", c.char_end AS "charEnd", d.kind
         FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY($1::bigint[]) ORDER BY c.id`,
      [claimed.map((r) => r.chunk_id)],
    );
  }

  /** The claims on these chunks are done with (their vectors written, or given back). */
  async releaseClaims(spaceId: number, chunkIds: readonly number[]): Promise<void> {
    if (chunkIds.length) await this.db.query('DELETE FROM embedding_claims WHERE space_id = $1 AND chunk_id = ANY($2::bigint[])', [spaceId, chunkIds]);
  }

  pending(spaceId: number, collectionId: number, limit: number, after = 0): Promise<PendingChunk[]> {
    return this.db.query<PendingChunk>(
      `SELECT c.id, c.document_id AS "documentId", c.char_start AS "charStart", c.char_end AS "charEnd", d.kind
         FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE d.collection_id = $1 AND c.id > $2 AND NOT EXISTS (SELECT 1 FROM ${table(spaceId)} v WHERE v.chunk_id = c.id)
        ORDER BY c.id LIMIT $3`,
      [collectionId, after, limit],
    );
  }

  async pendingCount(spaceId: number, collectionId: number): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      `SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE d.collection_id = $1 AND NOT EXISTS (SELECT 1 FROM ${table(spaceId)} v WHERE v.chunk_id = c.id)`,
      [collectionId],
    );
    return r?.n ?? 0;
  }

  async size(spaceId: number): Promise<number> {
    return (await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM ${table(spaceId)}`))?.n ?? 0;
  }

  async vectorOf(spaceId: number, chunkId: number): Promise<Float32Array | undefined> {
    const r = await this.db.one<{ e: string }>(`SELECT embedding::text AS e FROM ${table(spaceId)} WHERE chunk_id = $1`, [chunkId]);
    return r ? Float32Array.from(pgvector.fromSql(r.e) as number[]) : undefined;
  }

  async documentsPending(documentIds: readonly number[]): Promise<Set<number>> {
    const out = new Set<number>();
    if (!documentIds.length) return out;
    const rows = await this.db.query<{ id: number; space: number | null }>(
      `SELECT d.id, v.active_space_id AS space FROM unnest($1::bigint[]) ids(id) JOIN documents d ON d.id = ids.id
         LEFT JOIN collection_vectors v ON v.collection_id = d.collection_id`,
      [documentIds],
    );
    const bySpace = new Map<number, number[]>();
    for (const r of rows) if (r.space !== null) bySpace.set(r.space, [...(bySpace.get(r.space) ?? []), r.id]);
    for (const [space, ids] of bySpace) {
      const missing = await this.db.query<{ id: number }>(
        `SELECT DISTINCT c.document_id AS id FROM chunks c WHERE c.document_id = ANY($1::bigint[])
            AND NOT EXISTS (SELECT 1 FROM ${table(space)} v WHERE v.chunk_id = c.id)`,
        [ids],
      );
      for (const m of missing) out.add(m.id);
    }
    return out;
  }

  async insert(spaceId: number, collectionId: number, rows: readonly VectorRow[]): Promise<number> {
    if (!rows.length) return 0;
    const ids = rows.map((r) => r.chunkId);
    return this.db.transaction(async (client) => {
      // chunks re-indexed while they were embedded are gone: their vectors are not written
      const r = await client.query(
        `INSERT INTO ${table(spaceId)} (chunk_id, collection_id, embedding)
         SELECT x.id, $2, x.e::vector FROM unnest($1::bigint[], $3::text[]) x(id, e) WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.id = x.id)
         ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding, collection_id = excluded.collection_id`,
        [ids, collectionId, rows.map((r) => literal(r.vector))],
      );
      const hashed = rows.filter((r) => r.textHash);
      if (hashed.length) {
        await client.query('UPDATE chunks SET text_hash = x.h FROM unnest($1::bigint[], $2::text[]) x(id, h) WHERE chunks.id = x.id', [
          hashed.map((r) => r.chunkId),
          hashed.map((r) => r.textHash),
        ]);
      }
      return r.rowCount ?? 0;
    });
  }

  async reusable(spaceId: number, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (!hashes.length) return out;
    const wanted = [...new Set(hashes)];
    // a live chunk's vector first, else one kept from a deleted chunk
    const rows = await this.db.query<{ h: string; e: string }>(
      `SELECT DISTINCT ON (h) h, e FROM (
         SELECT c.text_hash AS h, v.embedding::text AS e, 0 AS o FROM chunks c JOIN ${table(spaceId)} v ON v.chunk_id = c.id WHERE c.text_hash = ANY($2::text[])
         UNION ALL
         SELECT r.text_hash, r.embedding::text, 1 FROM retired_vectors r WHERE r.space_id = $1 AND r.text_hash = ANY($2::text[])
       ) x ORDER BY h, o`,
      [spaceId, wanted],
    );
    for (const r of rows) out.set(r.h, Float32Array.from(pgvector.fromSql(r.e) as number[]));
    return out;
  }

  async pruneRetired(spaceId: number, before: number): Promise<void> {
    await this.db.query('DELETE FROM retired_vectors WHERE space_id = $1 AND retired_at < $2', [spaceId, before]);
  }

  /** The HNSW index is built with the space and kept by PostgreSQL: nothing to prepare. */
  async prepareSearch(): Promise<void> {}

  async nearest(spaceId: number, query: Float32Array, collectionIds: readonly number[], k: number, filters?: ResolvedFilters): Promise<VectorMatch[]> {
    if (!collectionIds.length) return [];
    const f = pgFilterSql({ ...filters, collectionIds: undefined }, 4);
    // the inner query walks the HNSW graph (iteratively, filters inside); the outer one restores exact order
    return this.db.query<VectorMatch>(
      `WITH m AS MATERIALIZED (
         SELECT v.chunk_id, v.embedding <=> $1::vector AS distance FROM ${table(spaceId)} v
           ${f.where ? 'JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id' : ''}
          WHERE v.collection_id = ANY($2::bigint[]) ${f.where ? `AND ${f.where}` : ''}
          ORDER BY v.embedding <=> $1::vector LIMIT $3)
       SELECT m.chunk_id AS "chunkId", c.document_id AS "documentId", m.distance FROM m JOIN chunks c ON c.id = m.chunk_id
        ORDER BY m.distance, m.chunk_id`,
      [literal(query), collectionIds, k, ...f.params],
    );
  }
}

/**
 * Before these documents' chunks are deleted (re-indexed, or their text rewritten): their vectors
 * are kept by text digest in every space (retired_vectors), so the unchanged ones are copied back
 * by the embedding stage instead of being embedded again (store/vectors.ts's reuse).
 */
export async function retireVectors(client: Queryable, documentIds: readonly number[]): Promise<void> {
  if (!documentIds.length) return;
  const spaces = await client.query<{ id: number }>('SELECT id FROM vector_spaces');
  for (const { id } of spaces.rows) {
    await client.query(
      `INSERT INTO retired_vectors (space_id, text_hash, embedding, retired_at)
       SELECT DISTINCT ON (c.text_hash) $1::bigint, c.text_hash, v.embedding, $3::bigint FROM chunks c JOIN ${table(id)} v ON v.chunk_id = c.id
        WHERE c.document_id = ANY($2::bigint[]) AND c.text_hash IS NOT NULL
       ON CONFLICT (space_id, text_hash) DO UPDATE SET embedding = excluded.embedding, retired_at = excluded.retired_at`,
      [id, documentIds, Date.now()],
    );
  }
}
