// The documents and content_blocks tables: one row per file we have seen, and its parsed text in
// compressed blocks (content-blocks.ts).
import { randomBytes } from 'node:crypto';
import { packText, packWhole, type PackedBlockRow } from './content-blocks.js';
import type { Db } from './database.js';

export type DocumentStatus = 'indexed' | 'skipped' | 'failed';

export interface DocumentRow {
  id: number;
  collectionId: number;
  path: string;
  docid: string;
  title: string;
  kind: string;
  size: number;
  mtimeMs: number;
  hash: string | null;
  indexedAt: number;
  status: DocumentStatus;
  error: string | null;
  /** Indexed, but not all of it, and why (see ingest/prepare.ts). */
  warning: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  /** The file's row when this document lives inside a file (an e-mail's attachment), else null. */
  parentId: number | null;
}

export interface RawDocument {
  id: number;
  collection_id: number;
  path: string;
  docid: string;
  title: string;
  kind: string;
  size: number;
  mtime_ms: number;
  hash: string | null;
  indexed_at: number;
  status: DocumentStatus;
  error: string | null;
  warning: string | null;
  tags: string;
  metadata: string;
  parent_id: number | null;
}

/**
 * A document as a hit shows it (search/page-anchors.ts): the fields a result carries, and of its
 * metadata only the recognised pages' confidence. A page of hits reads these, not whole rows:
 * parsing every hit's front matter was a measurable share of a keyword search.
 */
export type HitDocument = Pick<DocumentRow, 'id' | 'collectionId' | 'path' | 'docid' | 'title' | 'kind' | 'mtimeMs' | 'tags'> & {
  /** OCR confidence per page number (metadata.ocr.confidence), null for a document with no recognised page. */
  ocrConfidence: Record<string, number> | null;
};

type RawHitFields = Pick<RawDocument, 'id' | 'collection_id' | 'path' | 'docid' | 'title' | 'kind' | 'mtime_ms' | 'tags'>;

export type RawHitDocument = RawHitFields & {
  /** JSON text, or null. */
  ocr_confidence: string | null;
};

function hitFields(r: RawHitFields): Omit<HitDocument, 'ocrConfidence'> {
  return { id: r.id, collectionId: r.collection_id, path: r.path, docid: r.docid, title: r.title, kind: r.kind, mtimeMs: r.mtime_ms, tags: JSON.parse(r.tags) as string[] };
}

export function hitDocumentFromRaw(r: RawHitDocument): HitDocument {
  return { ...hitFields(r), ocrConfidence: r.ocr_confidence === null ? null : (JSON.parse(r.ocr_confidence) as Record<string, number>) };
}

export function documentFromRaw(r: RawDocument): DocumentRow {
  return {
    ...hitFields(r),
    size: r.size,
    hash: r.hash,
    indexedAt: r.indexed_at,
    status: r.status,
    error: r.error,
    warning: r.warning ?? null,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    parentId: r.parent_id ?? null,
  };
}

/** What the change detector needs to decide whether a file must be read again. */
export interface DocumentFingerprint {
  id: number;
  path: string;
  size: number;
  mtime_ms: number;
  hash: string | null;
  status: DocumentStatus;
}

export interface DocumentWrite {
  collectionId: number;
  path: string;
  docid: string;
  title: string;
  kind: string;
  size: number;
  mtimeMs: number;
  hash: string | null;
  status: DocumentStatus;
  error: string | null;
  /** Indexed, but not all of it (optional: most writers have none). */
  warning?: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  /** The file this document lives inside (see DocumentRow.parentId); none by default. */
  parentId?: number | null;
}

/**
 * SQL for documents.ocr_confidence from a metadata parameter (JSON text): the recognised pages'
 * confidence a hit shows (HitDocument.ocrConfidence), kept beside the metadata by every write and
 * filled by the migration that added it (store/migrations.ts).
 */
export const OCR_CONFIDENCE = (metadataParam: string): string => `json_extract(${metadataParam}, '$.ocr.confidence')`;

export class DocumentStore {
  private readonly fingerprintsStmt;
  private readonly byPathStmt;
  private readonly byDocidStmt;
  private readonly byIdStmt;
  /** Any number of ids as one JSON array (also run on the reader threads). */
  readonly hitsStmt;
  private readonly upsertStmt;
  private readonly touchStmt;
  private readonly moveStmt;
  private readonly deleteStmt;
  private readonly docidExistsStmt;
  /** Texts and paths are read through the SQLite storage, on its reader threads when they run (sqlite/reader-pool.ts). */
  readonly contentStmt;
  /** Any number of ids as one JSON array. */
  readonly contentsStmt;
  /** Ranges as one JSON array of [id, from, to]: the compressed blocks covering each, in order (content-blocks.ts windowsFromBlocks). */
  readonly windowsStmt;
  /** Chunk ids as one JSON array: the compressed blocks around each chunk, keyed by chunk id. */
  readonly chunkWindowsStmt;
  private readonly putContentStmt;
  private readonly deleteContentStmt;
  readonly pathsStmt;
  readonly pathsUnderStmt;
  private readonly countStmt;
  private readonly listStmt;
  private readonly byHashStmt;
  private readonly insertStmt;
  private readonly describeStmt;
  private readonly childrenStmt;
  private readonly moveChildrenStmt;
  private readonly languageSampleStmt;

  constructor(db: Db) {
    this.fingerprintsStmt = db.prepare<[number], DocumentFingerprint>(
      // files only: a document inside a file has no file of its own to compare with
      'SELECT id, path, size, mtime_ms, hash, status FROM documents WHERE collection_id = ? AND parent_id IS NULL',
    );
    this.byPathStmt = db.prepare<[number, string], RawDocument>(
      'SELECT * FROM documents WHERE collection_id = ? AND path = ?',
    );
    this.byDocidStmt = db.prepare<[string], RawDocument>('SELECT * FROM documents WHERE docid = ?');
    this.byIdStmt = db.prepare<[number], RawDocument>('SELECT * FROM documents WHERE id = ?');
    // the OCR confidence is its own column, written with the metadata it is taken from (OCR_CONFIDENCE):
    // json_extract over every hit's front matter was ~3 µs a document of a page's read
    this.hitsStmt = db.prepare<[string], RawHitDocument>(
      `SELECT id, collection_id, path, docid, title, kind, mtime_ms, tags, ocr_confidence
         FROM documents WHERE id IN (SELECT value FROM json_each(?))`,
    );
    this.upsertStmt = db.prepare<DocumentWriteParams, { id: number }>(
      `INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, hash, indexed_at, status, error, warning, tags, metadata, ocr_confidence, parent_id)
       VALUES (@collectionId, @path, @docid, @title, @kind, @size, @mtimeMs, @hash, @indexedAt, @status, @error, @warning, @tags, @metadata, ${OCR_CONFIDENCE('@metadata')}, @parentId)
       ON CONFLICT (collection_id, path) DO UPDATE SET
         title = excluded.title, kind = excluded.kind, size = excluded.size, mtime_ms = excluded.mtime_ms,
         hash = excluded.hash, indexed_at = excluded.indexed_at, status = excluded.status, error = excluded.error,
         warning = excluded.warning, tags = excluded.tags, metadata = excluded.metadata, ocr_confidence = excluded.ocr_confidence,
         parent_id = excluded.parent_id
       RETURNING id`,
    );
    this.touchStmt = db.prepare('UPDATE documents SET size = ?, mtime_ms = ? WHERE id = ?');
    this.moveStmt = db.prepare('UPDATE documents SET path = ?, size = ?, mtime_ms = ?, indexed_at = ? WHERE id = ?');
    this.deleteStmt = db.prepare('DELETE FROM documents WHERE id = ?');
    this.docidExistsStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM documents WHERE docid = ?');
    // the blocks inflate (to UTF-8 bytes, cast to text) where the statement runs: on a reader thread when the pool serves it
    this.contentStmt = db.prepare<[number], { text: string | null }>(
      `SELECT group_concat(CAST(trove_inflate(data) AS TEXT), '' ORDER BY start) AS text FROM content_blocks WHERE document_id = ?`,
    );
    this.contentsStmt = db.prepare<[string], { id: number; text: string }>(
      `SELECT document_id AS id, group_concat(CAST(trove_inflate(data) AS TEXT), '' ORDER BY start) AS text
         FROM content_blocks WHERE document_id IN (SELECT value FROM json_each(?)) GROUP BY document_id`,
    );
    // per range: the last block starting at or before `from` (one index seek), then the blocks up to `to`.
    // The blocks come back compressed and are inflated by the read (the `windows` read mode,
    // sqlite/read-mode.ts) on the thread that ran it: trove_inflate inside the statement cost a
    // call into JavaScript per block and two more copies of its text (the function's result, then
    // the CAST), ~6 of the ~26 µs a chunk's window took measured alone.
    const blocksOf = (ranges: string) => `WITH r AS (${ranges}),
            lo AS (SELECT i, id, t, (SELECT max(start) FROM content_blocks x WHERE x.document_id = r.id AND x.start <= r.f) AS s FROM r)
       SELECT lo.i AS i, b.start AS start, b.data AS data
         FROM lo JOIN content_blocks b ON b.document_id = lo.id AND b.start >= lo.s AND b.start < max(lo.t, lo.s + 1)
        ORDER BY lo.i, b.start`;
    this.windowsStmt = db.prepare<[string], PackedBlockRow>(
      blocksOf('SELECT key AS i, value->>0 AS id, value->>1 AS f, value->>2 AS t FROM json_each(?)'),
    );
    // a chunk's text and one character either side (a snippet's ellipses look at them)
    this.chunkWindowsStmt = db.prepare<[string], PackedBlockRow>(
      blocksOf('SELECT c.id AS i, c.document_id AS id, max(c.char_start - 1, 0) AS f, c.char_end + 1 AS t FROM json_each(?) j JOIN chunks c ON c.id = j.value'),
    );
    // the first block is the text's first BLOCK_CHARS characters, more than a language sample asks for;
    // the documents are found first (in id order from documents_collection), so only theirs are inflated
    this.languageSampleStmt = db.prepare<[number, number, number], { t: string }>(
      `SELECT substr(CAST(trove_inflate(b.data) AS TEXT), 1, ?) AS t
         FROM (SELECT d.id FROM documents d
                WHERE d.collection_id = ? AND EXISTS (SELECT 1 FROM content_blocks x WHERE x.document_id = d.id AND x.start = 0)
                ORDER BY d.id LIMIT ?) s
         JOIN content_blocks b ON b.document_id = s.id AND b.start = 0 ORDER BY s.id`,
    );
    this.putContentStmt = db.prepare<[number, number, Buffer]>('INSERT INTO content_blocks (document_id, start, data) VALUES (?, ?, ?)');
    this.deleteContentStmt = db.prepare('DELETE FROM content_blocks WHERE document_id = ?');
    this.countStmt = db.prepare<[number], { n: number }>(`SELECT count(*) AS n FROM documents WHERE collection_id = ? AND status = 'indexed'`);
    this.pathsStmt = db.prepare<[number], { path: string }>(
      "SELECT path FROM documents WHERE collection_id = ? AND status = 'indexed' ORDER BY path",
    );
    // a folder and what is under it: [folder/, folder0) is every path that starts with "folder/" in
    // the index's binary order ('0' is the byte after '/'), so the read is a range of the unique index
    this.pathsUnderStmt = db.prepare<{ c: number; folder: string; from: string; to: string }, { path: string }>(
      `SELECT path FROM documents WHERE collection_id = @c AND status = 'indexed'
          AND (path = @folder OR (path >= @from AND path < @to)) ORDER BY path`,
    );
    this.listStmt = db.prepare<[number], RawDocument>(
      "SELECT * FROM documents WHERE collection_id = ? AND status = 'indexed' ORDER BY path",
    );
    // plain INSERT + lastInsertRowid for rows known to be new (the memory store's entries): no conflict check, no RETURNING
    this.insertStmt = db.prepare(
      `INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, hash, indexed_at, status, error, tags, metadata, ocr_confidence)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, 'indexed', NULL, ?, ?, ${OCR_CONFIDENCE('?')})`,
    );
    // the metadata is bound twice (better-sqlite3 takes a numbered parameter, ?6, for a named one)
    this.describeStmt = db.prepare(`UPDATE documents SET title = ?, size = ?, mtime_ms = ?, indexed_at = ?, tags = ?, metadata = ?, ocr_confidence = ${OCR_CONFIDENCE('?')} WHERE id = ?`);
    this.byHashStmt = db.prepare<[number, string], DocumentFingerprint>(
      "SELECT id, path, size, mtime_ms, hash, status FROM documents WHERE collection_id = ? AND hash = ? AND status = 'indexed' AND parent_id IS NULL",
    );
    this.childrenStmt = db.prepare<[number], { id: number; path: string }>('SELECT id, path FROM documents WHERE parent_id = ?');
    // `path` of every child starts with the parent's old path and a slash: swap that prefix
    this.moveChildrenStmt = db.prepare<[string, number, number]>('UPDATE documents SET path = ? || substr(path, ?) WHERE parent_id = ?');
  }

  /** The documents inside a file (its e-mail attachments): id and path. */
  children(parentId: number): { id: number; path: string }[] {
    return this.childrenStmt.all(parentId);
  }

  /** A file was renamed from `oldPath` to `newPath`: its children's paths follow. */
  moveChildren(parentId: number, oldPath: string, newPath: string): void {
    this.moveChildrenStmt.run(newPath, oldPath.length + 1, parentId);
  }

  /** Indexed documents of a collection with these bytes (rename candidates). */
  byHash(collectionId: number, hash: string): DocumentFingerprint[] {
    return this.byHashStmt.all(collectionId, hash);
  }

  fingerprints(collectionId: number): DocumentFingerprint[] {
    return this.fingerprintsStmt.all(collectionId);
  }

  byPath(collectionId: number, path: string): DocumentRow | undefined {
    const r = this.byPathStmt.get(collectionId, path);
    return r && documentFromRaw(r);
  }

  byDocid(docid: string): DocumentRow | undefined {
    const r = this.byDocidStmt.get(docid);
    return r && documentFromRaw(r);
  }

  byId(id: number): DocumentRow | undefined {
    const r = this.byIdStmt.get(id);
    return r && documentFromRaw(r);
  }

  /** How many documents of a collection are indexed (a dataset's size). */
  indexedCount(collectionId: number): number {
    return this.countStmt.get(collectionId)!.n;
  }

  indexedDocuments(collectionId: number): DocumentRow[] {
    return this.listStmt.all(collectionId).map(documentFromRaw);
  }

  docidTaken(docid: string): boolean {
    return this.docidExistsStmt.get(docid) !== undefined;
  }

  /**
   * Inserts or updates by (collection, path); an existing row keeps its docid. A new row whose
   * drawn docid another row has by now gets a fresh one: a batch read ahead draws its docids
   * before the batch ahead of it is written, and only the writer knows what is taken. Returns the row id.
   */
  upsert(d: DocumentWrite, indexedAt: number): number {
    let docid = d.docid;
    while (this.docidExistsStmt.get(docid) !== undefined) docid = randomBytes(3).toString('hex');
    return this.upsertStmt.get({
      ...d,
      docid,
      warning: d.warning ?? null,
      parentId: d.parentId ?? null,
      indexedAt,
      tags: JSON.stringify(d.tags),
      metadata: JSON.stringify(d.metadata),
    })!.id;
  }

  /** A new indexed document that cannot clash (its path is new): cheaper than upsert. Returns the row id. */
  insertNew(d: { collectionId: number; path: string; docid: string; title: string; kind: string; size: number; mtimeMs: number; tags: string; metadata: string }): number {
    return Number(this.insertStmt.run(d.collectionId, d.path, d.docid, d.title, d.kind, d.size, d.mtimeMs, d.mtimeMs, d.tags, d.metadata, d.metadata).lastInsertRowid);
  }

  /** New title, size, time, tags and metadata (JSON) for a document that changed in place. */
  describe(id: number, d: { title: string; size: number; mtimeMs: number; tags: string; metadata: string }): void {
    this.describeStmt.run(d.title, d.size, d.mtimeMs, d.mtimeMs, d.tags, d.metadata, d.metadata, id);
  }

  /** Same bytes, new stat: remember the stat so the next scan takes the fast path. */
  touch(id: number, size: number, mtimeMs: number): void {
    this.touchStmt.run(size, mtimeMs, id);
  }

  /** A rename: the row (and its docid, chunks, vectors) follows the file. */
  move(id: number, path: string, size: number, mtimeMs: number, at: number): void {
    this.moveStmt.run(path, size, mtimeMs, at, id);
  }

  delete(id: number): void {
    this.deleteStmt.run(id);
  }

  /** The start (`chars`) of the first `documents` texts by id, for the automatic model choice (embed/language.ts). */
  languageSample(collectionId: number, sample: { documents: number; chars: number }): string[] {
    return this.languageSampleStmt.all(sample.chars, collectionId, sample.documents).map((r) => r.t);
  }

  deleteContent(id: number): void {
    this.deleteContentStmt.run(id);
  }

  /**
   * The document's text in blocks, replacing any it had (a longer old text's last blocks must not
   * stay). `whole`: one block (a memory entry's statements read it so). `isNew`: the row was just
   * inserted (insertNew), so there is nothing to replace.
   */
  putContent(id: number, text: string, opts: { whole?: boolean; isNew?: boolean } = {}): void {
    if (!opts.isNew) this.deleteContentStmt.run(id);
    for (const b of opts.whole ? packWhole(text) : packText(text)) this.putContentStmt.run(id, b.start, b.data);
  }
}

type DocumentWriteParams = Omit<DocumentWrite, 'tags' | 'metadata' | 'parentId'> & {
  parentId: number | null;
  indexedAt: number;
  tags: string;
  metadata: string;
};
