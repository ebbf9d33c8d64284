// The memory tables on SQLite (migration "agent memory"): memory_entries, memory_tags and
// memory_images, with their statements, prepared once. An entry's text, title, tags (in order) and
// metadata live on its documents row and in content_blocks (one compressed block an entry:
// store/content-blocks.ts packWhole), which the documents' stores own; reads join them here.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../database.js';
import type { DecodedImage, EntryRow, ImageRow } from '../memory-rows.js';



const ENTRY_COLUMNS = `e.id, e.document_id, e.thread_id, e.source, e.content_type, e.created_at, e.updated_at, d.metadata, d.tags, CAST(trove_inflate(t.data) AS TEXT) AS text`;
const ENTRY_JOIN = `JOIN documents d ON d.id = e.document_id JOIN content_blocks t ON t.document_id = e.document_id AND t.start = 0`;

export class EntryStore {
  private readonly nextIdStmt;
  private readonly insertStmt;
  private readonly touchStmt;
  private readonly insertTagStmt;
  private readonly deleteTagsStmt;
  private readonly insertImageStmt;
  private readonly deleteImagesStmt;
  private readonly imagesStmt;
  private readonly imageSizesStmt;
  private readonly byIdsStmt;
  private readonly byDocumentsStmt;
  private readonly documentOfStmt;
  private readonly sameStmt;
  private readonly beforeStmt;
  private readonly afterStmt;
  private readonly exportPageStmt;
  private readonly exportThreadPageStmt;
  private readonly counts = new Map<string, Statement<unknown[], { n: number }>>();
  private readonly deletions = new Map<string, Statement<unknown[], { id: number; document_id: number }>>();
  private readonly listings = new Map<string, { page: Statement<unknown[], EntryRow>; count: Statement<unknown[], { n: number }> }>();

  constructor(private readonly db: Db) {
    // AUTOINCREMENT's own rule, read once per write transaction: ids are never reused
    this.nextIdStmt = db.prepare<[], { next: number }>(
      `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'memory_entries'), 0), coalesce((SELECT max(id) FROM memory_entries), 0)) + 1 AS next`,
    );
    this.insertStmt = db.prepare(
      'INSERT INTO memory_entries (id, document_id, thread_id, source, content_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.touchStmt = db.prepare('UPDATE memory_entries SET content_type = ?, updated_at = ? WHERE id = ?');
    this.insertTagStmt = db.prepare('INSERT OR IGNORE INTO memory_tags (entry_id, tag) VALUES (?, ?)');
    this.deleteTagsStmt = db.prepare('DELETE FROM memory_tags WHERE entry_id = ?');
    this.insertImageStmt = db.prepare('INSERT INTO memory_images (entry_id, position, mime_type, bytes, data) VALUES (?, ?, ?, ?, ?)');
    this.deleteImagesStmt = db.prepare('DELETE FROM memory_images WHERE entry_id = ?');
    this.imagesStmt = db.prepare<[string], ImageRow>(
      'SELECT i.entry_id, i.mime_type, i.bytes, i.data FROM json_each(?) j JOIN memory_images i ON i.entry_id = j.value ORDER BY i.entry_id, i.position',
    );
    this.imageSizesStmt = db.prepare<[string], ImageRow>(
      'SELECT i.entry_id, i.mime_type, i.bytes FROM json_each(?) j JOIN memory_images i ON i.entry_id = j.value ORDER BY i.entry_id, i.position',
    );
    this.byIdsStmt = db.prepare<[string], EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM json_each(?) j JOIN memory_entries e ON e.id = j.value ${ENTRY_JOIN}`);
    this.byDocumentsStmt = db.prepare<[string], EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM json_each(?) j JOIN memory_entries e ON e.document_id = j.value ${ENTRY_JOIN}`,
    );
    this.documentOfStmt = db.prepare<[number], { document_id: number }>('SELECT document_id FROM memory_entries WHERE id = ?');
    this.sameStmt = db.prepare<[string, number, string, string], { id: number }>(
      `SELECT e.id FROM memory_entries e JOIN content_blocks t ON t.document_id = e.document_id AND t.start = 0
        WHERE e.thread_id = ? AND e.created_at = ? AND e.source = ? AND CAST(trove_inflate(t.data) AS TEXT) = ? LIMIT 1`,
    );
    this.beforeStmt = db.prepare<[string, number, number, number, number], EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN}
        WHERE e.thread_id = ? AND (e.created_at < ? OR (e.created_at = ? AND e.id < ?)) ORDER BY e.created_at DESC, e.id DESC LIMIT ?`,
    );
    this.afterStmt = db.prepare<[string, number, number, number, number], EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN}
        WHERE e.thread_id = ? AND (e.created_at > ? OR (e.created_at = ? AND e.id > ?)) ORDER BY e.created_at, e.id LIMIT ?`,
    );
    this.exportPageStmt = db.prepare<[number, number], EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.id > ? ORDER BY e.id LIMIT ?`);
    this.exportThreadPageStmt = db.prepare<[string, number, number], EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.thread_id = ? AND e.id > ? ORDER BY e.id LIMIT ?`,
    );
  }

  /** The id the next entry gets (call inside the write transaction). */
  nextId(): number {
    return this.nextIdStmt.get()!.next;
  }

  insert(e: { id: number; documentId: number; threadId: string; source: string; contentType: string; createdAt: number; updatedAt: number }): void {
    this.insertStmt.run(e.id, e.documentId, e.threadId, e.source, e.contentType, e.createdAt, e.updatedAt);
  }

  touch(id: number, contentType: string, updatedAt: number): void {
    this.touchStmt.run(contentType, updatedAt, id);
  }

  setTags(id: number, tags: readonly string[], replace: boolean): void {
    if (replace) this.deleteTagsStmt.run(id);
    for (const t of tags) this.insertTagStmt.run(id, t);
  }

  setImages(id: number, images: readonly DecodedImage[], replace: boolean): void {
    if (replace) this.deleteImagesStmt.run(id);
    images.forEach((img, i) => this.insertImageStmt.run(id, i, img.mimeType, img.data.length, img.data));
  }

  /** Images of these entries, in order; without their bytes unless asked. */
  images(ids: readonly number[], withData: boolean): ImageRow[] {
    if (!ids.length) return [];
    return (withData ? this.imagesStmt : this.imageSizesStmt).all(JSON.stringify(ids));
  }

  byIds(ids: readonly number[]): EntryRow[] {
    return ids.length ? this.byIdsStmt.all(JSON.stringify(ids)) : [];
  }

  byDocuments(documentIds: readonly number[]): EntryRow[] {
    return documentIds.length ? this.byDocumentsStmt.all(JSON.stringify(documentIds)) : [];
  }

  documentOf(id: number): number | undefined {
    return this.documentOfStmt.get(id)?.document_id;
  }

  /** An entry with this thread, creation time, source and text (import's duplicate check). */
  same(threadId: string, createdAt: number, source: string, text: string): number | undefined {
    return this.sameStmt.get(threadId, createdAt, source, text)?.id;
  }

  /** Up to n entries of the thread before (newest first) and after (oldest first) an entry. */
  around(e: EntryRow, before: number, after: number): { before: EntryRow[]; after: EntryRow[] } {
    return {
      before: before > 0 ? this.beforeStmt.all(e.thread_id, e.created_at, e.created_at, e.id, before) : [],
      after: after > 0 ? this.afterStmt.all(e.thread_id, e.created_at, e.created_at, e.id, after) : [],
    };
  }

  /** Every entry (or one thread's) after an id, oldest first, a page at a time (export). */
  exportPage(threadId: string | undefined, afterId: number, limit: number): EntryRow[] {
    return threadId === undefined ? this.exportPageStmt.all(afterId, limit) : this.exportThreadPageStmt.all(threadId, afterId, limit);
  }

  /** A page of entries matching `where` (over e and d), newest first, and how many match in all. */
  list(where: string, params: readonly unknown[], limit: number, offset: number): { rows: EntryRow[]; total: number } {
    let s = this.listings.get(where);
    if (!s) {
      const w = where ? `WHERE ${where}` : '';
      s = {
        page: this.db.prepare<unknown[], EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} ${w} ORDER BY e.created_at DESC, e.id DESC LIMIT ? OFFSET ?`),
        count: this.db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM memory_entries e JOIN documents d ON d.id = e.document_id ${w}`),
      };
      if (this.listings.size > 64) this.listings.clear(); // filter shapes are few in practice
      this.listings.set(where, s);
    }
    const rows = s.page.all(...params, limit, offset);
    // the page tells the count when it is the last one
    const total = rows.length < limit && (rows.length > 0 || offset === 0) ? offset + rows.length : s.count.get(...params)!.n;
    return { rows, total };
  }

  /** How many entries match `where` (over e), counting no further than `cap`. */
  countUpTo(where: string, params: readonly unknown[], cap: number): number {
    let stmt = this.counts.get(where);
    if (!stmt) {
      if (this.counts.size > 64) this.counts.clear(); // filter shapes are few in practice
      this.counts.set(where, (stmt = this.db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM memory_entries e WHERE ${where} LIMIT ?)`)));
    }
    return stmt.get(...params, cap)!.n;
  }

  /** Entry ids and their documents matching a deletion's conditions over e (few shapes: prepared once each). */
  matching(where: string, params: readonly unknown[]): { id: number; document_id: number }[] {
    let stmt = this.deletions.get(where);
    if (!stmt) this.deletions.set(where, (stmt = this.db.prepare<unknown[], { id: number; document_id: number }>(`SELECT e.id, e.document_id FROM memory_entries e WHERE ${where}`)));
    return stmt.all(...params);
  }
}
