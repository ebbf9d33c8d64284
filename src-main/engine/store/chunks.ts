// The chunks table and its FTS5 index. Chunk text is not stored twice: a chunk is a range
// of its document's content; the FTS row holds the tokenisable form of title/headings/body.
// Every collection kind has its own keyword index (store/keyword-index.ts): a ChunkStore writes
// one of them, and its siblings (forIndex) the others, sharing the delete hooks.
import type { Db } from './database.js';
import { DeletedRows } from './fts-totals.js';
import type { KeywordIndex } from './keyword-index.js';

export interface ChunkWrite {
  ordinal: number;
  charStart: number;
  charEnd: number;
  lineStart: number;
  lineEnd: number;
  headingPath: string[];
  /** Page, slide, sheet or chapter (1-based); null where the format has none. */
  page?: number | null;
  tokens: number;
  /** FTS column values, already in index form (see search/cjk.ts). */
  ftsTitle: string;
  ftsHeadings: string;
  ftsBody: string;
}

export interface FtsRow {
  id: number;
  title: string;
  headings: string;
  body: string;
}

export interface ChunkRow {
  id: number;
  documentId: number;
  ordinal: number;
  charStart: number;
  charEnd: number;
  lineStart: number;
  lineEnd: number;
  headingPath: string[];
  page: number | null;
}

export interface RawChunk {
  id: number;
  document_id: number;
  ordinal: number;
  char_start: number;
  char_end: number;
  line_start: number;
  line_end: number;
  heading_path: string;
  page: number | null;
}

export function chunkFromRaw(r: RawChunk): ChunkRow {
  return {
    id: r.id,
    documentId: r.document_id,
    ordinal: r.ordinal,
    charStart: r.char_start,
    charEnd: r.char_end,
    lineStart: r.line_start,
    lineEnd: r.line_end,
    headingPath: r.heading_path ? (JSON.parse(r.heading_path) as string[]) : [],
    page: r.page,
  };
}

/** Derived stores keyed by chunk (vectors) drop their rows before chunks are deleted. */
export interface ChunkDeleteHook {
  forDocument(documentId: number): void;
  forCollection(collectionId: number): void;
}

export class ChunkStore {
  private readonly deleteHooks: ChunkDeleteHook[];
  private readonly siblings: Map<KeywordIndex, ChunkStore>;
  private readonly deleteForStmt;
  private readonly deleteFtsForStmt;
  private readonly deleteFtsForCollectionStmt;
  private readonly deletedFor;
  private readonly deletedForCollection;
  private readonly insertStmt;
  private readonly insertFtsStmt;
  private readonly byIdStmt;
  /** Any number of ids as one JSON array (also run on the reader threads: sqlite/reader-pool.ts). */
  readonly byIdsStmt;
  private readonly forDocumentStmt;

  constructor(
    private readonly db: Db,
    /** The keyword index this store writes (default: the user's folders'). */
    readonly index: KeywordIndex = 'chunks_fts',
    shared?: { hooks: ChunkDeleteHook[]; siblings: Map<KeywordIndex, ChunkStore> },
  ) {
    this.deleteHooks = shared?.hooks ?? [];
    this.siblings = shared?.siblings ?? new Map([[index, this]]);
    this.deleteForStmt = db.prepare('DELETE FROM chunks WHERE document_id = ?');
    const ofDocument = 'SELECT id FROM chunks WHERE document_id = ?';
    const ofCollection = 'SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.collection_id = ?';
    this.deleteFtsForStmt = db.prepare(`DELETE FROM ${index} WHERE rowid IN (${ofDocument})`);
    this.deleteFtsForCollectionStmt = db.prepare(`DELETE FROM ${index} WHERE rowid IN (${ofCollection})`);
    // FTS5 never takes contentless-deleted rows out of its totals: count them first (store/fts-totals.ts)
    this.deletedFor = new DeletedRows(db, index, ofDocument);
    this.deletedForCollection = new DeletedRows(db, index, ofCollection);
    // plain INSERT + lastInsertRowid: RETURNING costs a statement journal per row
    this.insertStmt = db.prepare(
      `INSERT INTO chunks (document_id, ordinal, char_start, char_end, line_start, line_end, heading_path, page, tokens)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertFtsStmt = db.prepare(`INSERT INTO ${index} (rowid, title, headings, body) VALUES (?, ?, ?, ?)`);
    this.byIdStmt = db.prepare<[number], RawChunk>('SELECT * FROM chunks WHERE id = ?');
    this.byIdsStmt = db.prepare<[string], RawChunk>('SELECT * FROM chunks WHERE id IN (SELECT value FROM json_each(?))');
    this.forDocumentStmt = db.prepare<[number], RawChunk>('SELECT * FROM chunks WHERE document_id = ? ORDER BY ordinal');
  }

  /** The store writing another keyword index (a collection of another kind); delete hooks are shared. */
  forIndex(index: KeywordIndex): ChunkStore {
    let store = this.siblings.get(index);
    if (!store) {
      store = new ChunkStore(this.db, index, { hooks: this.deleteHooks, siblings: this.siblings });
      this.siblings.set(index, store);
    }
    return store;
  }

  /**
   * Replaces every chunk of a document. Returns the FTS rows to write with `indexText` once the
   * batch's other writes are done: FTS5 flushes its pending terms to a new segment whenever
   * another statement opens a savepoint, so interleaving made indexing ~3x slower (measured).
   * Call inside a transaction.
   */
  replaceFor(documentId: number, chunks: readonly ChunkWrite[], isNew = false): FtsRow[] {
    if (!isNew) this.deleteFor(documentId);
    const rows: FtsRow[] = [];
    for (const c of chunks) {
      const heading = c.headingPath.length ? JSON.stringify(c.headingPath) : '';
      const { lastInsertRowid } = this.insertStmt.run(
        documentId, c.ordinal, c.charStart, c.charEnd, c.lineStart, c.lineEnd, heading, c.page ?? null, c.tokens,
      );
      const id = Number(lastInsertRowid);
      rows.push({ id, title: c.ftsTitle, headings: c.ftsHeadings, body: c.ftsBody });
    }
    return rows;
  }

  /** Writes FTS rows back to back (see replaceFor). */
  indexText(rows: readonly FtsRow[]): void {
    for (const r of rows) this.insertFtsStmt.run(r.id, r.title, r.headings, r.body);
  }

  /** Rewrites a document's FTS rows for the chunks it has (a new title, same text: chunks and their vectors stay). */
  replaceText(documentId: number, rows: readonly FtsRow[]): void {
    this.deleteFts(documentId);
    this.indexText(rows);
  }

  addDeleteHook(hook: ChunkDeleteHook): void {
    this.deleteHooks.push(hook);
  }

  /** Drops a document's chunks and FTS rows (before the document row goes); the document is in this store's index. */
  deleteFor(documentId: number): void {
    for (const h of this.deleteHooks) h.forDocument(documentId);
    this.deleteFts(documentId);
    this.deleteForStmt.run(documentId);
  }

  /** Drops every chunk and FTS row of a collection (before the collection row goes). */
  deleteForCollection(collectionId: number): void {
    for (const h of this.deleteHooks) h.forCollection(collectionId);
    this.deletedForCollection.count(collectionId);
    this.deleteFtsForCollectionStmt.run(collectionId);
  }

  /** A document's FTS rows out, and into the index's deleted totals. */
  private deleteFts(documentId: number): void {
    this.deletedFor.count(documentId);
    this.deleteFtsForStmt.run(documentId);
  }

  byId(id: number): ChunkRow | undefined {
    const r = this.byIdStmt.get(id);
    return r && chunkFromRaw(r);
  }

  forDocument(documentId: number): ChunkRow[] {
    return this.forDocumentStmt.all(documentId).map(chunkFromRaw);
  }
}
