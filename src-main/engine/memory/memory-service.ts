// The agent memory room: what Engine.memory answers from (memory-api.ts). Entries live in the `~memory`
// collection (created on first write) and are searched by the documents' own keyword, vector,
// fusion and rerank code over their own keyword index (memory_fts) and vector partition; this
// class checks input, runs each write as one transaction, pages and shapes the answers, and
// tells the engine when memory changed (background embedding, idle index merging).
import fs from 'node:fs';
import { invalidInput, notFound } from '../errors.js';
import type { EmbeddingService } from '../embed/embeddings.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import { Anchors } from '../search/anchors.js';
import { LexicalSearch } from '../search/lexical.js';
import type { ChunkStore } from '../store/chunks.js';
import type { CollectionStore } from '../store/collections.js';
import type { Db } from '../store/database.js';
import type { DocumentStore } from '../store/documents.js';
import type {
  MemoryBatchResult,
  MemoryContext,
  MemoryDeleteCriteria,
  MemoryDeleteResult,
  MemoryEntry,
  MemoryEntryInput,
  MemoryExportLine,
  MemoryImportReport,
  MemoryListRequest,
  MemoryPage,
  MemorySearchRequest,
  MemorySearchResponse,
  MemoryStatistics,
  MemoryThread,
  MemoryUpdateInput,
  MemoryUpdateResult,
  MemoryWriteResult,
} from '../types/memory.js';
import { checkDelete, checkEntry, checkId, checkThreadId, checkUpdate } from './entry-input.js';
import { checkUpdateBatch, planStoreBatch, planUpdateBatch, storeBatchResult, updateBatchResult } from './batch-plan.js';
import { EntryStore, type EntryRow } from './entry-store.js';
import { imagesByEntry, toEntry } from './entry-view.js';
import { memoryResponse, metricType } from './search-response.js';
import { fold } from './metadata-filter.js';
import { checkFilters, listingClause, searchClause } from './memory-filters.js';
import { MemorySearch, type RankedPage } from './memory-search.js';
import { MemoryStats } from './memory-stats.js';
import { MemoryWriter } from './memory-writer.js';
import { checkSearch, type CheckedSearch } from './search-request.js';
import { exportLines, importLines } from './transfer.js';

export const MEMORY_COLLECTION = '~memory';

export interface MemoryDeps {
  db: Db;
  databaseFile: string;
  collections: CollectionStore;
  documents: DocumentStore;
  /** The ChunkStore family; memory writes its memory_fts sibling. */
  chunks: ChunkStore;
  embeddings: EmbeddingService;
  chunking: ChunkOptions;
  /** Memory changed: embed in the background, merge its keyword index when idle. */
  changed: () => void;
}

export class MemoryService {
  private readonly entries: EntryStore;
  private readonly writer: MemoryWriter;
  private readonly stats: MemoryStats;
  private readonly lexical: LexicalSearch;
  private readonly searcher: MemorySearch;
  /** Bumped on every memory write: the memory index's caches (planner counts, texts) key on it. */
  private generation = 0;
  private collectionId: number | null = null;

  constructor(private readonly deps: MemoryDeps) {
    const { db } = deps;
    // case-insensitive metadata comparisons fold with JavaScript's Unicode lower-casing (SQLite's lower() is ASCII only)
    db.function('trove_fold', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));
    this.entries = new EntryStore(db);
    this.stats = new MemoryStats(db);
    this.lexical = new LexicalSearch(db, new Anchors(db), 'memory_fts');
    this.searcher = new MemorySearch(db, deps.embeddings, this.lexical);
    this.writer = new MemoryWriter({
      db,
      documents: deps.documents,
      chunks: deps.chunks.forIndex('memory_fts'),
      entries: this.entries,
      chunking: deps.chunking,
      collectionId: () => this.ensureCollection(),
    });
  }

  // ---- writes ------------------------------------------------------------------------------

  store(input: MemoryEntryInput): MemoryWriteResult {
    const w = checkEntry(input);
    const [id] = this.writer.insert([w]);
    this.changed();
    return { id: id!, threadId: w.threadId };
  }

  storeBatch(inputs: readonly MemoryEntryInput[], opts: { atomic?: boolean } = {}): MemoryBatchResult {
    const { checked, writes } = planStoreBatch(inputs, opts.atomic ?? true);
    const ids = writes.length ? this.writer.insert(writes) : [];
    if (ids.length) this.changed();
    return storeBatchResult(checked, ids);
  }

  update(input: MemoryUpdateInput): MemoryUpdateResult {
    const u = checkUpdate(input, 'update');
    const [fields] = this.writer.update([u]);
    this.changed();
    return { id: u.id, updatedFields: fields! };
  }

  updateBatch(inputs: readonly MemoryUpdateInput[], opts: { atomic?: boolean } = {}): MemoryBatchResult {
    const checked = checkUpdateBatch(inputs);
    const present = new Set(this.entries.byIds(checked.flatMap((c) => (c.value ? [c.value.id] : []))).map((r) => r.id));
    const writes = planUpdateBatch(checked, present, opts.atomic ?? true);
    const fields = writes.length ? this.writer.update(writes) : [];
    if (writes.length) this.changed();
    return updateBatchResult(inputs, checked, fields);
  }

  delete(criteria: MemoryDeleteCriteria): MemoryDeleteResult {
    const c = checkDelete(criteria, Date.now());
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
    const deleted = this.writer.remove(this.entries.matching(where.join(' AND '), params));
    if (deleted) this.changed();
    return { deleted, criteria: c.used };
  }

  // ---- reads -------------------------------------------------------------------------------

  get(ids: readonly number[], opts: { includeImages?: boolean } = {}): MemoryEntry[] {
    if (!Array.isArray(ids) || !ids.length) throw invalidInput('context_ids must be a non-empty list of ids');
    if (ids.length > 1000) throw invalidInput('at most 1000 ids at once');
    ids.forEach((id, i) => checkId(id, `context_ids[${i}]`));
    const rows = new Map(this.entries.byIds([...new Set(ids)]).map((r) => [r.id, r]));
    const found = [...new Set(ids)].flatMap((id) => rows.get(id) ?? []);
    return this.view(found, opts.includeImages ?? true, true);
  }

  list(req: MemoryListRequest = {}): MemoryPage {
    const t0 = performance.now();
    const limit = checkRange(req.limit ?? 30, 1, 100, 'limit');
    const offset = checkRange(req.offset ?? 0, 0, 10_000_000, 'offset');
    const where = listingClause(checkFilters(req));
    const { rows, total } = this.entries.list(where.where, where.params, limit, offset);
    const hasMore = offset + rows.length < total;
    return { entries: this.view(rows, req.includeImages ?? false, true), total, hasMore, nextOffset: hasMore ? offset + rows.length : null, tookMs: ms(t0) };
  }

  search(request: MemorySearchRequest): MemorySearchResponse | Promise<MemorySearchResponse> {
    const t0 = performance.now();
    const req = checkSearch(request);
    const clause = searchClause(checkFilters(request), (where, params, cap) => this.entries.countUpTo(where, params, cap));
    const filters = clause ? { extra: clause } : {};
    const ranked = this.searcher.run(req, filters, this.existingCollection(), this.generation);
    if (ranked instanceof Promise) {
      const p = ranked.then((r) => this.answer(req, r, t0));
      p.catch(() => undefined); // the caller gets the rejection
      return p;
    }
    return this.answer(req, ranked, t0);
  }

  private answer(req: CheckedSearch, r: RankedPage, t0: number): MemorySearchResponse {
    const rows = new Map(this.entries.byDocuments(r.page.map((p) => p.documentId)).map((row) => [row.document_id, row]));
    const present = r.page.filter((p) => rows.has(p.documentId)); // an entry deleted meanwhile drops out
    const entries = this.view(present.map((p) => rows.get(p.documentId)!), req.includeImages, false);
    const totalMs = ms(t0);
    const response = memoryResponse(req, r, present, entries, totalMs);
    this.stats.record(metricType(req.mode), req.query, response.hits.length, totalMs);
    return response;
  }

  threads(): MemoryThread[] {
    return this.stats.threads();
  }

  statistics(): MemoryStatistics {
    const c = this.stats.counts();
    const id = this.existingCollection();
    const emb = id === null ? null : this.deps.embeddings.collectionStatus(id, MEMORY_COLLECTION);
    const space = id === null ? null : this.searcher.space(id);
    let bytes = 0;
    for (const suffix of ['', '-wal']) {
      try {
        bytes += fs.statSync(this.deps.databaseFile + suffix).size;
      } catch {
        /* no WAL yet */
      }
    }
    return {
      entries: c.entries,
      threads: c.threads,
      bySource: c.bySource,
      byContentType: c.byContentType,
      images: c.images,
      uniqueTags: c.uniqueTags,
      databaseBytes: bytes,
      semantic: {
        model: emb?.model ?? null,
        dimensions: space && typeof space !== 'string' ? space.dims : null,
        chunks: c.ftsRows,
        vectors: emb?.vectors ?? 0,
        pendingChunks: emb ? emb.needsEmbedding : c.ftsRows,
        problem: typeof space === 'string' ? space : null,
      },
      keyword: { indexedEntries: c.entries, chunks: c.ftsRows, segments: c.segments },
      reranker: this.deps.embeddings.rerankModelId(),
      searches: this.stats.searches(),
    };
  }

  summary(): { entries: number; threads: number; needsEmbedding: number } {
    const id = this.existingCollection();
    const pending = id === null ? 0 : this.deps.embeddings.collectionStatus(id, MEMORY_COLLECTION).needsEmbedding;
    return { ...this.stats.entriesAndThreads(), needsEmbedding: pending };
  }

  context(id: number, opts: { before?: number; after?: number } = {}): MemoryContext {
    checkId(id, 'id');
    const row = this.entries.byIds([id])[0];
    if (!row) throw notFound(`context entry ${id} not found`);
    const around = this.entries.around(row, checkRange(opts.before ?? 2, 0, 50, 'before'), checkRange(opts.after ?? 2, 0, 50, 'after'));
    const [entry, ...rest] = this.view([row, ...around.before.reverse(), ...around.after], false, false);
    return { entry: entry!, before: rest.slice(0, around.before.length), after: rest.slice(around.before.length) };
  }

  export(opts: { threadId?: string } = {}): Iterable<MemoryExportLine> {
    return exportLines(this.entries, opts.threadId === undefined ? undefined : checkThreadId(opts.threadId, 'thread'));
  }

  import(lines: readonly unknown[]): MemoryImportReport {
    const report = importLines(lines, this.entries, this.writer);
    if (report.imported) this.changed();
    return report;
  }

  /** Writes what is still held in memory (search metrics); call before the database closes. */
  close(): void {
    this.stats.flush();
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** Entries with their images (bytes only when asked) and, where asked, whether they wait for vectors. */
  private view(rows: readonly EntryRow[], withImageData: boolean, pending: boolean): MemoryEntry[] {
    const ids = rows.filter((r) => r.content_type === 'multimodal').map((r) => r.id);
    const images = imagesByEntry(this.entries.images(ids, withImageData));
    const waiting = pending ? this.deps.embeddings.vectors.documentsPending(rows.map((r) => r.document_id)) : null;
    return rows.map((r) => ({ ...toEntry(r, images.get(r.id)), ...(waiting ? { pendingEmbedding: waiting.has(r.document_id) } : {}) }));
  }

  private existingCollection(): number | null {
    this.collectionId ??= this.deps.collections.get(MEMORY_COLLECTION, ['memory'])?.id ?? null;
    return this.collectionId;
  }

  private ensureCollection(): number {
    const id = this.existingCollection();
    if (id !== null) return id;
    const row = this.deps.collections.insert({ name: MEMORY_COLLECTION, kind: 'memory', root: '', include: [], exclude: [], context: 'Agent memory: notes assistants stored' });
    this.collectionId = row.id;
    return row.id;
  }

  private changed(): void {
    this.generation++;
    this.deps.changed();
  }
}

export function checkRange(v: unknown, min: number, max: number, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalidInput(`${name} must be a whole number from ${min} to ${max}`);
  return v;
}

function ms(since: number): number {
  return Math.round((performance.now() - since) * 1000) / 1000;
}
