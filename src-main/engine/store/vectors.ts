// Chunk vectors in sqlite-vec. A "vector space" is one model at one weights digest; each space
// has its own vec0 table keyed by chunk id, partitioned by collection so collection filters
// run inside the kNN query. collection_vectors says which space serves each collection's
// searches (active) and which one is being filled after a model switch (building).
import type { Statement } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { Db } from './database.js';

export interface VectorSpace {
  id: number;
  modelId: string;
  weightsSha256: string;
  dims: number;
}

export interface CollectionVectors {
  collectionId: number;
  modelChoice: string | null;
  activeSpaceId: number | null;
  buildingSpaceId: number | null;
}

export interface PendingChunk {
  id: number;
  documentId: number;
  charStart: number;
  charEnd: number;
}

export interface VectorMatch {
  chunkId: number;
  documentId: number;
  distance: number;
}

interface RawSpace {
  id: number;
  model_id: string;
  weights_sha256: string;
  dims: number;
}

const table = (spaceId: number) => `vec_space_${Math.trunc(spaceId)}`;
const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** Told about every change, so derived indexes (ANN, search/ann-spaces.ts) stay in step. */
export interface VectorChangeListener {
  inserted(spaceId: number, rows: readonly { chunkId: number; vector: Float32Array }[]): void;
  deleted(spaceId: number, chunkIds: readonly number[]): void;
  dropped(spaceId: number): void;
}

export class VectorStore {
  private listener: VectorChangeListener | null = null;

  private spacesOfStmt: Statement<[string], { id: number; space: number | null }> | undefined;
  private readonly missingStmts = new Map<number, Statement<[number], { n: number }>>();

  constructor(private readonly db: Db) {
    sqliteVec.load(db);
  }

  setListener(listener: VectorChangeListener | null): void {
    this.listener = listener;
  }

  /** Deletes rows by a chunk-id query, telling the listener which went. */
  private deleteWhere(spaceId: number, idsSql: string, ...params: unknown[]): void {
    const ids = this.db.prepare<unknown[], { id: number }>(`SELECT rowid AS id FROM ${table(spaceId)}_rowids WHERE rowid IN (${idsSql})`).all(...params).map((r) => r.id);
    if (!ids.length) return;
    const del = this.db.prepare(`DELETE FROM ${table(spaceId)} WHERE chunk_id = ?`);
    for (const id of ids) del.run(BigInt(id));
    this.listener?.deleted(spaceId, ids);
  }

  // ---- spaces --------------------------------------------------------------------------

  space(id: number): VectorSpace | undefined {
    const r = this.db.prepare<[number], RawSpace>('SELECT * FROM vector_spaces WHERE id = ?').get(id);
    return r && { id: r.id, modelId: r.model_id, weightsSha256: r.weights_sha256, dims: r.dims };
  }

  /** The space of this model and weights digest, created (with its vec0 table) on first use. */
  ensureSpace(modelId: string, weightsSha256: string, dims: number): VectorSpace {
    const found = this.db
      .prepare<[string, string], RawSpace>('SELECT * FROM vector_spaces WHERE model_id = ? AND weights_sha256 = ?')
      .get(modelId, weightsSha256);
    if (found) return { id: found.id, modelId, weightsSha256, dims: found.dims };
    return this.db.transaction(() => {
      const { lastInsertRowid } = this.db
        .prepare('INSERT INTO vector_spaces (model_id, weights_sha256, dims, created_at) VALUES (?, ?, ?, ?)')
        .run(modelId, weightsSha256, dims, Date.now());
      const id = Number(lastInsertRowid);
      this.db.exec(
        `CREATE VIRTUAL TABLE ${table(id)} USING vec0(chunk_id INTEGER PRIMARY KEY, collection_id INTEGER PARTITION KEY, embedding float[${Math.trunc(dims)}] distance_metric=cosine)`,
      );
      return { id, modelId, weightsSha256, dims };
    })();
  }

  private spaceIds(): number[] {
    return this.db.prepare<[], { id: number }>('SELECT id FROM vector_spaces').all().map((r) => r.id);
  }

  /** Drops spaces no collection uses any more (after a switch completes). */
  dropUnusedSpaces(): void {
    const used = new Set(
      this.db
        .prepare<[], { s: number | null }>('SELECT active_space_id AS s FROM collection_vectors UNION SELECT building_space_id FROM collection_vectors')
        .all()
        .map((r) => r.s),
    );
    for (const id of this.spaceIds()) {
      if (used.has(id)) continue;
      this.db.transaction(() => {
        this.db.exec(`DROP TABLE IF EXISTS ${table(id)}`);
        this.db.prepare('DELETE FROM vector_spaces WHERE id = ?').run(id);
      })();
      this.listener?.dropped(id);
    }
  }

  // ---- per collection ------------------------------------------------------------------

  collection(collectionId: number): CollectionVectors {
    const r = this.db
      .prepare<[number], { model_choice: string | null; active_space_id: number | null; building_space_id: number | null }>(
        'SELECT model_choice, active_space_id, building_space_id FROM collection_vectors WHERE collection_id = ?',
      )
      .get(collectionId);
    return { collectionId, modelChoice: r?.model_choice ?? null, activeSpaceId: r?.active_space_id ?? null, buildingSpaceId: r?.building_space_id ?? null };
  }

  private upsertCollection(c: CollectionVectors): void {
    this.db
      .prepare(
        `INSERT INTO collection_vectors (collection_id, model_choice, active_space_id, building_space_id) VALUES (?, ?, ?, ?)
         ON CONFLICT (collection_id) DO UPDATE SET model_choice = excluded.model_choice,
           active_space_id = excluded.active_space_id, building_space_id = excluded.building_space_id`,
      )
      .run(c.collectionId, c.modelChoice, c.activeSpaceId, c.buildingSpaceId);
  }

  setModelChoice(collectionId: number, modelId: string | null): void {
    this.upsertCollection({ ...this.collection(collectionId), modelChoice: modelId });
  }

  setActive(collectionId: number, spaceId: number | null): void {
    this.upsertCollection({ ...this.collection(collectionId), activeSpaceId: spaceId });
  }

  setBuilding(collectionId: number, spaceId: number | null): void {
    this.upsertCollection({ ...this.collection(collectionId), buildingSpaceId: spaceId });
  }

  /** Makes the building space active and forgets the old one's vectors of this collection. */
  swap(collectionId: number): void {
    const c = this.collection(collectionId);
    if (c.buildingSpaceId === null) return;
    this.db.transaction(() => {
      if (c.activeSpaceId !== null && c.activeSpaceId !== c.buildingSpaceId) {
        this.deleteWhere(c.activeSpaceId, 'SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.collection_id = ?', collectionId);
      }
      this.upsertCollection({ ...c, activeSpaceId: c.buildingSpaceId, buildingSpaceId: null });
    })();
    this.dropUnusedSpaces();
  }

  // ---- vectors -------------------------------------------------------------------------

  /** Chunks of a collection that have no vector in this space yet, oldest first. */
  pending(spaceId: number, collectionId: number, limit: number): PendingChunk[] {
    return this.db
      .prepare<[number, number], PendingChunk>(
        `SELECT c.id, c.document_id AS documentId, c.char_start AS charStart, c.char_end AS charEnd
           FROM chunks c JOIN documents d ON d.id = c.document_id
          WHERE d.collection_id = ? AND NOT EXISTS (SELECT 1 FROM ${table(spaceId)}_rowids r WHERE r.rowid = c.id)
          ORDER BY c.id LIMIT ?`,
      )
      .all(collectionId, limit);
  }

  pendingCount(spaceId: number, collectionId: number): number {
    return this.db
      .prepare<[number], { n: number }>(
        `SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id
          WHERE d.collection_id = ? AND NOT EXISTS (SELECT 1 FROM ${table(spaceId)}_rowids r WHERE r.rowid = c.id)`,
      )
      .get(collectionId)!.n;
  }

  count(spaceId: number, collectionId: number): number {
    return this.db.prepare<[bigint], { n: number }>(`SELECT count(*) AS n FROM ${table(spaceId)} WHERE collection_id = ?`).get(BigInt(collectionId))!.n;
  }

  /** Documents among these with chunks not yet embedded in their collection's active space (every keyword search asks). */
  documentsPending(documentIds: readonly number[]): Set<number> {
    const out = new Set<number>();
    if (!documentIds.length) return out;
    this.spacesOfStmt ??= this.db.prepare<[string], { id: number; space: number | null }>(
      `SELECT d.id, v.active_space_id AS space FROM json_each(?) j JOIN documents d ON d.id = j.value
         LEFT JOIN collection_vectors v ON v.collection_id = d.collection_id`,
    );
    for (const r of this.spacesOfStmt.all(JSON.stringify(documentIds))) {
      if (r.space === null) continue; // embedding has not started for this collection (or no model): nothing is waiting
      let missing = this.missingStmts.get(r.space);
      if (!missing) {
        missing = this.db.prepare<[number], { n: number }>(
          `SELECT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = ? AND NOT EXISTS (SELECT 1 FROM ${table(r.space)}_rowids x WHERE x.rowid = c.id)) AS n`,
        );
        this.missingStmts.set(r.space, missing);
      }
      if (missing.get(r.id)!.n) out.add(r.id);
    }
    return out;
  }


  /** Writes vectors of chunks that still exist (a chunk may have been re-indexed while it was embedded). */
  insert(spaceId: number, collectionId: number, rows: readonly { chunkId: number; vector: Float32Array }[]): number {
    const exists = this.db.prepare<[number], { id: number }>('SELECT id FROM chunks WHERE id = ?');
    const del = this.db.prepare(`DELETE FROM ${table(spaceId)} WHERE chunk_id = ?`);
    const ins = this.db.prepare(`INSERT INTO ${table(spaceId)} (chunk_id, collection_id, embedding) VALUES (?, ?, ?)`);
    let written = 0;
    this.db.transaction(() => {
      for (const r of rows) {
        if (!exists.get(r.chunkId)) continue;
        del.run(BigInt(r.chunkId));
        ins.run(BigInt(r.chunkId), BigInt(collectionId), blob(r.vector)); // vec0 wants integers as BigInt
        written++;
      }
    })();
    this.listener?.inserted(spaceId, rows.filter((r) => exists.get(r.chunkId)));
    return written;
  }

  /** Called before a document's chunks are deleted (ChunkStore delete hook). */
  deleteForDocument(documentId: number): void {
    for (const id of this.spaceIds()) this.deleteWhere(id, 'SELECT id FROM chunks WHERE document_id = ?', documentId);
  }

  deleteForCollection(collectionId: number): void {
    for (const id of this.spaceIds()) {
      this.deleteWhere(id, 'SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.collection_id = ?', collectionId);
    }
  }

  /**
   * Nearest chunks to `query` within these collections. With only collection filters this is
   * sqlite-vec's kNN over the collections' partitions; with document filters (`where` over
   * documents d) it is an exact scan of the matching chunks, so a filtered search never comes
   * back empty while matches exist.
   */
  nearest(spaceId: number, query: Float32Array, collectionIds: readonly number[], k: number, docFilter?: { where: string; params: unknown[] }): VectorMatch[] {
    if (!collectionIds.length) return [];
    const inList = collectionIds.map(() => '?').join(',');
    const ids = collectionIds.map((c) => BigInt(c));
    if (!docFilter?.where) {
      return this.db
        .prepare<unknown[], VectorMatch>(
          `SELECT m.chunk_id AS chunkId, c.document_id AS documentId, m.distance FROM
             (SELECT chunk_id, distance FROM ${table(spaceId)} WHERE embedding MATCH ? AND k = ? AND collection_id IN (${inList})) m
             JOIN chunks c ON c.id = m.chunk_id ORDER BY m.distance`,
        )
        .all(blob(query), k, ...ids);
    }
    return this.db
      .prepare<unknown[], VectorMatch>(
        `SELECT v.chunk_id AS chunkId, c.document_id AS documentId, vec_distance_cosine(v.embedding, ?) AS distance
           FROM ${table(spaceId)} v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
          WHERE v.collection_id IN (${inList}) AND ${docFilter.where} ORDER BY distance LIMIT ?`,
      )
      .all(blob(query), ...ids, ...docFilter.params, k);
  }
}
