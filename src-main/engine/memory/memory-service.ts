// The agent memory room: what Engine.memory hands out (MemoryApi). Entries live in the `~memory`
// collection (created on first write) and are searched by the documents' own keyword, vector,
// fusion and rerank code over their own keyword index (memory_fts) and vector partition; this
// class checks input (entry-input.ts, memory-filters.ts, metadata-filter.ts, search-request.ts),
// decides updates (entry-update.ts), pages and shapes the answers (entry-view.ts,
// search-response.ts), and hands each write to the storage's memory repository as one
// transaction. It tells the engine when memory changed (background embedding, idle index merging).
import { invalidInput, notFound } from '../errors.js';
import type { EmbeddingService } from '../embed/embeddings.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import { KeywordSearch } from '../search/keyword-search.js';
import { PageAnchors } from '../search/page-anchors.js';
import type { MemoryRepository, MemorySearchMetric, Storage } from '../store/storage.js';
import { isoTime } from './dates.js';
import { checkDelete, checkEntry, checkId, checkThreadId, checkUpdate, type EntryWrite, type UpdateWrite } from './entry-input.js';
import type { EntryRow } from '../store/memory-rows.js';
import { entryChunks, titleOf } from './entry-text.js';
import { planUpdate } from './entry-update.js';
import { imagesByEntry, toEntry } from './entry-view.js';
import { checkFilterValues } from './memory-filters.js';
import { MEMORY_COLLECTION, ms, MemorySearch } from './memory-search.js';
import { checkUpdateBatch, planStoreBatch, planUpdateBatch, storeBatchResult, updateBatchResult } from './batch-plan.js';
import { checkSearch } from './search-request.js';
import { memoryResponse, metricType } from './search-response.js';
import { checkImportLines, exportLine, IMPORT_BATCH, sameEntry, type EntryTimes } from './transfer.js';
import type {
  MemoryApi,
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


const METRICS_FLUSH_MS = 1000;
const METRICS_FLUSH_ROWS = 200;
const EXPORT_PAGE = 200;

export interface MemoryDeps {
  storage: Storage;
  embeddings: EmbeddingService;
  chunking: ChunkOptions;
  /** Memory changed on this host: embed in the background, merge its keyword index when idle. */
  changed: () => void;
}

export class MemoryService implements MemoryApi {
  private readonly searcher: MemorySearch;
  private readonly memory: MemoryRepository;
  /** Bumped whenever memory changes (here or on another host): the memory index's caches (term counts, texts) key on it. */
  private generation = 0;
  private collectionId: Promise<number | null> | null = null;
  private pending: MemorySearchMetric[] = [];
  private recorded = 0;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: MemoryDeps) {
    this.memory = deps.storage.memory;
    const keyword = new KeywordSearch(deps.storage, new PageAnchors(deps.storage), 'memory_fts');
    this.searcher = new MemorySearch(deps.storage, keyword, deps.embeddings);
  }

  /** Memory changed on this host: its caches start over; the engine embeds and merges in the background. */
  private changed(): void {
    this.generation++;
    this.deps.changed();
  }

  /**
   * Another host changed the index: memory's caches start over when the change may be memory's —
   * its collection, one a notice does not name, or any before this host knows memory's collection.
   * True when it may have been (the engine then has memory embedded here too).
   */
  async remoteChange(collectionId: number | null): Promise<boolean> {
    const mine = collectionId === null || (await this.existingCollection().then((id) => id === null || id === collectionId, () => true));
    if (mine) this.generation++;
    return mine;
  }

  // ---- writes ------------------------------------------------------------------------------

  async store(input: MemoryEntryInput): Promise<MemoryWriteResult> {
    const w = checkEntry(input);
    const [id] = await this.insert([w]);
    return { id: id!, threadId: w.threadId };
  }

  async storeBatch(inputs: readonly MemoryEntryInput[], opts: { atomic?: boolean } = {}): Promise<MemoryBatchResult> {
    const { checked, writes } = planStoreBatch(inputs, opts.atomic ?? true);
    return storeBatchResult(checked, writes.length ? await this.insert(writes) : []);
  }

  async update(input: MemoryUpdateInput): Promise<MemoryUpdateResult> {
    const u = checkUpdate(input, 'update');
    const [w] = await this.rewrite([u], () => {
      throw notFound(`context entry ${u.id} not found`);
    });
    return { id: u.id, updatedFields: w!.fields };
  }

  async updateBatch(inputs: readonly MemoryUpdateInput[], opts: { atomic?: boolean } = {}): Promise<MemoryBatchResult> {
    const atomic = opts.atomic ?? true;
    const checked = checkUpdateBatch(inputs);
    const present = new Set((await this.memory.byIds(checked.flatMap((c) => (c.value ? [c.value.id] : [])))).map((r) => r.id));
    const writes = planUpdateBatch(checked, present, atomic);
    if (!writes.length) return updateBatchResult(inputs, checked, []);
    // another host may delete an entry between that read and the write: inside the write's
    // transaction an atomic batch then fails whole, and a per-item one fails that item alone
    const inputOf = writes.map((w) => checked.findIndex((c) => c.value === w));
    const gone = (write: number) => `updates[${inputOf[write]}]: context entry ${writes[write]!.id} not found`;
    const rewritten = await this.rewrite(writes, (write) => {
      if (atomic) throw notFound(`nothing was updated (the batch is atomic): ${gone(write)}`);
      return null;
    });
    rewritten.forEach((w, write) => {
      if (!w) Object.assign(checked[inputOf[write]!]!, { value: null, error: gone(write) });
    });
    return updateBatchResult(inputs, checked, rewritten.flatMap((w) => (w ? [w.fields] : [])));
  }

  async delete(criteria: MemoryDeleteCriteria): Promise<MemoryDeleteResult> {
    const c = checkDelete(criteria, Date.now());
    const deleted = await this.memory.remove(c);
    if (deleted) this.changed();
    return { deleted, criteria: c.used };
  }

  // ---- reads -------------------------------------------------------------------------------

  async get(ids: readonly number[], opts: { includeImages?: boolean } = {}): Promise<MemoryEntry[]> {
    if (!Array.isArray(ids) || !ids.length) throw invalidInput('context_ids must be a non-empty list of ids');
    if (ids.length > 1000) throw invalidInput('at most 1000 ids at once');
    ids.forEach((id, i) => checkId(id, `context_ids[${i}]`));
    const rows = new Map((await this.memory.byIds([...new Set(ids)])).map((r) => [r.id, r]));
    const found = [...new Set(ids)].flatMap((id) => rows.get(id) ?? []);
    return this.view(found, opts.includeImages ?? true, true);
  }

  async list(req: MemoryListRequest = {}): Promise<MemoryPage> {
    const t0 = performance.now();
    const limit = checkRange(req.limit ?? 30, 1, 100, 'limit');
    const offset = checkRange(req.offset ?? 0, 0, 10_000_000, 'offset');
    const { rows, total } = await this.memory.list(checkFilterValues(req), limit, offset);
    const hasMore = offset + rows.length < total;
    return { entries: await this.view(rows, req.includeImages ?? false, true), total, hasMore, nextOffset: hasMore ? offset + rows.length : null, tookMs: ms(t0) };
  }

  async search(request: MemorySearchRequest): Promise<MemorySearchResponse> {
    const t0 = performance.now();
    const req = checkSearch(request);
    const clause = await this.memory.searchClause(checkFilterValues(request));
    const ranked = await this.searcher.run(req, clause ? { extra: clause } : {}, await this.existingCollection(), this.generation);
    const rows = new Map((await this.memory.byDocuments(ranked.page.map((p) => p.documentId))).map((row) => [row.document_id, row]));
    const present = ranked.page.filter((p) => rows.has(p.documentId)); // an entry deleted meanwhile drops out
    const entries = await this.view(present.map((p) => rows.get(p.documentId)!), req.includeImages, false);
    const totalMs = ms(t0);
    const response = memoryResponse(req, ranked, present, entries, totalMs);
    this.record({ type: metricType(req.mode), query: req.query.slice(0, 1000), results: response.hits.length, ms: Math.round(totalMs * 1000) / 1000, at: Date.now() });
    return response;
  }

  async threads(): Promise<MemoryThread[]> {
    return (await this.memory.threads()).map((r) => ({
      threadId: r.thread_id,
      entries: r.entries,
      sourceTypes: r.sources,
      multimodal: r.multimodal,
      firstEntry: isoTime(r.first),
      lastEntry: isoTime(r.last),
      lastId: r.last_id,
    }));
  }

  async statistics(): Promise<MemoryStatistics> {
    await this.flush();
    const [c, id, bytes, searches] = await Promise.all([this.memory.counts(), this.existingCollection(), this.deps.storage.stats.databaseBytes(), this.memory.searches()]);
    const emb = id === null ? null : await this.deps.embeddings.collectionStatus(id, MEMORY_COLLECTION);
    const space = await this.searcher.space(id);
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
        dimensions: typeof space !== 'string' ? space.dims : null,
        chunks: c.ftsRows,
        vectors: emb?.vectors ?? 0,
        pendingChunks: emb ? emb.needsEmbedding : c.ftsRows,
        problem: typeof space === 'string' ? space : null,
      },
      keyword: { indexedEntries: c.entries, chunks: c.ftsRows, segments: c.segments },
      reranker: this.deps.embeddings.models.rerankModelId(),
      searches: searches.map((r) => ({ type: r.type, count: r.count, avgMs: Math.round(r.avg * 1000) / 1000, lastAt: r.last === null ? null : isoTime(r.last) })),
    };
  }

  async summary(): Promise<{ entries: number; threads: number; needsEmbedding: number }> {
    const [counts, id] = await Promise.all([this.memory.entriesAndThreads(), this.existingCollection()]);
    if (id === null) return { ...counts, needsEmbedding: 0 };
    return { ...counts, needsEmbedding: (await this.deps.embeddings.collectionStatus(id, MEMORY_COLLECTION)).needsEmbedding };
  }

  async context(id: number, opts: { before?: number; after?: number } = {}): Promise<MemoryContext> {
    checkId(id, 'id');
    const row = (await this.memory.byIds([id]))[0];
    if (!row) throw notFound(`context entry ${id} not found`);
    const around = await this.memory.around(row, checkRange(opts.before ?? 2, 0, 50, 'before'), checkRange(opts.after ?? 2, 0, 50, 'after'));
    const [entry, ...rest] = await this.view([row, ...around.before.reverse(), ...around.after], false, false);
    return { entry: entry!, before: rest.slice(0, around.before.length), after: rest.slice(around.before.length) };
  }

  /** Every entry (or one thread's), oldest first, with images (memory/transfer.ts's lines). */
  async *export(opts: { threadId?: string } = {}): AsyncGenerator<MemoryExportLine> {
    const threadId = opts.threadId === undefined ? undefined : checkThreadId(opts.threadId, 'thread');
    for (let after = 0; ; ) {
      const rows = await this.memory.exportPage(threadId, after, EXPORT_PAGE);
      if (!rows.length) return;
      const images = imagesByEntry(await this.memory.images(rows.map((r) => r.id), true));
      for (const row of rows) yield exportLine(row, images.get(row.id) ?? []);
      after = rows[rows.length - 1]!.id;
    }
  }

  /** memory/transfer.ts's import: every line checked first (nothing written if one is bad), entries already present skipped, times kept. */
  async import(lines: readonly unknown[]): Promise<MemoryImportReport> {
    const checked = checkImportLines(lines);
    let imported = 0;
    let skipped = 0;
    for (let i = 0; i < checked.length; i += IMPORT_BATCH) {
      const fresh: typeof checked = [];
      for (const c of checked.slice(i, i + IMPORT_BATCH)) {
        const seen = (await this.memory.same(c.write.threadId, c.times.createdAt, c.write.source, c.write.text)) !== undefined || fresh.some((f) => sameEntry(f, c));
        if (seen) skipped++;
        else fresh.push(c);
      }
      if (fresh.length) await this.insert(fresh.map((f) => f.write), fresh.map((f) => f.times));
      imported += fresh.length;
    }
    return { imported, skipped };
  }

  /** The `~memory` collection's id, or null before the first entry (memory-service.ts's existingCollection). */
  existingCollection(): Promise<number | null> {
    const read = (this.collectionId ??= this.deps.storage.collections.get(MEMORY_COLLECTION, ['memory']).then((c) => c?.id ?? null));
    read.then(
      (id) => id === null && this.collectionId === read && (this.collectionId = null), // created later, maybe by another host
      () => this.collectionId === read && (this.collectionId = null),
    );
    return read;
  }

  /** Writes the search metrics still held (before reading them, and when the engine closes). */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (!this.pending.length) return;
    const rows = this.pending;
    this.pending = [];
    await this.memory.recordSearches(rows, Math.floor(this.recorded / 500) !== Math.floor((this.recorded - rows.length) / 500));
  }

  // ---- helpers -----------------------------------------------------------------------------

  private async insert(writes: readonly EntryWrite[], times?: readonly EntryTimes[]): Promise<number[]> {
    const collectionId = await this.ensureCollection();
    const now = Date.now();
    const ids = await this.memory.insert(
      collectionId,
      writes.map((w, i) => {
        const title = titleOf(w.metadata);
        return {
          threadId: w.threadId,
          source: w.source,
          text: w.text,
          title,
          size: Buffer.byteLength(w.text),
          tags: w.tags,
          tagsJson: JSON.stringify(w.tags),
          metadataJson: w.metadataJson,
          images: w.images,
          chunks: entryChunks(w.text, title, this.deps.chunking),
          createdAt: times?.[i]?.createdAt ?? now,
          updatedAt: times?.[i]?.updatedAt ?? now,
        };
      }),
    );
    this.changed();
    return ids;
  }

  /** Writes the updates in one transaction; `missing` decides for an entry no longer there (throw: nothing is written; null: that one is left out). */
  private async rewrite(updates: readonly UpdateWrite[], missing: (index: number) => null) {
    const out = await this.memory.update(
      updates.map((u) => u.id),
      (row, i) => (row ? planUpdate(row, updates[i]!, this.deps.chunking) : missing(i)),
    );
    this.changed();
    return out;
  }

  private async ensureCollection(): Promise<number> {
    const id = await this.existingCollection();
    if (id !== null) return id;
    const { collections } = this.deps.storage;
    try {
      const row = await collections.insert({ name: MEMORY_COLLECTION, kind: 'memory', root: '', include: [], exclude: [], context: 'Agent memory: notes assistants stored' });
      this.collectionId = Promise.resolve(row.id);
      return row.id;
    } catch (err) {
      // another host created it first
      const row = await collections.get(MEMORY_COLLECTION, ['memory']);
      if (!row) throw err;
      this.collectionId = Promise.resolve(row.id);
      return row.id;
    }
  }

  private record(m: MemorySearchMetric): void {
    this.pending.push(m);
    this.recorded++;
    if (this.pending.length >= METRICS_FLUSH_ROWS) void this.flush().catch(() => undefined);
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => void this.flush().catch(() => undefined), METRICS_FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /** Entries with their images (bytes only when asked) and, where asked, whether they wait for vectors. */
  private async view(rows: readonly EntryRow[], withImageData: boolean, pending: boolean): Promise<MemoryEntry[]> {
    const ids = rows.filter((r) => r.content_type === 'multimodal').map((r) => r.id);
    const [images, waiting] = await Promise.all([
      this.memory.images(ids, withImageData),
      pending ? this.deps.storage.vectors.documentsPending(rows.map((r) => r.document_id)) : null,
    ]);
    const byEntry = imagesByEntry(images);
    return rows.map((r) => ({ ...toEntry(r, byEntry.get(r.id)), ...(waiting ? { pendingEmbedding: waiting.has(r.document_id) } : {}) }));
  }
}

export function checkRange(v: unknown, min: number, max: number, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalidInput(`${name} must be a whole number from ${min} to ${max}`);
  return v;
}
