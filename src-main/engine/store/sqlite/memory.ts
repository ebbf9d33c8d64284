// Agent memory's tables on SQLite behind the storage interface (store/storage.ts MemoryRepository),
// the counterpart of store/postgres/memory.ts. An entry is a document of the `~memory` collection
// (title, tags and metadata on its documents row, text in content_blocks as one block, chunks with their keyword rows
// in memory_fts) plus its own rows in memory_entries, memory_tags and memory_images. Each write is
// one transaction, the keyword rows of the whole write last (see store/chunks.ts); an update reads
// each entry inside the transaction and applies what the engine decides for it; a delete drops the
// keyword rows and vectors (ChunkStore's hooks), then the document, which cascades to the rest.
import { toIndexText } from '../../text/cjk.js';
import type { CheckedDelete, DecodedImage, EntryRewrite, EntryRow, ImageRow, MemoryFilterValues } from '../memory-rows.js';
import { SqliteMemoryCounts } from './memory-counts.js';
import { EntryStore } from './memory-entries.js';
import { listingClause, searchClause as sqliteSearchClause, sqliteMemoryFilters } from './memory-filters.js';
import type { FilterClause } from '../filters.js';
import type { ChunkStore, FtsRow } from '../chunks.js';
import type { Db } from '../database.js';
import type { DocumentStore } from '../documents.js';
import type { MemoryCounts, MemoryInsert, MemoryRepository, MemorySearchMetric, MemoryThreadRow } from '../storage.js';

export class SqliteMemory implements MemoryRepository {
  private readonly entries: EntryStore;
  private readonly stats: SqliteMemoryCounts;

  constructor(
    private readonly db: Db,
    private readonly documents: DocumentStore,
    /** The ChunkStore writing memory_fts. */
    private readonly chunks: ChunkStore,
  ) {
    this.entries = new EntryStore(db);
    this.stats = new SqliteMemoryCounts(db);
  }

  async insert(collectionId: number, inserts: readonly MemoryInsert[]): Promise<number[]> {
    const { documents, chunks, entries } = this;
    return this.db.transaction(() => {
      let id = entries.nextId();
      const fts: FtsRow[] = [];
      const ids: number[] = [];
      for (const e of inserts) {
        const documentId = documents.insertNew({
          collectionId,
          path: String(id),
          docid: `m${id}`, // never hex: cannot clash with a file's docid
          title: e.title,
          kind: 'memory',
          size: e.size,
          mtimeMs: e.updatedAt,
          tags: e.tagsJson,
          metadata: e.metadataJson,
        });
        documents.putContent(documentId, e.text, { whole: true, isNew: true });
        for (const row of chunks.replaceFor(documentId, e.chunks, true)) fts.push(row);
        entries.insert({ id, documentId, threadId: e.threadId, source: e.source, contentType: e.images.length ? 'multimodal' : 'text', createdAt: e.createdAt, updatedAt: e.updatedAt });
        if (e.tags.length) entries.setTags(id, e.tags, false);
        if (e.images.length) entries.setImages(id, e.images as DecodedImage[], false);
        ids.push(id++);
      }
      chunks.indexText(fts);
      return ids;
    })();
  }

  async update(ids: readonly number[], plan: (row: EntryRow | undefined, index: number) => EntryRewrite | null): Promise<(EntryRewrite | null)[]> {
    const { documents, chunks, entries } = this;
    return this.db.transaction(() => {
      const now = Date.now();
      // an entry updated twice in one batch: the second update starts from the first one's result
      const seen = new Map<number, EntryRow>();
      return ids.map((id, index) => {
        const row = seen.get(id) ?? entries.byIds([id])[0];
        const w = plan(row, index);
        if (!row || !w) return w;
        seen.set(id, { ...row, metadata: w.metadataJson, tags: w.tagsJson, text: w.text?.text ?? row.text, content_type: w.contentType, updated_at: now });
        documents.describe(w.documentId, { title: w.title, size: w.size, mtimeMs: now, tags: w.tagsJson, metadata: w.metadataJson });
        if (w.tags) entries.setTags(id, w.tags, true);
        if (w.images) entries.setImages(id, w.images, true);
        if (w.text) {
          documents.putContent(w.documentId, w.text.text, { whole: true });
          chunks.indexText(chunks.replaceFor(w.documentId, w.text.chunks)); // old vectors go with the old chunks
        } else if (w.retitle !== undefined) {
          // same text, new title: rewrite the keyword rows only; chunks and their vectors stay
          const text = row.text;
          chunks.replaceText(
            w.documentId,
            chunks.forDocument(w.documentId).map((c) => ({ id: c.id, title: w.retitle!, headings: '', body: toIndexText(text.slice(c.charStart, c.charEnd)) })),
          );
        }
        entries.touch(id, w.contentType, now);
        return w;
      });
    })();
  }

  async remove(c: CheckedDelete): Promise<number> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (c.ids) {
      where.push('e.id IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(c.ids));
    }
    if (c.threadIds) {
      where.push('e.thread_id IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(c.threadIds));
    }
    if (c.before !== undefined) {
      where.push('e.created_at < ?');
      params.push(c.before);
    }
    if (c.source !== undefined) {
      where.push('e.source = ?');
      params.push(c.source);
    }
    return this.db.transaction(() => {
      const rows = this.entries.matching(where.join(' AND '), params);
      for (const r of rows) {
        this.chunks.deleteFor(r.document_id); // keyword rows and vectors (delete hooks), then chunks
        this.documents.delete(r.document_id); // cascades: content_blocks, memory_entries → tags, images
      }
      return rows.length;
    })();
  }

  async same(threadId: string, createdAt: number, source: string, text: string): Promise<number | undefined> {
    return this.entries.same(threadId, createdAt, source, text);
  }

  async exportPage(threadId: string | undefined, afterId: number, limit: number): Promise<EntryRow[]> {
    return this.entries.exportPage(threadId, afterId, limit);
  }

  async byIds(ids: readonly number[]): Promise<EntryRow[]> {
    return this.entries.byIds(ids);
  }

  async byDocuments(documentIds: readonly number[]): Promise<EntryRow[]> {
    return this.entries.byDocuments(documentIds);
  }

  async images(ids: readonly number[], withData: boolean): Promise<ImageRow[]> {
    return this.entries.images(ids, withData);
  }

  async list(filters: MemoryFilterValues, limit: number, offset: number): Promise<{ rows: EntryRow[]; total: number }> {
    const w = listingClause(sqliteMemoryFilters(filters));
    return this.entries.list(w.where, w.params, limit, offset);
  }

  /**
   * With an indexed entry condition (a thread, dates) the clause also has its set form — the
   * matching entries' documents listed once by that index — which keyword search prefers over a
   * check per matching row when a query's words match many rows (store/sqlite/keyword.ts).
   */
  async searchClause(filters: MemoryFilterValues): Promise<FilterClause | null> {
    return sqliteSearchClause(sqliteMemoryFilters(filters), (where, params, cap) => this.entries.countUpTo(where, params, cap));
  }

  async around(e: EntryRow, before: number, after: number): Promise<{ before: EntryRow[]; after: EntryRow[] }> {
    return this.entries.around(e, before, after);
  }

  async threads(): Promise<MemoryThreadRow[]> {
    return this.stats.threads();
  }

  async counts(): Promise<MemoryCounts> {
    return this.stats.counts();
  }

  async entriesAndThreads(): Promise<{ entries: number; threads: number }> {
    return this.stats.entriesAndThreads();
  }

  async recordSearches(rows: readonly MemorySearchMetric[], prune: boolean): Promise<void> {
    this.stats.record(rows, prune);
  }

  async searches(): Promise<{ type: string; count: number; avg: number; last: number | null }[]> {
    return this.stats.searches();
  }
}
