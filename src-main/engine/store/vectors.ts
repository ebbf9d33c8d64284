// Chunk vectors in sqlite-vec. A "vector space" is one model at one weights digest; each space
// has its own vec0 table keyed by chunk id, partitioned by collection so collection filters
// run inside the kNN query. collection_vectors says which space serves each collection's
// searches (active) and which one is being filled after a model switch (building).
// This module owns those tables: their names, their statements (prepared once per space) and
// every write; search/ and the ANN indexes read through it.
// Embedding less: a vector is written with the digest of the text it was made from
// (chunks.text_hash), so the stage can copy it to another chunk of the same text instead of
// running the model (`reusable`); a document's vectors are kept by that digest when its chunks are
// deleted (retired_vectors), so its re-indexed, unchanged chunks get theirs back the same way.
import type { Statement } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { Db } from './database.js';
import { readHere, type RowReader } from './row-reader.js';

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
  /** Its document's kind (the embedding stage reads a Markdown chunk as prose: text/markdown-prose.ts). */
  kind: string;
}

/** A vector to write, with the digest of the text it was made from (store/vectors.ts's reuse). */
export interface VectorRow {
  chunkId: number;
  vector: Float32Array;
  textHash?: string;
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

/** The vec0 table of a space (its `_rowids` shadow table lists the chunk ids it holds). */
function vectorTable(spaceId: number): string {
  return `vec_space_${Math.trunc(spaceId)}`;
}

const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** Told about every change, so derived indexes (ANN, store/sqlite/ann-spaces.ts) stay in step. */
export interface VectorChangeListener {
  inserted(spaceId: number, rows: readonly { chunkId: number; vector: Float32Array }[]): void;
  deleted(spaceId: number, chunkIds: readonly number[]): void;
  dropped(spaceId: number): void;
}

/** The statements of one space's table, prepared on first use and dropped with the space. */
class SpaceStatements {
  readonly pending: Statement<[number, number, number], PendingChunk>;
  readonly pendingCount: Statement<[number], { n: number }>;
  readonly countAll: Statement<[], { n: number }>;
  readonly missingForDocument: Statement<[number], { n: number }>;
  readonly keysAfter: Statement<[number, number], { id: number }>;
  readonly vectorOf: Statement<[bigint], { embedding: Buffer }>;
  readonly del: Statement<[bigint]>;
  readonly ins: Statement<[bigint, bigint, Buffer]>;
  readonly idsOfDocument: Statement<[number], { id: number }>;
  readonly idsOfCollection: Statement<[number], { id: number }>;
  readonly embeddedWithText: Statement<[string], { id: number }>;
  readonly hashedOfDocument: Statement<[number], { id: number; h: string }>;
  /** kNN and filtered scans, by the number of collections and the filter's SQL. */
  readonly searches = new Map<string, Statement<unknown[], VectorMatch>>();

  constructor(db: Db, readonly table: string) {
    // CROSS JOIN keeps chunks the outer loop, walked in id order from the cursor: the planner would
    // rather take every chunk of the collection by its documents and sort them, on every claim
    this.pending = db.prepare(
      `SELECT c.id, c.document_id AS documentId, c.char_start AS charStart, c.char_end AS charEnd, d.kind
         FROM chunks c CROSS JOIN documents d ON d.id = c.document_id
        WHERE d.collection_id = ? AND c.id > ? AND NOT EXISTS (SELECT 1 FROM ${table}_rowids r WHERE r.rowid = c.id)
        ORDER BY c.id LIMIT ?`,
    );
    this.pendingCount = db.prepare(
      `SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE d.collection_id = ? AND NOT EXISTS (SELECT 1 FROM ${table}_rowids r WHERE r.rowid = c.id)`,
    );
    this.countAll = db.prepare(`SELECT count(*) AS n FROM ${table}_rowids`);
    this.missingForDocument = db.prepare(
      `SELECT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = ? AND NOT EXISTS (SELECT 1 FROM ${table}_rowids x WHERE x.rowid = c.id)) AS n`,
    );
    this.keysAfter = db.prepare(`SELECT rowid AS id FROM ${table}_rowids WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    this.vectorOf = db.prepare(`SELECT embedding FROM ${table} WHERE chunk_id = ?`);
    this.del = db.prepare(`DELETE FROM ${table} WHERE chunk_id = ?`);
    this.ins = db.prepare(`INSERT INTO ${table} (chunk_id, collection_id, embedding) VALUES (?, ?, ?)`);
    this.idsOfDocument = db.prepare(
      `SELECT r.rowid AS id FROM chunks c JOIN ${table}_rowids r ON r.rowid = c.id WHERE c.document_id = ?`,
    );
    this.embeddedWithText = db.prepare(
      `SELECT c.id FROM chunks c WHERE c.text_hash = ? AND EXISTS (SELECT 1 FROM ${table}_rowids r WHERE r.rowid = c.id) LIMIT 1`,
    );
    this.hashedOfDocument = db.prepare(
      `SELECT r.rowid AS id, c.text_hash AS h FROM chunks c JOIN ${table}_rowids r ON r.rowid = c.id WHERE c.document_id = ? AND c.text_hash IS NOT NULL`,
    );
    this.idsOfCollection = db.prepare(
      `SELECT r.rowid AS id FROM chunks c JOIN documents d ON d.id = c.document_id JOIN ${table}_rowids r ON r.rowid = c.id
        WHERE d.collection_id = ?`,
    );
  }
}

export class VectorStore {
  private listener: VectorChangeListener | null = null;
  private readonly perSpace = new Map<number, SpaceStatements>();
  private readonly spaceStmt;
  private readonly spaceByModelStmt;
  private readonly insertSpaceStmt;
  private readonly deleteSpaceStmt;
  private readonly spaceIdsStmt;
  private readonly usedSpacesStmt;
  private readonly collectionStmt;
  private readonly upsertCollectionStmt;
  private readonly spacesOfDocumentsStmt;
  private readonly chunkExistsStmt;
  private readonly setHashStmt;
  private readonly retiredStmt;
  private readonly retireStmt;
  private readonly pruneRetiredStmt;
  private readonly dropRetiredStmt;

  constructor(private readonly db: Db) {
    sqliteVec.load(db);
    this.spaceStmt = db.prepare<[number], RawSpace>('SELECT * FROM vector_spaces WHERE id = ?');
    this.spaceByModelStmt = db.prepare<[string, string], RawSpace>('SELECT * FROM vector_spaces WHERE model_id = ? AND weights_sha256 = ?');
    this.insertSpaceStmt = db.prepare('INSERT INTO vector_spaces (model_id, weights_sha256, dims, created_at) VALUES (?, ?, ?, ?)');
    this.deleteSpaceStmt = db.prepare('DELETE FROM vector_spaces WHERE id = ?');
    this.spaceIdsStmt = db.prepare<[], { id: number }>('SELECT id FROM vector_spaces');
    this.usedSpacesStmt = db.prepare<[], { s: number | null }>(
      'SELECT active_space_id AS s FROM collection_vectors UNION SELECT building_space_id FROM collection_vectors',
    );
    this.collectionStmt = db.prepare<[number], { model_choice: string | null; active_space_id: number | null; building_space_id: number | null }>(
      'SELECT model_choice, active_space_id, building_space_id FROM collection_vectors WHERE collection_id = ?',
    );
    this.upsertCollectionStmt = db.prepare(
      `INSERT INTO collection_vectors (collection_id, model_choice, active_space_id, building_space_id) VALUES (?, ?, ?, ?)
       ON CONFLICT (collection_id) DO UPDATE SET model_choice = excluded.model_choice,
         active_space_id = excluded.active_space_id, building_space_id = excluded.building_space_id`,
    );
    this.spacesOfDocumentsStmt = db.prepare<[string], { id: number; space: number | null }>(
      `SELECT d.id, v.active_space_id AS space FROM json_each(?) j JOIN documents d ON d.id = j.value
         LEFT JOIN collection_vectors v ON v.collection_id = d.collection_id`,
    );
    this.chunkExistsStmt = db.prepare<[number], { id: number }>('SELECT id FROM chunks WHERE id = ?');
    this.setHashStmt = db.prepare<[string, number]>('UPDATE chunks SET text_hash = ? WHERE id = ?');
    this.retiredStmt = db.prepare<[number, string], { embedding: Buffer }>('SELECT embedding FROM retired_vectors WHERE space_id = ? AND text_hash = ?');
    this.retireStmt = db.prepare<[number, string, Buffer, number]>('INSERT OR REPLACE INTO retired_vectors (space_id, text_hash, embedding, retired_at) VALUES (?, ?, ?, ?)');
    this.pruneRetiredStmt = db.prepare<[number, number]>('DELETE FROM retired_vectors WHERE space_id = ? AND retired_at < ?');
    this.dropRetiredStmt = db.prepare<[number]>('DELETE FROM retired_vectors WHERE space_id = ?');
  }

  setListener(listener: VectorChangeListener | null): void {
    this.listener = listener;
  }

  private statements(spaceId: number): SpaceStatements {
    let s = this.perSpace.get(spaceId);
    if (!s) this.perSpace.set(spaceId, (s = new SpaceStatements(this.db, vectorTable(spaceId))));
    return s;
  }

  /** Deletes the rows these ids name, telling the listener which went. */
  private deleteRows(spaceId: number, ids: readonly number[]): void {
    if (!ids.length) return;
    const del = this.statements(spaceId).del;
    for (const id of ids) del.run(BigInt(id));
    this.listener?.deleted(spaceId, ids);
  }

  // ---- spaces --------------------------------------------------------------------------

  space(id: number): VectorSpace | undefined {
    const r = this.spaceStmt.get(id);
    return r && { id: r.id, modelId: r.model_id, weightsSha256: r.weights_sha256, dims: r.dims };
  }

  /** The space of this model and weights digest, created (with its vec0 table) on first use. */
  ensureSpace(modelId: string, weightsSha256: string, dims: number): VectorSpace {
    const found = this.spaceByModelStmt.get(modelId, weightsSha256);
    if (found) return { id: found.id, modelId, weightsSha256, dims: found.dims };
    return this.db.transaction(() => {
      const id = Number(this.insertSpaceStmt.run(modelId, weightsSha256, dims, Date.now()).lastInsertRowid);
      this.db.exec(
        `CREATE VIRTUAL TABLE ${vectorTable(id)} USING vec0(chunk_id INTEGER PRIMARY KEY, collection_id INTEGER PARTITION KEY, embedding float[${Math.trunc(dims)}] distance_metric=cosine)`,
      );
      return { id, modelId, weightsSha256, dims };
    })();
  }

  private spaceIds(): number[] {
    return this.spaceIdsStmt.all().map((r) => r.id);
  }

  /** Drops spaces no collection uses any more (after a switch completes). */
  dropUnusedSpaces(): void {
    const used = new Set(this.usedSpacesStmt.all().map((r) => r.s));
    for (const id of this.spaceIds()) {
      if (used.has(id)) continue;
      this.perSpace.delete(id); // its statements die with the table
      this.db.transaction(() => {
        this.db.exec(`DROP TABLE IF EXISTS ${vectorTable(id)}`);
        this.dropRetiredStmt.run(id);
        this.deleteSpaceStmt.run(id);
      })();
      this.listener?.dropped(id);
    }
  }

  // ---- per collection ------------------------------------------------------------------

  collection(collectionId: number): CollectionVectors {
    const r = this.collectionStmt.get(collectionId);
    return { collectionId, modelChoice: r?.model_choice ?? null, activeSpaceId: r?.active_space_id ?? null, buildingSpaceId: r?.building_space_id ?? null };
  }

  private upsertCollection(c: CollectionVectors): void {
    this.upsertCollectionStmt.run(c.collectionId, c.modelChoice, c.activeSpaceId, c.buildingSpaceId);
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
        const old = c.activeSpaceId;
        this.deleteRows(old, this.statements(old).idsOfCollection.all(collectionId).map((r) => r.id));
      }
      this.upsertCollection({ ...c, activeSpaceId: c.buildingSpaceId, buildingSpaceId: null });
    })();
    this.dropUnusedSpaces();
  }

  // ---- vectors -------------------------------------------------------------------------

  /**
   * Chunks of a collection that have no vector in this space yet, oldest first, after chunk id
   * `after`: a caller walking the list passes its last id, so a large, mostly embedded collection
   * is not scanned from its start for every batch.
   */
  pending(spaceId: number, collectionId: number, limit: number, after = 0): PendingChunk[] {
    return this.statements(spaceId).pending.all(collectionId, after, limit);
  }

  /** Chunks of the collection without a vector in the space: a walk of its chunks, so `read` may take it off the calling thread. */
  async pendingCount(spaceId: number, collectionId: number, read: RowReader = readHere): Promise<number> {
    return (await read<{ n: number }[]>(this.statements(spaceId).pendingCount, [collectionId]))[0]!.n;
  }

  /** Every vector in this space. */
  size(spaceId: number): number {
    return this.statements(spaceId).countAll.get()!.n;
  }

  /** Chunk ids held by this space after `after`, in order (pages a full walk without a statement open across yields). */
  keysAfter(spaceId: number, after: number, limit: number): number[] {
    return this.statements(spaceId).keysAfter.all(after, limit).map((r) => r.id);
  }

  /** One chunk's vector in this space, or undefined. */
  vectorOf(spaceId: number, chunkId: number): Float32Array | undefined {
    const b = this.statements(spaceId).vectorOf.get(BigInt(chunkId))?.embedding;
    return b && new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }

  /** Documents among these with chunks not yet embedded in their collection's active space (every keyword search asks). */
  documentsPending(documentIds: readonly number[]): Set<number> {
    const out = new Set<number>();
    if (!documentIds.length) return out;
    for (const r of this.spacesOfDocumentsStmt.all(JSON.stringify(documentIds))) {
      if (r.space === null) continue; // embedding has not started for this collection (or no model): nothing is waiting
      if (this.statements(r.space).missingForDocument.get(r.id)!.n) out.add(r.id);
    }
    return out;
  }

  /** Writes vectors of chunks that still exist (a chunk may have been re-indexed while it was embedded), with their text digests. */
  insert(spaceId: number, collectionId: number, rows: readonly VectorRow[]): number {
    const { del, ins } = this.statements(spaceId);
    const written: VectorRow[] = [];
    this.db.transaction(() => {
      for (const r of rows) {
        if (!this.chunkExistsStmt.get(r.chunkId)) continue;
        del.run(BigInt(r.chunkId));
        ins.run(BigInt(r.chunkId), BigInt(collectionId), blob(r.vector)); // vec0 wants integers as BigInt
        if (r.textHash) this.setHashStmt.run(r.textHash, r.chunkId);
        written.push(r);
      }
    })();
    this.listener?.inserted(spaceId, written);
    return written.length;
  }

  /**
   * Vectors this space already has for these text digests: a chunk's of the same text, or one kept
   * from a deleted chunk (retired_vectors). Digests without one are left out.
   */
  reusable(spaceId: number, hashes: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const s = this.statements(spaceId);
    for (const h of new Set(hashes)) {
      const live = s.embeddedWithText.get(h);
      const v = live ? this.vectorOf(spaceId, live.id) : undefined;
      const b = v ? undefined : this.retiredStmt.get(spaceId, h)?.embedding;
      if (v) out.set(h, v);
      else if (b) out.set(h, new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
    }
    return out;
  }

  /** Forgets the kept vectors of deleted chunks retired before `before` (ms). */
  pruneRetired(spaceId: number, before: number): void {
    this.pruneRetiredStmt.run(spaceId, before);
  }

  /** Called before a document's chunks are deleted (ChunkStore delete hook): their vectors are kept by text digest, then dropped. */
  deleteForDocument(documentId: number): void {
    const now = Date.now();
    for (const id of this.spaceIds()) {
      const s = this.statements(id);
      for (const r of s.hashedOfDocument.all(documentId)) {
        const b = s.vectorOf.get(BigInt(r.id))?.embedding;
        if (b) this.retireStmt.run(id, r.h, b, now);
      }
      this.deleteRows(id, s.idsOfDocument.all(documentId).map((r) => r.id));
    }
  }

  deleteForCollection(collectionId: number): void {
    for (const id of this.spaceIds()) this.deleteRows(id, this.statements(id).idsOfCollection.all(collectionId).map((r) => r.id));
  }

  /**
   * Nearest chunks to `query` within these collections. With only collection filters this is
   * sqlite-vec's kNN over the collections' partitions; with document filters (`where` over
   * documents d) it is an exact scan of the matching chunks, so a filtered search never comes
   * back empty while matches exist. `read` runs the statement (a reader thread, or here).
   */
  nearest(
    spaceId: number,
    query: Float32Array,
    collectionIds: readonly number[],
    k: number,
    docFilter?: { where: string; params: unknown[] },
    read: RowReader = readHere,
  ): Promise<VectorMatch[]> {
    if (!collectionIds.length) return Promise.resolve([]);
    const ids = collectionIds.map((c) => BigInt(c));
    const stmt = this.searchStatement(spaceId, collectionIds.length, docFilter?.where || null);
    return read<VectorMatch[]>(stmt, docFilter?.where ? [blob(query), ...ids, ...docFilter.params, k] : [blob(query), k, ...ids]);
  }

  /**
   * The k nearest chunks of these collections (sqlite-vec's kNN), then the document filter on
   * those only: `scanned` is how many the kNN gave before filtering (fewer than k: there are no
   * more). Far cheaper than the exact filtered scan when the filter keeps much of the space, which
   * the caller tries first, growing k, before falling back to `nearest` with the filter.
   */
  async nearestThenFilter(
    spaceId: number,
    query: Float32Array,
    collectionIds: readonly number[],
    k: number,
    docFilter: { where: string; params: unknown[] },
    read: RowReader = readHere,
  ): Promise<{ rows: VectorMatch[]; scanned: number }> {
    if (!collectionIds.length) return { rows: [], scanned: 0 };
    const s = this.statements(spaceId);
    const key = `post|${collectionIds.length}|${docFilter.where}`;
    let stmt = s.searches.get(key) as Statement<unknown[], VectorMatch & { keep: number }> | undefined;
    if (!stmt) {
      const inList = collectionIds.map(() => '?').join(',');
      stmt = this.db.prepare<unknown[], VectorMatch & { keep: number }>(
        `SELECT m.chunk_id AS chunkId, c.document_id AS documentId, m.distance, CASE WHEN ${docFilter.where} THEN 1 ELSE 0 END AS keep FROM
           (SELECT chunk_id, distance FROM ${s.table} WHERE embedding MATCH ? AND k = ? AND collection_id IN (${inList})) m
           JOIN chunks c ON c.id = m.chunk_id JOIN documents d ON d.id = c.document_id ORDER BY m.distance`,
      );
      if (s.searches.size > 64) s.searches.clear();
      s.searches.set(key, stmt as unknown as Statement<unknown[], VectorMatch>);
    }
    const all = await read<(VectorMatch & { keep: number })[]>(stmt, [...docFilter.params, blob(query), k, ...collectionIds.map((c) => BigInt(c))]);
    return { rows: all.filter((r) => r.keep === 1).map(({ chunkId, documentId, distance }) => ({ chunkId, documentId, distance })), scanned: all.length };
  }

  private searchStatement(spaceId: number, collections: number, where: string | null): Statement<unknown[], VectorMatch> {
    const s = this.statements(spaceId);
    const key = `${collections}|${where ?? ''}`;
    let stmt = s.searches.get(key);
    if (stmt) return stmt;
    const inList = Array.from({ length: collections }, () => '?').join(',');
    stmt = this.db.prepare<unknown[], VectorMatch>(
      where
        ? `SELECT v.chunk_id AS chunkId, c.document_id AS documentId, vec_distance_cosine(v.embedding, ?) AS distance
             FROM ${s.table} v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
            WHERE v.collection_id IN (${inList}) AND ${where} ORDER BY distance LIMIT ?`
        : `SELECT m.chunk_id AS chunkId, c.document_id AS documentId, m.distance FROM
             (SELECT chunk_id, distance FROM ${s.table} WHERE embedding MATCH ? AND k = ? AND collection_id IN (${inList})) m
             JOIN chunks c ON c.id = m.chunk_id ORDER BY m.distance`,
    );
    if (s.searches.size > 64) s.searches.clear(); // filters are few in practice; never grow without bound
    s.searches.set(key, stmt);
    return stmt;
  }
}
