// Agent memory's tables on PostgreSQL (migration 2: memory_entries, memory_tags, memory_images,
// memory_search_metrics), the counterpart of memory/entry-store.ts and memory-stats.ts. An entry
// is a document of the `~memory` collection (title, tags and metadata on its documents row, text
// in contents, chunks with their keyword rows in memory_fts) plus its own rows. Every write is one
// transaction here: entries with their documents, chunks, tags, images and keyword rows (written
// by the same PostgresKeywordIndex as batches); an update reads its rows FOR UPDATE and applies
// the rewrites the engine decided (memory/entry-update.ts); a delete removes the documents, which
// cascades to contents, chunks, keyword rows, postings, vectors, entries, tags and images. Filters
// arrive as data (MemoryFilterValues) and are rendered here (memory-filters.ts).
import type { CheckedDelete, DecodedImage, EntryRewrite, EntryRow, ImageRow, MemoryFilterValues } from '../memory-rows.js';
import { numbered, pgListingClause, pgSearchClause, type PgMetadataOptions } from './memory-filters.js';
import { toIndexText } from '../../text/cjk.js';
import type { FilterClause } from '../filters.js';
import type { MemoryCounts, MemoryInsert, MemoryRepository, MemorySearchMetric, MemoryThreadRow } from '../storage.js';
import type { PostgresDatabase, Queryable } from './connection.js';
import { insertChunkRuns, insertChunks } from './index-writer.js';
import type { PostgresKeywordIndex } from './keyword-index.js';
import { retireVectors } from './vectors.js';

const ENTRY_COLUMNS = `e.id, e.document_id, e.thread_id, e.source, e.content_type, e.created_at, e.updated_at, d.metadata::text AS metadata, d.tags::text AS tags, t.text`;
const ENTRY_JOIN = `JOIN documents d ON d.id = e.document_id JOIN contents t ON t.document_id = e.document_id`;
const METRICS_KEPT = 10_000;

export class PostgresMemory implements MemoryRepository {
  private fold: Promise<PgMetadataOptions> | null = null;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly keyword: PostgresKeywordIndex,
    private readonly notify: (collectionId: number | null) => Promise<void>,
  ) {}

  async insert(collectionId: number, entries: readonly MemoryInsert[]): Promise<number[]> {
    if (!entries.length) return [];
    const ids = await this.db.transaction(async (client) => {
      const idRows = await client.query<{ id: number }>(`SELECT nextval(pg_get_serial_sequence('memory_entries', 'id')) AS id FROM generate_series(1, $1)`, [entries.length]);
      const ids = idRows.rows.map((r) => r.id).sort((a, b) => a - b);
      const docs = await client.query<{ id: number; path: string }>(
        `INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, hash, indexed_at, status, error, tags, metadata)
         SELECT $1, p, 'm' || p, ti, 'memory', sz, mt, NULL, mt, 'indexed', NULL, tg::jsonb, md::jsonb
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[]) AS x(p, ti, sz, mt, tg, md)
         RETURNING id, path`,
        [collectionId, ids.map(String), entries.map((e) => e.title), entries.map((e) => e.size), entries.map((e) => e.updatedAt), entries.map((e) => e.tagsJson), entries.map((e) => e.metadataJson)],
      );
      const docOf = new Map(docs.rows.map((r) => [r.path, r.id]));
      const documentIds = ids.map((id) => docOf.get(String(id))!);
      await client.query('INSERT INTO contents (document_id, text) SELECT * FROM unnest($1::bigint[], $2::text[])', [documentIds, entries.map((e) => e.text)]);
      await client.query(
        `INSERT INTO memory_entries (id, document_id, thread_id, source, content_type, created_at, updated_at)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])`,
        [ids, documentIds, entries.map((e) => e.threadId), entries.map((e) => e.source), entries.map((e) => (e.images.length ? 'multimodal' : 'text')), entries.map((e) => e.createdAt), entries.map((e) => e.updatedAt)],
      );
      // chunks and tags of every entry in one statement each (a round trip per entry cost a batch most of its time)
      const fts = await insertChunkRuns(client, entries.map((e, i) => ({ documentId: documentIds[i]!, chunks: e.chunks })));
      const tagged = entries.flatMap((e, i) => e.tags.map((tag) => [ids[i]!, tag] as const));
      if (tagged.length) {
        await client.query('INSERT INTO memory_tags (entry_id, tag) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT DO NOTHING', [tagged.map((t) => t[0]), tagged.map((t) => t[1])]);
      }
      for (const [i, e] of entries.entries()) if (e.images.length) await this.setImages(client, ids[i]!, e.images, false);
      await this.keyword.writeRows(fts, client);
      return ids;
    });
    await this.notify(collectionId);
    return ids;
  }

  async update(ids: readonly number[], plan: (row: EntryRow | undefined, index: number) => EntryRewrite | null): Promise<(EntryRewrite | null)[]> {
    const out = await this.db.transaction(async (client) => {
      const rows = new Map((await client.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.id = ANY($1::bigint[]) FOR UPDATE OF e`, [ids])).rows.map((r) => [r.id, r]));
      const rewrites: (EntryRewrite | null)[] = [];
      const now = Date.now();
      for (const [index, id] of ids.entries()) {
        const row = rows.get(id);
        const w = plan(row, index);
        rewrites.push(w);
        if (!row || !w) continue;
        // an entry updated twice in one batch: the second update starts from the first one's result, as on SQLite
        rows.set(id, { ...row, metadata: w.metadataJson, tags: w.tagsJson, text: w.text?.text ?? row.text, content_type: w.contentType, updated_at: now });
        await client.query('UPDATE documents SET title = $1, size = $2, mtime_ms = $3, indexed_at = $3, tags = $4::jsonb, metadata = $5::jsonb WHERE id = $6', [w.title, w.size, now, w.tagsJson, w.metadataJson, w.documentId]);
        if (w.tags) await this.setTags(client, id, w.tags, true);
        if (w.images) await this.setImages(client, id, w.images, true);
        if (w.text) {
          await client.query('UPDATE contents SET text = $1 WHERE document_id = $2', [w.text.text, w.documentId]);
          await retireVectors(client, [w.documentId]);
          await client.query('DELETE FROM chunks WHERE document_id = $1', [w.documentId]); // keyword rows, postings and vectors cascade
          await this.keyword.write(await insertChunks(client, w.documentId, w.text.chunks), client);
        } else if (w.retitle !== undefined) {
          await this.retitle(client, w.documentId, row.text, w.retitle);
        }
        await client.query('UPDATE memory_entries SET content_type = $1, updated_at = $2 WHERE id = $3', [w.contentType, now, id]);
      }
      return rewrites;
    });
    await this.notify(null);
    return out;
  }

  /** Deletes the matching entries with everything that hangs off them; returns how many. */
  async remove(c: CheckedDelete): Promise<number> {
    const where: string[] = [];
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), `$${params.length}`);
    if (c.ids) where.push(`e.id = ANY(${p(c.ids)}::bigint[])`);
    if (c.threadIds) where.push(`e.thread_id = ANY(${p(c.threadIds)}::text[])`);
    if (c.before !== undefined) where.push(`e.created_at < ${p(c.before)}`);
    if (c.source !== undefined) where.push(`e.source = ${p(c.source)}`);
    const r = await this.db.pool.query(`DELETE FROM documents WHERE id IN (SELECT e.document_id FROM memory_entries e WHERE ${where.join(' AND ')})`, params);
    const n = r.rowCount ?? 0;
    if (n) await this.notify(null);
    return n;
  }

  /** An entry with this thread, creation time, source and text (import's duplicate check). */
  async same(threadId: string, createdAt: number, source: string, text: string): Promise<number | undefined> {
    const r = await this.db.one<{ id: number }>(
      'SELECT e.id FROM memory_entries e JOIN contents t ON t.document_id = e.document_id WHERE e.thread_id = $1 AND e.created_at = $2 AND e.source = $3 AND t.text = $4 LIMIT 1',
      [threadId, createdAt, source, text],
    );
    return r?.id;
  }

  /** Every entry (or one thread's), oldest first, a page at a time (export). */
  async exportPage(threadId: string | undefined, afterId: number, limit: number): Promise<EntryRow[]> {
    return this.db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.id > $1 ${threadId === undefined ? '' : 'AND e.thread_id = $3'} ORDER BY e.id LIMIT $2`,
      threadId === undefined ? [afterId, limit] : [afterId, limit, threadId],
    );
  }

  async byIds(ids: readonly number[]): Promise<EntryRow[]> {
    if (!ids.length) return [];
    return this.db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.id = ANY($1::bigint[])`, [ids]);
  }

  async byDocuments(documentIds: readonly number[]): Promise<EntryRow[]> {
    if (!documentIds.length) return [];
    return this.db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.document_id = ANY($1::bigint[])`, [documentIds]);
  }

  async images(ids: readonly number[], withData: boolean): Promise<ImageRow[]> {
    if (!ids.length) return [];
    return this.db.query<ImageRow>(
      `SELECT entry_id, mime_type, bytes${withData ? ', data' : ''} FROM memory_images WHERE entry_id = ANY($1::bigint[]) ORDER BY entry_id, position`,
      [ids],
    );
  }

  /** A page of entries matching the filters, newest first, and how many match in all. */
  async list(filters: MemoryFilterValues, limit: number, offset: number): Promise<{ rows: EntryRow[]; total: number }> {
    const w = pgListingClause(filters, await this.foldOptions());
    const where = w.sql ? `WHERE ${numbered(w.sql, 1)}` : '';
    const n = w.params.length;
    const rows = await this.db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} ${where} ORDER BY e.created_at DESC, e.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...w.params, limit, offset],
    );
    // the page tells the count when it is the last one
    if (rows.length < limit && (rows.length > 0 || offset === 0)) return { rows, total: offset + rows.length };
    const c = await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM memory_entries e JOIN documents d ON d.id = e.document_id ${where}`, w.params);
    return { rows, total: c?.n ?? 0 };
  }

  /** The filters as a clause over documents d for the keyword and vector queries (null: none). */
  async searchClause(filters: MemoryFilterValues): Promise<FilterClause | null> {
    return pgSearchClause(filters, await this.foldOptions());
  }

  async around(e: EntryRow, before: number, after: number): Promise<{ before: EntryRow[]; after: EntryRow[] }> {
    const [b, a] = await Promise.all([
      before > 0
        ? this.db.query<EntryRow>(
            `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.thread_id = $1 AND (e.created_at < $2 OR (e.created_at = $2 AND e.id < $3)) ORDER BY e.created_at DESC, e.id DESC LIMIT $4`,
            [e.thread_id, e.created_at, e.id, before],
          )
        : [],
      after > 0
        ? this.db.query<EntryRow>(
            `SELECT ${ENTRY_COLUMNS} FROM memory_entries e ${ENTRY_JOIN} WHERE e.thread_id = $1 AND (e.created_at > $2 OR (e.created_at = $2 AND e.id > $3)) ORDER BY e.created_at, e.id LIMIT $4`,
            [e.thread_id, e.created_at, e.id, after],
          )
        : [],
    ]);
    return { before: b, after: a };
  }

  threads(): Promise<MemoryThreadRow[]> {
    return this.db.query<MemoryThreadRow>(
      `SELECT thread_id, count(*) AS entries, count(DISTINCT source) AS sources, count(*) FILTER (WHERE content_type = 'multimodal') AS multimodal,
              min(created_at) AS first, max(created_at) AS last, max(id) AS last_id
         FROM memory_entries GROUP BY thread_id ORDER BY last DESC, thread_id COLLATE "C"`,
    );
  }

  async counts(): Promise<MemoryCounts> {
    const r = await this.db.one<{ entries: number; threads: number; images: number; tags: number; fts: number; sources: Record<string, number> | null; types: Record<string, number> | null }>(
      `SELECT (SELECT count(*) FROM memory_entries) AS entries, (SELECT count(DISTINCT thread_id) FROM memory_entries) AS threads,
              (SELECT count(*) FROM memory_images) AS images, (SELECT count(DISTINCT tag) FROM memory_tags) AS tags,
              (SELECT count(*) FROM memory_fts) AS fts,
              (SELECT jsonb_object_agg(source, n) FROM (SELECT source, count(*) AS n FROM memory_entries GROUP BY source) s) AS sources,
              (SELECT jsonb_object_agg(content_type, n) FROM (SELECT content_type, count(*) AS n FROM memory_entries GROUP BY content_type) s) AS types`,
    );
    return { entries: r!.entries, threads: r!.threads, images: r!.images, uniqueTags: r!.tags, ftsRows: r!.fts, segments: 0, bySource: r!.sources ?? {}, byContentType: r!.types ?? {} };
  }

  async entriesAndThreads(): Promise<{ entries: number; threads: number }> {
    const r = await this.db.one<{ entries: number; threads: number }>('SELECT count(*) AS entries, count(DISTINCT thread_id) AS threads FROM memory_entries');
    return { entries: r?.entries ?? 0, threads: r?.threads ?? 0 };
  }

  /** Search metrics in one statement; the table is pruned back to the newest 10,000 now and then. */
  async recordSearches(rows: readonly MemorySearchMetric[], prune: boolean): Promise<void> {
    if (!rows.length) return;
    await this.db.query(
      `INSERT INTO memory_search_metrics (query_type, query_text, result_count, execution_time_ms, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::bigint[])`,
      [rows.map((r) => r.type), rows.map((r) => r.query), rows.map((r) => r.results), rows.map((r) => r.ms), rows.map((r) => r.at)],
    );
    if (prune) await this.db.query(`DELETE FROM memory_search_metrics WHERE id <= (SELECT max(id) FROM memory_search_metrics) - ${METRICS_KEPT}`);
  }

  searches(): Promise<{ type: string; count: number; avg: number; last: number | null }[]> {
    return this.db.query(
      'SELECT query_type AS type, count(*) AS count, avg(execution_time_ms)::float8 AS avg, max(created_at) AS last FROM memory_search_metrics GROUP BY query_type ORDER BY query_type COLLATE "C"',
    );
  }

  private async setTags(on: Queryable, id: number, tags: readonly string[], replace: boolean): Promise<void> {
    if (replace) await on.query('DELETE FROM memory_tags WHERE entry_id = $1', [id]);
    if (tags.length) await on.query('INSERT INTO memory_tags (entry_id, tag) SELECT $1, t FROM unnest($2::text[]) t ON CONFLICT DO NOTHING', [id, tags]);
  }

  private async setImages(on: Queryable, id: number, images: readonly DecodedImage[], replace: boolean): Promise<void> {
    if (replace) await on.query('DELETE FROM memory_images WHERE entry_id = $1', [id]);
    for (const [i, img] of images.entries()) {
      await on.query('INSERT INTO memory_images (entry_id, position, mime_type, bytes, data) VALUES ($1, $2, $3, $4, $5)', [id, i, img.mimeType, img.data.length, img.data]);
    }
  }

  /** Same text, new title: the keyword rows are made again (chunks and their vectors stay). */
  private async retitle(on: Queryable, documentId: number, text: string, ftsTitle: string): Promise<void> {
    const chunks = (await on.query<{ id: number; char_start: number; char_end: number }>('SELECT id, char_start, char_end FROM chunks WHERE document_id = $1 ORDER BY ordinal', [documentId])).rows;
    const ids = chunks.map((c) => c.id);
    await on.query('DELETE FROM memory_fts WHERE chunk_id = ANY($1::bigint[])', [ids]); // their postings with them (a trigger)
    await this.keyword.write(chunks.map((c) => ({ id: c.id, title: ftsTitle, headings: '', body: toIndexText(text.slice(c.char_start, c.char_end)) })), on);
  }

  /** pg_unicode_fast (PostgreSQL 18) lower-cases as JavaScript does; else pg_c_utf8 (17), else the database's own. */
  private foldOptions(): Promise<PgMetadataOptions> {
    this.fold ??= this.db
      .query<{ collname: string }>("SELECT collname FROM pg_collation WHERE collname IN ('pg_unicode_fast', 'pg_c_utf8')")
      .then((rows) => {
        const names = rows.map((r) => r.collname);
        return { foldCollation: names.includes('pg_unicode_fast') ? 'pg_unicode_fast' : names.includes('pg_c_utf8') ? 'pg_c_utf8' : null };
      });
    this.fold.catch(() => (this.fold = null));
    return this.fold;
  }
}

