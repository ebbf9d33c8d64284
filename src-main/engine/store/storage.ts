// The storage interface the engine depends on (docs/scale-out.md): one repository per table
// family, drawn from what the SQLite store modules do, implemented by SQLite (store/sqlite/, the
// embedded default, its statements and transactions unchanged) and PostgreSQL (store/postgres/).
// Every method is async and coarse — one step of an engine operation, not one SQL statement — so
// PostgreSQL pays a round trip per step and SQLite a resolved promise. Transactions stay inside
// the backends: an atomic write is one method taking plain data (IndexBatch, a claimed batch's
// completion), never a callback. Rows are the SQLite stores' row types.
import type { TextRange, TextWindow } from './content-blocks.js';
export type { TextRange, TextWindow };
import type { CheckedDelete, DecodedImage, EntryRewrite, EntryRow, ImageRow, MemoryFilterValues } from './memory-rows.js';
import type { FilterClause, ResolvedFilters } from './filters.js';
import type { ChunkRow, ChunkWrite } from './chunks.js';
import type { CollectionKind, CollectionRow } from './collections.js';
import type { DocumentFingerprint, DocumentRow, DocumentWrite, HitDocument } from './documents.js';
import type { DocumentFreshness, JobCounts, JobEnqueue, JobRow } from './jobs.js';
import type { KeywordIndex } from './keyword-index.js';
import type { CollectionCounts, FailureRow } from './stats.js';
import type { TokenRow } from './tokens.js';
import type { TroveError } from '../errors.js';
import type { MemoryGrant } from '../types/memory.js';
import type { TokenProfile } from '../types/access.js';
import type { CollectionVectors, PendingChunk, VectorMatch, VectorRow, VectorSpace } from './vectors.js';
import type { OcrClaim, OcrCounts, OcrFailureRow, OcrWrite } from './ocr.js';

export type Backend = 'sqlite' | 'postgres';

export interface CollectionRepository {
  /** The collection of one of these kinds (default: folders) with this name (case-insensitive). */
  get(name: string, kinds?: readonly CollectionKind[]): Promise<CollectionRow | undefined>;
  nameTaken(name: string): Promise<boolean>;
  byId(id: number): Promise<CollectionRow | undefined>;
  /** Every collection of these kinds (default: folders), by name. */
  list(kinds?: readonly CollectionKind[]): Promise<CollectionRow[]>;
  insert(c: { name: string; kind?: CollectionKind; root: string; include: string[]; exclude: string[]; context: string; ocrLanguages?: string[] | null }): Promise<CollectionRow>;
  rename(id: number, name: string): Promise<void>;
  setContext(id: number, context: string): Promise<void>;
  /** Secret redaction for this collection: true or false overrides the Settings switch, null follows it. */
  setRedactSecrets(id: number, value: boolean | null): Promise<void>;
  /** The languages OCR reads this collection's scans in (null: English). */
  setOcrLanguages(id: number, languages: string[] | null): Promise<void>;
  markIndexed(id: number, at: number): Promise<void>;
  /** The collection and everything of it: documents, chunks, keyword rows, vectors, jobs. */
  remove(id: number): Promise<void>;
}

export interface DocumentRepository {
  fingerprints(collectionId: number): Promise<DocumentFingerprint[]>;
  byPath(collectionId: number, path: string): Promise<DocumentRow | undefined>;
  /** A batch's known documents in one query (keyed by path). */
  byPaths(collectionId: number, paths: readonly string[]): Promise<Map<string, DocumentRow>>;
  /** Indexed documents with these bytes (rename candidates), keyed by hash. */
  byHashes(collectionId: number, hashes: readonly string[]): Promise<Map<string, DocumentFingerprint[]>>;
  byDocid(docid: string): Promise<DocumentRow | undefined>;
  byId(id: number): Promise<DocumentRow | undefined>;
  /** A page of hits' documents in one read, as hits show them, keyed by id; ids not in the index are absent. */
  forHits(ids: readonly number[]): Promise<Map<number, HitDocument>>;
  indexedCount(collectionId: number): Promise<number>;
  /**
   * Paths of a collection's indexed documents, sorted; with `folder`, only that path and those
   * under it (`folder/…`): a glob's literal folder read by an index range, not every path.
   */
  indexedPaths(collectionId: number, folder?: string): Promise<string[]>;
  indexedDocuments(collectionId: number): Promise<DocumentRow[]>;
  /** Which of these candidate docids are taken already. */
  docidsTaken(candidates: readonly string[]): Promise<Set<string>>;
  content(id: number): Promise<string | undefined>;
  /** Several documents' texts in one read, keyed by document id. */
  contents(ids: readonly number[]): Promise<Map<number, string>>;
  /**
   * Stretches of documents' texts in one read, one per range in order (undefined: the document has
   * no text): each covers characters [from, to) of its text, clipped to the text, and may hold more
   * around them (SQLite reads whole compressed blocks: store/content-blocks.ts). For a hit's snippet
   * or a chunk's text without the whole document.
   */
  windows(ranges: readonly TextRange[]): Promise<(TextWindow | undefined)[]>;
  /**
   * The text around each chunk, keyed by chunk id (absent: the chunk or its text is gone): its
   * range [charStart, charEnd) and the character either side of it when there is one. A page of
   * hits' snippets in the same round as their chunks (search/page-anchors.ts).
   */
  chunkWindows(chunkIds: readonly number[]): Promise<Map<number, TextWindow>>;
  /** The start (`chars`) of the collection's first `documents` texts by id: the automatic model choice's sample. */
  languageSample(collectionId: number, sample: { documents: number; chars: number }): Promise<string[]>;
}

export interface ChunkRepository {
  byId(id: number): Promise<ChunkRow | undefined>;
  /** Several chunks in one read (a page of hits' anchors), keyed by id; ids not in the index are absent. */
  byIds(ids: readonly number[]): Promise<Map<number, ChunkRow>>;
  forDocument(documentId: number): Promise<ChunkRow[]>;
}

/**
 * One write of an index batch, decided by the engine from what it read (ingest/indexer.ts).
 * Conditional where another host may have moved on: a move or removal of a row that is no longer
 * at its path changes nothing and is reported as not applied (the job stays queued).
 */
export type IndexWrite =
  | { op: 'remove'; documentId: number; path: string }
  | { op: 'touch'; documentId: number; size: number; mtimeMs: number }
  | { op: 'move'; documentId: number; from: string; to: string; size: number; mtimeMs: number }
  | { op: 'unindexed'; document: DocumentWrite; existingId?: number }
  | {
      op: 'index';
      document: DocumentWrite;
      existingId?: number;
      text: string;
      chunks: readonly ChunkWrite[];
      attachments?: readonly AttachmentWrite[];
      /** Pages only OCR can read, and how far the OCR stage has come (store/ocr.ts); absent: none (a row there is dropped). */
      ocr?: OcrWrite;
    };

/**
 * A document inside the file an 'index' write writes (an e-mail's attachment), at
 * `<file path>/<sub-path>`; its parentId is the file's row. When a write lists attachments (even
 * none), the file's other children are dropped; a move carries the children along, and an
 * 'unindexed' or 'remove' write drops them.
 */
export interface AttachmentWrite {
  document: DocumentWrite;
  /** Null: it could not be read (its row records why; it has no text or chunks). */
  text: string | null;
  chunks: readonly ChunkWrite[];
}

export interface IndexBatch {
  collectionId: number;
  /** The keyword index the collection's kind writes. */
  index: KeywordIndex;
  at: number;
  writes: readonly IndexWrite[];
}

export interface JobRetry {
  job: JobRow;
  attempts: number;
  nextRunAt: number | null;
  error: string;
}

/** What a claimed batch did, written in one transaction. */
export interface CompleteOutcome {
  write?: IndexBatch;
  /** Jobs done (each retired unless a newer event came meanwhile). */
  retire: readonly JobRow[];
  /** Jobs done only if their write (an index into `write.writes`) applied: a move or removal another host may have beaten. */
  retireIfApplied?: readonly { job: JobRow; write: number }[];
  retry?: readonly JobRetry[];
  found?: readonly JobEnqueue[];
  revive?: number;
}

/** Jobs one host holds until it completes (one transaction with the batch's index writes) or releases them. */
export interface ClaimedJobs {
  readonly jobs: readonly JobRow[];
  /**
   * Readies the batch's write before complete() is called, while another batch may still be
   * written (PostgreSQL makes the keyword rows' terms here; SQLite's FTS5 makes its own: nothing).
   * Works in slices, so the batch before gets its statements sent between them. Writes nothing;
   * complete() writes the same whether or not this ran.
   */
  stage(write: IndexBatch): Promise<void>;
  /**
   * Writes the batch, retires what is done (unless a newer event came) and records retries, atomically. Returns, per write, whether it applied.
   * Once it is called the jobs are never claimed again unless it fails (SQLite has written them when it returns; PostgreSQL holds them locked
   * until it commits), so the next batch may be claimed while this one is written.
   */
  complete(outcome: CompleteOutcome): Promise<boolean[]>;
  /** Gives the jobs back untouched (after complete: nothing). */
  release(): Promise<void>;
}

export interface JobQueue {
  /**
   * How many claimed batches a run may read ahead of the one it writes. A PostgreSQL claim holds a
   * pooled connection and a transaction while it waits; a SQLite claim only a set of ids.
   */
  readonly claimsAhead: number;
  /** Watcher events: a fresh event resets a job's retries and bumps its version. */
  recordEvents(jobs: readonly JobEnqueue[]): Promise<void>;
  /** Adds jobs unless one is queued for the same path. */
  addIfAbsent(jobs: readonly JobEnqueue[]): Promise<void>;
  /** The next batch nobody else holds: one collection's most urgent due jobs (`only`: that collection's, pauses or not). */
  claim(now: number, limit: number, opts?: { only?: number; collections?: readonly number[] }): Promise<ClaimedJobs | null>;
  nextDueAt(): Promise<number | null>;
  dueCount(collectionId: number, now: number): Promise<number>;
  counts(): Promise<Map<number, JobCounts>>;
  failures(collectionId: number | undefined, limit: number): Promise<JobRow[]>;
  hasPendingFile(collectionId: number, path: string): Promise<boolean>;
  makeDue(collectionId: number, now: number): Promise<void>;
  /** The collection's folder is gone for now: its due file jobs wait until `until` (no attempt counted); its scan keeps its own retries. */
  postponeFiles(collectionId: number, now: number, until: number): Promise<void>;
  deleteForCollection(collectionId: number): Promise<void>;
  freshness(documentIds: readonly number[]): Promise<DocumentFreshness[]>;
  pauses(): Promise<Set<number>>;
  setPaused(collectionId: number, paused: boolean): Promise<void>;
}

/** One query term: as typed (lower case, accents folded) and in index form (stemmed; a CJK bigram; a prefix as typed). */
export interface KeywordTerm {
  /** What FTS5 is given (it stems by itself). */
  text: string;
  /** What the index holds (PostgreSQL's terms are made by Trove: store/postgres/keyword-text.ts). */
  term: string;
  prefix: boolean;
}

/** A term as the planner counted it (documentFrequency): BM25's IDF on PostgreSQL, the native rank's phrase counts on SQLite. */
export interface PlannedKeywordTerm extends KeywordTerm {
  df: number;
}

/** A plan step as data: every term, any term, or an expression tree (phrase and boolean syntaxes). */
export type KeywordStep =
  | { op: 'and' | 'or'; terms: readonly PlannedKeywordTerm[] }
  | { op: 'expression'; expression: KeywordExpression; terms: readonly PlannedKeywordTerm[] };

/** The phrase and boolean syntaxes' tree; each backend renders it (FTS5 MATCH, tsquery). */
export type KeywordExpression =
  | { t: 'term'; term: KeywordTerm }
  | { t: 'phrase'; terms: readonly KeywordTerm[]; prefixLast?: boolean }
  | { t: 'and'; items: readonly KeywordExpression[]; not?: readonly KeywordExpression[] }
  | { t: 'or'; items: readonly KeywordExpression[] };

export interface KeywordCandidate {
  chunkId: number;
  documentId: number;
  /** Minus BM25: lower ranks first (FTS5's convention). */
  rank: number;
}

/** What BM25 needs besides the terms: rows in the index and their average length (FTS5 keeps its own). */
export interface KeywordCounts {
  rows: number;
  avgLength: number;
}

export interface KeywordIndexRepository {
  readonly index: KeywordIndex;
  /** Cached by the caller per index generation, as the planner caches term counts. */
  counts(): Promise<KeywordCounts>;
  /** Chunks holding the term; for a prefix, holding any term starting with it. */
  documentFrequency(term: KeywordTerm): Promise<number>;
  /** The best `limit` chunks of one step under these filters, by BM25 (ties by chunk id). */
  candidates(step: KeywordStep, filters: ResolvedFilters, limit: number, counts: KeywordCounts): Promise<KeywordCandidate[]>;
  documentsMatching(expression: KeywordExpression): Promise<Set<number>>;
}

export interface TokenRepository {
  insert(t: { name: string; secret: string; collectionIds: number[] | null; tools: string[] | null; memory: MemoryGrant; profile?: TokenProfile; expiresAt?: number | null }): Promise<TokenRow>;
  bySecret(secret: string): Promise<TokenRow | undefined>;
  byName(name: string): Promise<TokenRow | undefined>;
  list(): Promise<TokenRow[]>;
  delete(id: number): Promise<void>;
  /** Records use, at most once a minute per token. */
  touch(id: number, now?: number): Promise<void>;
}

export interface StatsRepository {
  counts(): Promise<Map<number, CollectionCounts>>;
  /** Some document (of any collection kind) is of this kind. */
  kindExists(kind: string): Promise<boolean>;
  failures(collectionId: number, limit: number): Promise<FailureRow[]>;
  /** The collection's chunks (a count over its documents' chunks). */
  chunkCount(collectionId: number): Promise<number>;
  /** What the index takes on disk (SQLite: the file and its WAL; PostgreSQL: the database). */
  databaseBytes(): Promise<number>;
}

export interface VectorRepository {
  space(id: number): Promise<VectorSpace | undefined>;
  ensureSpace(modelId: string, weightsSha256: string, dims: number): Promise<VectorSpace>;
  dropUnusedSpaces(): Promise<void>;
  collection(collectionId: number): Promise<CollectionVectors>;
  setModelChoice(collectionId: number, modelId: string | null): Promise<void>;
  setActive(collectionId: number, spaceId: number | null): Promise<void>;
  setBuilding(collectionId: number, spaceId: number | null): Promise<void>;
  swap(collectionId: number): Promise<void>;
  pending(spaceId: number, collectionId: number, limit: number, after?: number): Promise<PendingChunk[]>;
  pendingCount(spaceId: number, collectionId: number): Promise<number>;
  /**
   * Pending chunks no other host is embedding, held by this one until `until` (SQLite: one host,
   * nothing to hold), in id order from above `after`: a run's cursor, so a claim reads on from
   * where the last one ended instead of passing every chunk already embedded (0: from the first).
   */
  claimPending(spaceId: number, collectionId: number, limit: number, now: number, until: number, after?: number): Promise<PendingChunk[]>;
  releaseClaims(spaceId: number, chunkIds: readonly number[]): Promise<void>;
  size(spaceId: number): Promise<number>;
  vectorOf(spaceId: number, chunkId: number): Promise<Float32Array | undefined>;
  documentsPending(documentIds: readonly number[]): Promise<Set<number>>;
  /** Writes the vectors of chunks that still exist, each with the digest of the text it was made from (for reuse). */
  insert(spaceId: number, collectionId: number, rows: readonly VectorRow[]): Promise<number>;
  /**
   * Vectors the space already holds for these text digests (written with another chunk of the same
   * text, or kept from a re-indexed or removed document's chunk): copied instead of a model run.
   */
  reusable(spaceId: number, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Forgets the vectors kept from deleted chunks before `before` (ms since the epoch). */
  pruneRetired(spaceId: number, before: number): Promise<void>;
  /** The k nearest chunks of these collections that pass the filters, exactly (however the backend speeds it up). */
  nearest(spaceId: number, query: Float32Array, collectionIds: readonly number[], k: number, filters?: ResolvedFilters): Promise<VectorMatch[]>;
  /**
   * The space is filled (or about to be searched): the backend may build what makes its kNN fast
   * now, in the background (SQLite: the usearch ANN index; PostgreSQL's HNSW index keeps itself).
   * `urgent`: a caller about to exit waits for it, so the next process finds it ready.
   */
  prepareSearch(spaceId: number, opts?: { urgent?: boolean }): Promise<void>;
}

export interface DatasetTables {
  folders(): Promise<string[]>;
  addFolder(folder: string): Promise<boolean>;
  removeFolder(folder: string): Promise<boolean>;
  check(key: string): Promise<number | undefined>;
  putCheck(key: string, bestCosine: number): Promise<void>;
}

/** A new memory entry as it is written: checked (memory/entry-input.ts), chunked, its times set. */
export interface MemoryInsert {
  threadId: string;
  source: string;
  text: string;
  title: string;
  size: number;
  tags: readonly string[];
  tagsJson: string;
  metadataJson: string;
  images: readonly DecodedImage[];
  chunks: readonly ChunkWrite[];
  createdAt: number;
  updatedAt: number;
}

export interface MemoryThreadRow {
  thread_id: string;
  entries: number;
  sources: number;
  multimodal: number;
  first: number;
  last: number;
  last_id: number;
}

export interface MemoryCounts {
  entries: number;
  threads: number;
  bySource: Record<string, number>;
  byContentType: Record<string, number>;
  images: number;
  uniqueTags: number;
  ftsRows: number;
  /** The keyword index's segments (SQLite's FTS5; PostgreSQL has none: 0). */
  segments: number;
}

export interface MemorySearchMetric {
  type: 'fts' | 'semantic' | 'hybrid';
  query: string;
  results: number;
  ms: number;
  at: number;
}

/**
 * Agent memory's tables (entries, tags, images, search metrics) with the entries' documents,
 * chunks and keyword rows: store/sqlite/memory.ts, store/postgres/memory.ts. Each write one
 * transaction; filters as data (memory-rows.ts), rendered by the backend.
 */
export interface MemoryRepository {
  /** Writes the entries of the `~memory` collection in one transaction; their ids in order. */
  insert(collectionId: number, entries: readonly MemoryInsert[]): Promise<number[]>;
  /**
   * Reads the entries (locked) and applies what `plan` decides for each in order (pure, synchronous;
   * an entry listed twice is planned from its first rewrite), in one transaction. `plan` sees
   * `undefined` for an entry that is not (or no longer) there: it throws to write nothing, or
   * answers null to leave that one out (its place in the answer is null).
   */
  update(ids: readonly number[], plan: (row: EntryRow | undefined, index: number) => EntryRewrite | null): Promise<(EntryRewrite | null)[]>;
  /** Deletes the matching entries and everything that hangs off them (keyword rows, postings, vectors); how many. */
  remove(criteria: CheckedDelete): Promise<number>;
  /** An entry with this thread, creation time, source and text (import's duplicate check). */
  same(threadId: string, createdAt: number, source: string, text: string): Promise<number | undefined>;
  /** Every entry (or one thread's) after an id, oldest first (export, a page at a time). */
  exportPage(threadId: string | undefined, afterId: number, limit: number): Promise<EntryRow[]>;
  byIds(ids: readonly number[]): Promise<EntryRow[]>;
  byDocuments(documentIds: readonly number[]): Promise<EntryRow[]>;
  images(ids: readonly number[], withData: boolean): Promise<ImageRow[]>;
  /** A page newest first, and how many match in all. */
  list(filters: MemoryFilterValues, limit: number, offset: number): Promise<{ rows: EntryRow[]; total: number }>;
  /** The filters as the backend's clause over documents d, pushed into keyword and vector search (null: none). */
  searchClause(filters: MemoryFilterValues): Promise<FilterClause | null>;
  around(e: EntryRow, before: number, after: number): Promise<{ before: EntryRow[]; after: EntryRow[] }>;
  threads(): Promise<MemoryThreadRow[]>;
  counts(): Promise<MemoryCounts>;
  entriesAndThreads(): Promise<{ entries: number; threads: number }>;
  recordSearches(rows: readonly MemorySearchMetric[], prune: boolean): Promise<void>;
  searches(): Promise<{ type: string; count: number; avg: number; last: number | null }[]>;
}

/**
 * The documents with pages only OCR can read (store/ocr.ts): rows written by the index write, read
 * and claimed by the OCR stage, which writes each document back through `complete`.
 */
export interface OcrRepository {
  /**
   * Up to `limit` documents of the collection with pages left and due (`now`), newest first, that no
   * other host holds; held by this one until `until` (SQLite: one host, nothing to hold).
   */
  claim(collectionId: number, limit: number, now: number, until: number): Promise<OcrClaim[]>;
  /** Holds these documents longer (a long document still being read). */
  extend(documentIds: readonly number[], until: number): Promise<void>;
  /** Gives the documents back untouched. */
  release(documentIds: readonly number[]): Promise<void>;
  /**
   * The document re-written with its recognised text (one 'index' write carrying `ocr`), in one
   * transaction, only if its row still has the bytes `hash` names (else nothing is written: the
   * file changed and re-indexing has it, or will). True when written.
   */
  complete(documentId: number, hash: string, batch: IndexBatch): Promise<boolean>;
  /** The document could not be read at all (its file unreadable, the engine failed): try again at `nextAt` (OCR_GAVE_UP: not until the file changes or an explicit run). */
  defer(documentId: number, attempts: number, nextAt: number, error: string | null): Promise<void>;
  /** Documents waiting after failures are due now (an explicit run tries them again). */
  makeDue(collectionId: number): Promise<void>;
  /** Every page of the collection is to be read again (its languages changed). */
  restart(collectionId: number): Promise<void>;
  /** Per collection. */
  counts(): Promise<Map<number, OcrCounts>>;
  /** Documents with pages that could not be read, or that could not be read at all (one collection or every one). */
  failures(collectionId: number | undefined, limit: number): Promise<OcrFailureRow[]>;
}

/** The index generation and other hosts' changes (PostgreSQL: LISTEN/NOTIFY; SQLite: this process only). */
export interface ChangeFeed {
  /** Other hosts may write this index (PostgreSQL): their changes arrive here, and their queued events wake nobody. */
  readonly shared: boolean;
  /** Called when another host changed the index (never for this host's own writes). */
  onRemoteChange(listener: (collectionId: number | null) => void): () => void;
}

/**
 * Housekeeping a backend does while the engine is otherwise idle, in short slices that searches and
 * writes slip between (SQLite: merging each keyword index's FTS5 segments; PostgreSQL: none).
 */
export interface Maintenance {
  /** A keyword index was written outside the indexing loop (memory): it is worked on only once writes pause. */
  written(index: KeywordIndex): void;
  /** One slice of housekeeping; false when there is none due. `now`: whatever there is, quiet or not (compactIndex). */
  step(opts?: { now?: boolean }): Promise<boolean>;
}

export interface Storage {
  readonly backend: Backend;
  /** The file, or the URL with its password hidden. */
  readonly location: string;
  readonly collections: CollectionRepository;
  readonly documents: DocumentRepository;
  readonly chunks: ChunkRepository;
  keyword(index: KeywordIndex): KeywordIndexRepository;
  readonly jobs: JobQueue;
  readonly tokens: TokenRepository;
  readonly stats: StatsRepository;
  readonly vectors: VectorRepository;
  readonly datasets: DatasetTables;
  readonly memory: MemoryRepository;
  readonly ocr: OcrRepository;
  readonly changes: ChangeFeed;
  readonly maintenance: Maintenance;
  /** A write that failed because the storage is full or failing, as a clear IO error naming what to do; null for any other error. */
  describeError(err: unknown): TroveError | null;
  /**
   * Clients are connecting: reads may soon come many at once. SQLite starts its reader threads now
   * (a thread's start — its modules, the file — is slow enough that the first burst of calls would
   * otherwise wait for it); PostgreSQL's pool opens connections cheaply as reads come, and needs nothing.
   */
  warmReads(): void;
  close(): Promise<void>;
}
