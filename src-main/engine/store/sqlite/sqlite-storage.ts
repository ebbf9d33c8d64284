// The SQLite backend as one Storage (store/storage.ts): the store modules as they have always
// been — statements prepared once, multi-row writes in one transaction, FTS rows last, vectors
// dropped by ChunkStore's delete hooks — answered through resolved promises. One profile file,
// one host: there are no other hosts' changes to hear about.
import { registerFilterFunctions } from './filters.js';
import type { ResolvedFilters } from '../filters.js';
import { filterSql } from './filters.js';
import { ChunkStore, chunkFromRaw, type ChunkRow, type RawChunk } from '../chunks.js';
import { CollectionStore, type CollectionKind, type CollectionRow } from '../collections.js';
import { DatasetCheckStore, DatasetFolderStore } from '../dataset-folders.js';
import { databaseFileBytes, openDatabase, storageError, type Db } from '../database.js';
import type { TroveError } from '../../errors.js';
import type { TextRange, TextWindow } from '../content-blocks.js';
import { DocumentStore, hitDocumentFromRaw, type DocumentFingerprint, type DocumentRow, type HitDocument, type RawHitDocument } from '../documents.js';
import { JobStore } from '../jobs.js';
import { keywordIndexOf, type KeywordIndex } from '../keyword-index.js';
import type { RankExtensionOptions } from '../rank-extension.js';
import { StatsStore, type CollectionCounts, type FailureRow } from '../stats.js';
import type { RowReader } from '../row-reader.js';
import type {
  ChangeFeed,
  ChunkRepository,
  CollectionRepository,
  DatasetTables,
  DocumentRepository,
  Maintenance,
  Storage,
  StatsRepository,
  TokenRepository,
  VectorRepository,
} from '../storage.js';
import { TokenStore, type TokenRow } from '../tokens.js';
import { VectorStore, type CollectionVectors, type PendingChunk, type VectorMatch, type VectorRow, type VectorSpace } from '../vectors.js';
import path from 'node:path';
import { FtsMerges } from '../fts-merge.js';
import { WalCheckpointer } from '../wal-checkpointer.js';
import { AnnSpaces } from './ann-spaces.js';
import { SqliteJobQueue } from './jobs.js';
import { SqliteNearest } from './nearest.js';
import { SqliteKeywordIndex } from './keyword.js';
import { SqliteMemory } from './memory.js';
import { OcrRows, SqliteOcr } from './ocr.js';
import { ReaderPool } from './reader-pool.js';
import { fold } from '../memory-conditions.js';

class Collections implements CollectionRepository {
  constructor(
    private readonly db: Db,
    private readonly store: CollectionStore,
    private readonly chunks: ChunkStore,
    private readonly jobs: JobStore,
  ) {}
  async get(name: string, kinds?: readonly CollectionKind[]): Promise<CollectionRow | undefined> {
    return this.store.get(name, kinds);
  }
  async nameTaken(name: string): Promise<boolean> {
    return this.store.nameTaken(name);
  }
  async byId(id: number): Promise<CollectionRow | undefined> {
    return this.store.byId(id);
  }
  async list(kinds?: readonly CollectionKind[]): Promise<CollectionRow[]> {
    return this.store.list(kinds);
  }
  async insert(c: Parameters<CollectionStore['insert']>[0]): Promise<CollectionRow> {
    return this.store.insert(c);
  }
  async rename(id: number, name: string): Promise<void> {
    this.store.rename(id, name);
  }
  async setContext(id: number, context: string): Promise<void> {
    this.store.setContext(id, context);
  }
  async setRedactSecrets(id: number, value: boolean | null): Promise<void> {
    this.store.setRedactSecrets(id, value);
  }
  async setOcrLanguages(id: number, languages: string[] | null): Promise<void> {
    this.store.setOcrLanguages(id, languages);
  }
  async markIndexed(id: number, at: number): Promise<void> {
    this.store.markIndexed(id, at);
  }
  async remove(id: number): Promise<void> {
    const kind = this.store.byId(id)?.kind ?? 'folder';
    this.db.transaction(() => {
      this.jobs.deleteForCollection(id);
      // keyword rows and vectors first (no triggers: see store/chunks.ts), then the cascade
      this.chunks.forIndex(keywordIndexOf(kind)).deleteForCollection(id);
      this.store.delete(id);
    })();
  }
}

class Documents implements DocumentRepository {
  constructor(
    private readonly store: DocumentStore,
    /**
     * Texts and a collection's paths are read on a reader thread when the pool runs: a document's
     * text is 31 KB on average in cpp-docs, megabytes for a big one; its 9,700 paths ~5 ms. Many
     * ids go as one JSON array: one statement, one round trip to a reader thread.
     */
    private readonly readers: ReaderPool,
  ) {}
  async fingerprints(collectionId: number): Promise<DocumentFingerprint[]> {
    return this.store.fingerprints(collectionId);
  }
  async byPath(collectionId: number, path: string): Promise<DocumentRow | undefined> {
    return this.store.byPath(collectionId, path);
  }
  async byPaths(collectionId: number, paths: readonly string[]): Promise<Map<string, DocumentRow>> {
    const out = new Map<string, DocumentRow>();
    for (const p of paths) {
      const d = this.store.byPath(collectionId, p);
      if (d) out.set(p, d);
    }
    return out;
  }
  async byHashes(collectionId: number, hashes: readonly string[]): Promise<Map<string, DocumentFingerprint[]>> {
    const out = new Map<string, DocumentFingerprint[]>();
    for (const h of new Set(hashes)) {
      const found = this.store.byHash(collectionId, h);
      if (found.length) out.set(h, found);
    }
    return out;
  }
  async byDocid(docid: string): Promise<DocumentRow | undefined> {
    return this.store.byDocid(docid);
  }
  async byId(id: number): Promise<DocumentRow | undefined> {
    return this.store.byId(id);
  }
  async forHits(ids: readonly number[]): Promise<Map<number, HitDocument>> {
    if (!ids.length) return new Map();
    const rows = await this.readers.run<RawHitDocument[]>(this.store.hitsStmt, [JSON.stringify([...new Set(ids)])]);
    return new Map(rows.map((r) => [r.id, hitDocumentFromRaw(r)]));
  }
  async indexedCount(collectionId: number): Promise<number> {
    return this.store.indexedCount(collectionId);
  }
  async indexedPaths(collectionId: number, folder?: string): Promise<string[]> {
    const rows = folder === undefined
      ? await this.readers.run<{ path: string }[]>(this.store.pathsStmt, [collectionId])
      : await this.readers.run<{ path: string }[]>(this.store.pathsUnderStmt, [{ c: collectionId, folder, from: `${folder}/`, to: `${folder}0` }]);
    return rows.map((r) => r.path);
  }
  async indexedDocuments(collectionId: number): Promise<DocumentRow[]> {
    return this.store.indexedDocuments(collectionId);
  }
  async docidsTaken(candidates: readonly string[]): Promise<Set<string>> {
    return new Set(candidates.filter((c) => this.store.docidTaken(c)));
  }
  async content(id: number): Promise<string | undefined> {
    return (await this.readers.run<{ text: string | null } | undefined>(this.store.contentStmt, [id], 'get'))?.text ?? undefined;
  }
  async contents(ids: readonly number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const rows = await this.readers.run<{ id: number; text: string }[]>(this.store.contentsStmt, [JSON.stringify([...new Set(ids)])]);
    return new Map(rows.map((r) => [r.id, r.text]));
  }
  async windows(ranges: readonly TextRange[]): Promise<(TextWindow | undefined)[]> {
    if (!ranges.length) return [];
    const json = JSON.stringify(ranges.map((r) => [r.id, Math.max(0, r.from), Math.max(0, r.to)]));
    const found = await this.readers.run<Map<number, TextWindow>>(this.store.windowsStmt, [json], 'windows');
    return ranges.map((_, i) => found.get(i));
  }
  async chunkWindows(chunkIds: readonly number[]): Promise<Map<number, TextWindow>> {
    if (!chunkIds.length) return new Map();
    return this.readers.run<Map<number, TextWindow>>(this.store.chunkWindowsStmt, [JSON.stringify([...new Set(chunkIds)])], 'windows');
  }
  async languageSample(collectionId: number, sample: { documents: number; chars: number }): Promise<string[]> {
    return this.store.languageSample(collectionId, sample);
  }
}

class Chunks implements ChunkRepository {
  constructor(
    private readonly store: ChunkStore,
    /** A page's chunks are read with its texts (page-anchors.ts): one message to a reader thread carries both. */
    private readonly readers: ReaderPool,
  ) {}
  async byId(id: number): Promise<ChunkRow | undefined> {
    return this.store.byId(id);
  }
  async byIds(ids: readonly number[]): Promise<Map<number, ChunkRow>> {
    if (!ids.length) return new Map();
    const rows = await this.readers.run<RawChunk[]>(this.store.byIdsStmt, [JSON.stringify([...new Set(ids)])]);
    return new Map(rows.map((r) => [r.id, chunkFromRaw(r)]));
  }
  async forDocument(documentId: number): Promise<ChunkRow[]> {
    return this.store.forDocument(documentId);
  }
}

class Tokens implements TokenRepository {
  constructor(private readonly store: TokenStore) {}
  async insert(t: Parameters<TokenStore['insert']>[0]): Promise<TokenRow> {
    return this.store.insert(t);
  }
  async bySecret(secret: string): Promise<TokenRow | undefined> {
    return this.store.bySecret(secret);
  }
  async byName(name: string): Promise<TokenRow | undefined> {
    return this.store.byName(name);
  }
  async list(): Promise<TokenRow[]> {
    return this.store.list();
  }
  async delete(id: number): Promise<void> {
    this.store.delete(id);
  }
  async touch(id: number, now?: number): Promise<void> {
    this.store.touch(id, now);
  }
}

class Stats implements StatsRepository {
  constructor(
    private readonly store: StatsStore,
    private readonly file: string,
    private readonly read: RowReader,
  ) {}
  async counts(): Promise<Map<number, CollectionCounts>> {
    return this.store.counts(this.read);
  }
  async kindExists(kind: string): Promise<boolean> {
    return this.store.kindExists(kind);
  }
  async failures(collectionId: number, limit: number): Promise<FailureRow[]> {
    return this.store.failures(collectionId, limit);
  }
  async chunkCount(collectionId: number): Promise<number> {
    return this.store.chunkCount(collectionId, this.read);
  }
  async databaseBytes(): Promise<number> {
    return databaseFileBytes(this.file);
  }
}

class Vectors implements VectorRepository {
  private readonly claims = new Map<number, Set<number>>();
  constructor(
    readonly store: VectorStore,
    private readonly search: SqliteNearest,
    readonly ann: AnnSpaces,
    private readonly read: RowReader,
  ) {}
  async space(id: number): Promise<VectorSpace | undefined> {
    return this.store.space(id);
  }
  async ensureSpace(modelId: string, weightsSha256: string, dims: number): Promise<VectorSpace> {
    return this.store.ensureSpace(modelId, weightsSha256, dims);
  }
  async dropUnusedSpaces(): Promise<void> {
    this.store.dropUnusedSpaces();
  }
  async collection(collectionId: number): Promise<CollectionVectors> {
    return this.store.collection(collectionId);
  }
  async setModelChoice(collectionId: number, modelId: string | null): Promise<void> {
    this.store.setModelChoice(collectionId, modelId);
  }
  async setActive(collectionId: number, spaceId: number | null): Promise<void> {
    this.store.setActive(collectionId, spaceId);
  }
  async setBuilding(collectionId: number, spaceId: number | null): Promise<void> {
    this.store.setBuilding(collectionId, spaceId);
  }
  async swap(collectionId: number): Promise<void> {
    this.store.swap(collectionId);
  }
  async pending(spaceId: number, collectionId: number, limit: number, after?: number): Promise<PendingChunk[]> {
    return this.store.pending(spaceId, collectionId, limit, after);
  }
  async pendingCount(spaceId: number, collectionId: number): Promise<number> {
    return this.store.pendingCount(spaceId, collectionId, this.read);
  }
  /**
   * One host: a claim only keeps the chunks a stage has in flight (read and queued, not yet
   * written) out of its next claim, so it can read one batch ahead (embedding-stage.ts); they
   * leave the pending list when written. Held in memory, by space.
   */
  async claimPending(spaceId: number, collectionId: number, limit: number, _now: number, _until: number, after = 0): Promise<PendingChunk[]> {
    const held = this.claims.get(spaceId) ?? new Set<number>();
    const chunks = this.store.pending(spaceId, collectionId, limit + held.size, after).filter((c) => !held.has(c.id)).slice(0, limit);
    for (const c of chunks) held.add(c.id);
    if (held.size) this.claims.set(spaceId, held);
    return chunks;
  }
  async releaseClaims(spaceId: number, chunkIds: readonly number[]): Promise<void> {
    const held = this.claims.get(spaceId);
    for (const id of chunkIds) held?.delete(id);
    if (held && held.size === 0) this.claims.delete(spaceId);
  }
  async size(spaceId: number): Promise<number> {
    return this.store.size(spaceId);
  }
  async vectorOf(spaceId: number, chunkId: number): Promise<Float32Array | undefined> {
    return this.store.vectorOf(spaceId, chunkId);
  }
  async documentsPending(documentIds: readonly number[]): Promise<Set<number>> {
    return this.store.documentsPending(documentIds);
  }
  async insert(spaceId: number, collectionId: number, rows: readonly VectorRow[]): Promise<number> {
    return this.store.insert(spaceId, collectionId, rows);
  }
  async reusable(spaceId: number, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    return this.store.reusable(spaceId, hashes);
  }
  async pruneRetired(spaceId: number, before: number): Promise<void> {
    this.store.pruneRetired(spaceId, before);
  }
  async nearest(spaceId: number, query: Float32Array, collectionIds: readonly number[], k: number, filters?: ResolvedFilters): Promise<VectorMatch[]> {
    const space = this.store.space(spaceId);
    if (!space) return [];
    // collections go in as sqlite-vec's partition key; the rest is a condition over documents d
    const f = filters ? filterSql({ ...filters, collectionIds: undefined }) : undefined;
    return this.search.nearest(space, query, collectionIds, k, f?.where ? f : undefined);
  }
  async prepareSearch(spaceId: number, opts: { urgent?: boolean } = {}): Promise<void> {
    const space = this.store.space(spaceId);
    if (space) await this.ann.prepare(space, opts);
  }
}

class Datasets implements DatasetTables {
  constructor(
    private readonly folderStore: DatasetFolderStore,
    private readonly checks: DatasetCheckStore,
  ) {}
  async folders(): Promise<string[]> {
    return this.folderStore.list();
  }
  async addFolder(folder: string): Promise<boolean> {
    return this.folderStore.add(folder);
  }
  async removeFolder(folder: string): Promise<boolean> {
    return this.folderStore.remove(folder);
  }
  async check(key: string): Promise<number | undefined> {
    return this.checks.get(key);
  }
  async putCheck(key: string, bestCosine: number): Promise<void> {
    this.checks.put(key, bestCosine);
  }
}

const NO_REMOTE_CHANGES: ChangeFeed = { shared: false, onRemoteChange: () => () => undefined };

/** The keyword indexes' FTS5 segments merged while the engine is idle (fts-merge.ts). */
class Merging implements Maintenance {
  constructor(private readonly merges: FtsMerges) {}
  written(index: KeywordIndex): void {
    this.merges.written(index);
  }
  async step(opts: { now?: boolean } = {}): Promise<boolean> {
    return this.merges.step(opts.now ?? false);
  }
}

export interface SqliteStorageOptions {
  nativeRank?: RankExtensionOptions;
  /** Where the ANN indexes of large vector spaces are kept (default: `vectors/` beside the file). */
  annDir?: string;
  /** A vector space gets an ANN index from this many vectors (ann-spaces.ts ANN_MIN_VECTORS). */
  annMinVectors?: number;
  /** WAL checkpoints on a thread of their own (a long-running host: wal-checkpointer.ts); one-shot commands checkpoint inline. */
  backgroundCheckpoints?: boolean;
  /** Reader threads for the heavy reads (reader-pool.ts; a long-running host); 0 or unset: every read on the engine's connection. */
  readerThreads?: number;
  /** When reads go to those threads (reader-pool.ts): `loaded` (default) or `always` (tests). */
  offloadReads?: 'always' | 'loaded';
}

export class SqliteStorage implements Storage {
  readonly backend = 'sqlite' as const;
  readonly collections: CollectionRepository;
  readonly documents: DocumentRepository;
  readonly chunks: ChunkRepository;
  readonly jobs: SqliteJobQueue;
  readonly tokens: TokenRepository;
  readonly stats: StatsRepository;
  readonly vectors: Vectors;
  readonly datasets: DatasetTables;
  readonly memory: SqliteMemory;
  readonly ocr: SqliteOcr;
  readonly changes = NO_REMOTE_CHANGES;
  readonly maintenance: Maintenance;
  private readonly checkpointer: WalCheckpointer | null;
  /** Threads start on the first read sent to them: a host that never searches starts none. */
  readonly readers: ReaderPool;
  private readonly keywords = new Map<KeywordIndex, SqliteKeywordIndex>();
  private closed = false;

  constructor(
    readonly db: Db,
    readonly location: string,
    opts: SqliteStorageOptions = {},
  ) {
    registerFilterFunctions(db);
    // case-insensitive metadata comparisons fold with JavaScript's Unicode lower-casing (SQLite's lower() is ASCII only)
    db.function('trove_fold', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));
    const chunkStore = new ChunkStore(db);
    const documentStore = new DocumentStore(db);
    const jobStore = new JobStore(db);
    const vectorStore = new VectorStore(db);
    // vectors go with their chunks (no trigger: ChunkStore's hooks)
    chunkStore.addDeleteHook({ forDocument: (id) => vectorStore.deleteForDocument(id), forCollection: (id) => vectorStore.deleteForCollection(id) });
    this.collections = new Collections(db, new CollectionStore(db), chunkStore, jobStore);
    this.readers = new ReaderPool(location, { threads: location === ':memory:' ? 0 : (opts.readerThreads ?? 0), offload: opts.offloadReads, nativeRank: opts.nativeRank });
    // the heavy reads of the stores that take a RowReader (counts, kNN) go to the threads as the pool decides
    const read: RowReader = (stmt, params) => this.readers.run(stmt, params);
    this.stats = new Stats(new StatsStore(db), location, read);
    this.documents = new Documents(documentStore, this.readers);
    this.chunks = new Chunks(chunkStore, this.readers);
    const ocrRows = new OcrRows(db);
    this.jobs = new SqliteJobQueue(db, jobStore, documentStore, chunkStore, ocrRows);
    this.ocr = new SqliteOcr(db, documentStore, chunkStore, ocrRows);
    this.tokens = new Tokens(new TokenStore(db));
    const ann = new AnnSpaces(vectorStore, opts.annDir ?? path.join(path.dirname(location), 'vectors'), opts.annMinVectors);
    vectorStore.setListener(ann);
    this.vectors = new Vectors(vectorStore, new SqliteNearest(db, vectorStore, ann, read), ann, read);
    this.maintenance = new Merging(new FtsMerges(db));
    this.datasets = new Datasets(new DatasetFolderStore(db), new DatasetCheckStore(db));
    this.memory = new SqliteMemory(db, documentStore, chunkStore.forIndex('memory_fts'));
    // last: a constructor that throws above leaves no thread behind
    this.checkpointer = opts.backgroundCheckpoints && location !== ':memory:' ? WalCheckpointer.start(location) : null;
  }

  /** The profile's file (or ':memory:'), schema brought up to date. */
  static open(file: string, opts: SqliteStorageOptions = {}): SqliteStorage {
    return new SqliteStorage(openDatabase(file, opts), file, opts);
  }

  describeError(err: unknown): TroveError | null {
    return storageError(err);
  }

  warmReads(): void {
    this.readers.warm();
  }

  keyword(index: KeywordIndex): SqliteKeywordIndex {
    let k = this.keywords.get(index);
    if (!k) this.keywords.set(index, (k = new SqliteKeywordIndex(this.db, index, this.readers)));
    return k;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.vectors.ann.close(); // saves changed ANN indexes while the database is still open
    await this.readers.close(); // after the reads in flight; readers first, so the writer's connection is the last but the checkpointer's
    this.db.close();
    await this.checkpointer?.close(); // after the writer's: its connection, the last, takes the final checkpoint
  }
}
