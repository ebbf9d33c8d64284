// A Trove index in PostgreSQL, read through the storage interface (store/storage.ts): what runs on
// PostgreSQL today for the faces — search in every mode (keyword with every syntax, filter, tier,
// snippet and freshness; vector over pgvector; hybrid; rerank) over folder collections, get,
// multi-get, status, tokens, agent memory (shared-memory.ts), registered datasets
// (shared-datasets.ts) and the knowledge room's documents, datasets and memory sources — as a
// ServedIndex, so `trove serve --database` serves the MCP surface from it. Selected by
// TROVE_DATABASE_URL (engine/config.ts) or `--database`. Indexing, watching and embedding into the
// database are SharedIndexer's (shared-indexer.ts), memory's embedding startMemoryEmbedding's
// (docs/scale-out.md says what runs where).
import path from 'node:path';
import type { CreateTokenInput } from '../access-tokens.js';
import type { SharedIndexOptions } from './shared-options.js';
import { QueryEmbedder } from '../embed/query-embedder.js';
import { invalidInput, notFound } from '../errors.js';
import { DEFAULT_CHUNKING } from '../ingest/chunker.js';
import { KNOWN_KINDS } from '../ingest/parsers/index.js';
import type { GetOptions, MultiGetOptions } from '../retrieve/documents.js';
import { StorageDocumentRetriever } from '../retrieve/storage-documents.js';
import { highlightSpans, queryMatcher } from '../search/highlight.js';
import type { ResolvedFilters } from '../search/filters.js';
import { parseDateFilter, validateSearchRequest, type SearchRequest } from '../search/request.js';
import { keywordResponse, semanticResponse } from '../search/response.js';
import { StorageKeywordSearch } from '../search/storage-keyword.js';
import { StorageModeSearch } from '../search/storage-modes.js';
import type { ServedDatasets, ServedIndex } from '../served-index.js';
import { EngineSettings } from '../settings/engine-settings.js';
import { ALL_KINDS } from '../store/collections.js';
import { PostgresStorage } from '../store/postgres/postgres-storage.js';
import { collectionInfo } from '../status-report.js';
import type { CollectionInfo, KnowledgeApi, MultiGetResult, RetrievedDocument, SearchSyntax, StatusReport, TokenInfo } from '../types/index.js';
import { SharedDatasets, type DatasetIndexer } from './shared-datasets.js';
import { sharedKnowledge } from './shared-knowledge.js';
import { SharedEmbedder } from './shared-embedder.js';
import { SharedMemory } from './shared-memory.js';
import { SharedMemoryEmbedding } from './shared-memory-embedding.js';
import { sharedStatus, type HostWork } from './shared-status.js';
import { SharedTokens } from './shared-tokens.js';
import type { Freshness, SearchResponse } from '../types/search.js';
import { changedOnDisk } from '../watch/freshness.js';

export type { SharedIndexOptions };

/** Indexing this process does into the same database (SharedIndexer): what makes folder datasets Ready here. */
export interface BackgroundWork extends DatasetIndexer {
  busy(): boolean;
  hostWork(): HostWork;
}

export class SharedIndex implements ServedIndex {
  readonly backend = 'postgres' as const;
  readonly profileDir: string;
  /** Settings stay a file in this host's profile; per-collection redaction comes from the database. */
  readonly settings: EngineSettings;
  /** knowledge.search / knowledge.get: the documents and memory sources; datasets listed as unavailable. */
  readonly knowledge: KnowledgeApi;
  /** Agent memory in the database: the memory and persistence MCP tools' store. */
  readonly memory: SharedMemory;
  /** Registered datasets: the database's added folders and folder datasets, this host's FAISS files. */
  readonly datasets: ServedDatasets;
  private readonly datasetRoom: SharedDatasets;
  private readonly keyword: StorageKeywordSearch;
  private readonly modes: StorageModeSearch;
  private readonly embedder: QueryEmbedder;
  private readonly retriever: StorageDocumentRetriever;
  private readonly tokens: SharedTokens;
  /** Each collection's redaction override, read once until some host changes the index. */
  private redaction: Promise<ReadonlyMap<string, boolean | null>> | null = null;
  /** Set when this process also indexes into the database (trackBackgroundWork). */
  private backgroundWork: BackgroundWork | null = null;
  /** Memory's background embedding, when this host runs it (startMemoryEmbedding). */
  private memoryEmbedding: { loop: SharedMemoryEmbedding; embedder: SharedEmbedder } | null = null;

  private constructor(
    private readonly storage: PostgresStorage,
    private readonly opts: SharedIndexOptions,
  ) {
    this.keyword = new StorageKeywordSearch(storage);
    this.profileDir = opts.profileDir ?? process.cwd();
    this.embedder = new QueryEmbedder(this.profileDir, opts.embeddings);
    this.retriever = new StorageDocumentRetriever(storage);
    this.tokens = new SharedTokens(storage.tokens, async (name) => (await this.requireCollection(name)).id);
    this.modes = new StorageModeSearch(storage, this.keyword, this.embedder, { fusion: opts.search?.fusion ?? 'rrf' });
    this.settings = new EngineSettings(this.profileDir, { chunking: DEFAULT_CHUNKING, collectionRedaction: () => this.collectionRedaction() });
    this.memory = new SharedMemory({ storage, memory: storage.memory, embedder: this.embedder, chunking: DEFAULT_CHUNKING });
    this.datasetRoom = new SharedDatasets(storage, this.embedder, {
      profileDir: this.profileDir,
      fusion: opts.search?.fusion ?? 'rrf',
      hnswGraphFrom: opts.datasets?.hnswGraphFrom,
      projectRoot: opts.datasets?.projectRoot,
      watch: opts.datasets?.watch,
    });
    this.datasets = this.datasetRoom.api;
    this.knowledge = sharedKnowledge({ storage, keyword: this.keyword, modes: this.modes, retriever: this.retriever, memory: this.memory, datasets: this.datasets });
    // term and row counts are kept until some host changes the index (LISTEN/NOTIFY: store/postgres/changes.ts)
    storage.changes.onRemoteChange((collectionId) => {
      this.keyword.changed();
      this.memory.remoteChange(collectionId);
      this.datasetRoom.remoteChange();
      this.redaction = null;
    });
  }

  /** Connects (a bad URL is INVALID_INPUT, an unreachable server UNAVAILABLE), brings the schema up to date, and listens for changes. */
  static async open(url: string, opts: SharedIndexOptions = {}): Promise<SharedIndex> {
    const storage = await PostgresStorage.open(url);
    const index = new SharedIndex(storage, opts);
    await storage.changes.ready(); // listening before anything is cached: no change falls in between
    return index;
  }

  /** The URL with its password hidden. */
  get location(): string {
    return this.storage.location;
  }

  /** Search in every mode, answering as Engine.search does for the same index. */
  async search(input: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    const req = validateSearchRequest(input);
    const filters = await this.resolveFilters(req);
    if (req.mode === 'keyword') {
      const r = await this.keyword.search({ ...req, filters });
      const fresh = req.freshness ? await this.freshness(r.hits.map((h) => h.documentId)) : null;
      return keywordResponse(req, r, fresh, started);
    }
    const collectionIds = filters.collectionIds ?? (await this.storage.collections.list()).map((c) => c.id);
    const r = await this.modes.run(req, filters, collectionIds);
    const page = r.hits.slice(req.offset, req.offset + req.limit).map((h) => h.documentId);
    const fresh = req.freshness ? await this.freshness(page) : new Map<number, Freshness>();
    return semanticResponse(req, r, () => fresh, started);
  }

  /** One document, as Engine.get reads it. */
  async get(locator: string, opts: GetOptions & { highlight?: { query: string; syntax?: SearchSyntax } } = {}): Promise<RetrievedDocument> {
    const doc = await this.retriever.get(locator, opts);
    if (!opts.highlight) return doc;
    const { query, syntax } = opts.highlight;
    return { ...doc, highlights: highlightSpans(doc.text, queryMatcher(query, syntax ?? 'match'), opts.lineNumbers ?? false) };
  }

  multiGet(pattern: string, opts: MultiGetOptions = {}): Promise<MultiGetResult> {
    return this.retriever.multiGet(pattern, opts);
  }

  /** The folder collections with their counts, as Engine.listCollections. */
  async listCollections(): Promise<CollectionInfo[]> {
    const [rows, counts] = await Promise.all([this.storage.collections.list(), this.storage.stats.counts()]);
    return rows.map((c) => collectionInfo(c, counts));
  }

  /** Names and context notes only, as Engine.collectionNotes. */
  async collectionNotes(): Promise<{ name: string; context: string }[]> {
    return (await this.storage.collections.list()).map((c) => ({ name: c.name, context: c.context }));
  }

  /** Paths of the indexed documents of a collection, sorted, as Engine.documentPaths. */
  async documentPaths(collection: string): Promise<string[]> {
    return this.storage.documents.indexedPaths((await this.requireCollection(collection)).id);
  }

  /**
   * Embeds memory's entries in the background while this host serves (`trove serve --database`,
   * unless --no-embed): what is pending now, then after every change here or on another host,
   * sharing the work with other hosts through embedding claims. `log` gets a line per run that
   * embedded something or could not.
   */
  startMemoryEmbedding(log: (line: string) => void): void {
    if (!this.memoryEmbedding) {
      const embedder = new SharedEmbedder(this.storage, this.profileDir, this.opts.embeddings, this.embedder);
      this.memoryEmbedding = { embedder, loop: new SharedMemoryEmbedding(this.memory, this.storage, embedder, log) };
    }
    this.memoryEmbedding.loop.start();
  }

  /** Another host changed the index (a collection added, renamed or removed, a batch written): the app refreshes what it shows. */
  onRemoteChange(listener: () => void): () => void {
    return this.storage.changes.onRemoteChange(() => listener());
  }

  /** Indexing or embedding this process does into the same database (trackBackgroundWork, startMemoryEmbedding), else never busy. */
  busy(): boolean {
    return (this.backgroundWork?.busy() ?? false) || (this.memoryEmbedding?.loop.busy ?? false);
  }

  /**
   * This process also indexes into the database (`trove serve --database`: its SharedIndexer):
   * busy while that works, so an idle host does not stop mid-run, and status reports its watchers
   * and embedding loop.
   */
  trackBackgroundWork(work: BackgroundWork): void {
    this.backgroundWork = work;
    this.datasetRoom.attachIndexer(work);
  }

  /**
   * Registered datasets while this host serves: the added folders read, folder datasets' collections
   * made (and, with an indexer tracked, watched and indexed), manifests followed until close.
   */
  startDatasets(): Promise<void> {
    return this.datasetRoom.startWatching();
  }

  /** Stops following the dataset manifests (the datasets keep serving). */
  stopDatasets(): Promise<void> {
    return this.datasetRoom.registry.stopWatching();
  }

  /** The index's status as Engine.status reports it (status-report.ts); `collections`: a scoped caller's allow-list; `memory`: memory's summary (default: when no allow-list is given). */
  async status(opts: { collections?: readonly string[]; memory?: boolean } = {}): Promise<StatusReport> {
    const [report, memory] = await Promise.all([
      sharedStatus(this.storage, this.profileDir, opts, this.backgroundWork?.hostWork(), opts.collections ? null : this.datasets),
      (opts.memory ?? !opts.collections) ? this.memory.summary() : null,
    ]);
    return memory ? { ...report, memory } : report;
  }

  // ---- access tokens: one set for every host on the database (as Engine's, see access-tokens.ts) ----

  /** Returns the secret once; only its hash is stored. */
  createToken(input: CreateTokenInput): Promise<{ token: string; info: TokenInfo }> {
    return this.tokens.create(input);
  }

  listTokens(): Promise<TokenInfo[]> {
    return this.tokens.list();
  }

  revokeToken(name: string): Promise<void> {
    return this.tokens.revoke(name);
  }

  /** The token a secret belongs to, or null; records its use. */
  verifyToken(secret: string): Promise<TokenInfo | null> {
    return this.tokens.verify(secret);
  }

  /** Settles when the query models' workers have exited. */
  async close(): Promise<void> {
    await this.memoryEmbedding?.loop.stop();
    await this.datasetRoom.close();
    await this.memory.flush().catch(() => undefined); // metrics held back are written if the database still answers
    await Promise.all([this.storage.close(), this.embedder.close(), this.settings.close()]);
  }

  private collectionRedaction(): Promise<ReadonlyMap<string, boolean | null>> {
    const read = (this.redaction ??= this.storage.collections.list(ALL_KINDS).then((rows) => new Map(rows.map((c) => [c.name.toLowerCase(), c.redactSecrets]))));
    read.catch(() => {
      if (this.redaction === read) this.redaction = null; // a failed read is not kept
    });
    return read;
  }

  private async resolveFilters(req: ReturnType<typeof validateSearchRequest>): Promise<ResolvedFilters> {
    for (const k of req.kinds ?? []) {
      if (!KNOWN_KINDS.includes(k) && !(await this.storage.stats.kindExists(k))) throw invalidInput(`unknown kind "${k}" (kinds: ${KNOWN_KINDS.join(', ')})`);
    }
    const collectionIds = req.collections ? await Promise.all(req.collections.map(async (n) => (await this.requireCollection(n)).id)) : undefined;
    return {
      collectionIds,
      pathGlob: req.path,
      kinds: req.kinds,
      modifiedAfterMs: parseDateFilter(req.modifiedAfter, 'modifiedAfter'),
      modifiedBeforeMs: parseDateFilter(req.modifiedBefore, 'modifiedBefore'),
      tags: req.tags,
    };
  }

  private async requireCollection(name: string) {
    const c = await this.storage.collections.get(name);
    if (c) return c;
    const known = (await this.storage.collections.list()).map((k) => k.name);
    throw notFound(`no collection named "${name}"${known.length ? ` (collections: ${known.join(', ')})` : ''}`);
  }

  /** watch/freshness.ts's rules: stale when a job is queued for the file or it changed on disk since it was indexed. */
  private async freshness(documentIds: readonly number[]): Promise<Map<number, Freshness>> {
    const [rows, waiting] = await Promise.all([this.storage.jobs.freshness(documentIds), this.storage.vectors.documentsPending(documentIds)]);
    return new Map(
      rows.map((f) => [
        f.documentId,
        {
          indexed_at: new Date(f.indexedAt).toISOString(),
          stale: f.pending || changedOnDisk(path.join(f.root, ...f.path.split('/')), f.size, f.mtimeMs),
          pendingEmbedding: waiting.has(f.documentId),
        },
      ]),
    );
  }
}
