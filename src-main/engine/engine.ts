// The engine facade: the only door the faces (CLI, MCP server, app API) use. It owns the
// database handle it opens and closes it; there is no module-level state.
import fs from 'node:fs';
import path from 'node:path';
import { AccessTokens, type CreateTokenInput } from './access-tokens.js';
import { assertFolder, validateGlobs, validateName } from './collection-input.js';
import { datasetsApi } from './datasets/datasets-api.js';
import { openDatasetRegistry } from './datasets/open-registry.js';
import type { DatasetRegistry } from './datasets/registry.js';
import { EmbeddingService } from './embed/embeddings.js';
import { EngineModels } from './embed/models-api.js';
import { invalidInput, notFound, TroveError } from './errors.js';
import { DEFAULT_CHUNKING, type ChunkOptions } from './ingest/chunker.js';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from './ingest/defaults.js';
import { KNOWN_KINDS } from './ingest/parsers/index.js';
import { IndexingService } from './jobs/indexing-service.js';
import { MEMORY_COLLECTION, MemoryService } from './memory/memory-service.js';
import type { ProgressListener } from './jobs/progress.js';
import { databasePath, secureProfile } from './profile.js';
import { sqliteKnowledge } from './knowledge/sqlite-knowledge.js';
import { DocumentRetriever, type GetOptions, type MultiGetOptions } from './retrieve/documents.js';
import { registerFilterFunctions, type ResolvedFilters } from './search/filters.js';
import { highlightSpans, queryMatcher } from './search/highlight.js';
import { LexicalSearch } from './search/lexical.js';
import { ModeSearch } from './search/modes.js';
import { parseDateFilter, validateSearchRequest, type SearchRequest, type ValidSearchRequest } from './search/request.js';
import { keywordResponse, semanticResponse } from './search/response.js';
import { EngineSettings } from './settings/engine-settings.js';
import { DEFAULT_MAX_FILE_BYTES } from './settings/settings-store.js';
import { ChunkStore } from './store/chunks.js';
import { ALL_KINDS, CollectionStore, type CollectionRow } from './store/collections.js';
import { openDatabase, storageError, type Db } from './store/database.js';
import { DocumentStore } from './store/documents.js';
import { MERGE_QUIET_MS } from './store/fts-merge.js';
import { StatsStore } from './store/stats.js';
import type { AppIndex } from './app-index.js';
import { StatusReporter } from './status-report.js';
import { TokenStore } from './store/tokens.js';
import { WalCheckpointer } from './store/wal-checkpointer.js';
import type {
  AddCollectionInput,
  DatasetsApi,
  BackgroundEmbedding,
  CollectionEmbeddingStatus,
  CollectionInfo,
  EmbeddingProgress,
  FailureInfo,
  IndexProgress,
  IndexReport,
  KnowledgeApi,
  MemoryApi,
  ModelsApi,
  MultiGetResult,
  RetrievedDocument,
  SearchResponse,
  SearchSyntax,
  SettingsApi,
  StatusReport,
  TokenInfo,
} from './types/index.js';
import type { EngineOptions } from './engine-options.js';

export type { EngineOptions };

export class Engine implements AppIndex {
  readonly backend = 'sqlite' as const;
  readonly profileDir: string;
  readonly databaseFile: string;
  private readonly db: Db;
  private readonly collections: CollectionStore;
  private readonly documents: DocumentStore;
  private readonly chunks: ChunkStore;
  private readonly stats: StatsStore;
  private readonly reports: StatusReporter;
  private readonly accessTokens: AccessTokens;
  private readonly lexical: LexicalSearch;
  private readonly retriever: DocumentRetriever;
  private readonly chunking: ChunkOptions;
  private readonly maxFileBytes: number;
  private readonly indexing: IndexingService;
  private readonly embeddings: EmbeddingService;
  private readonly modes: ModeSearch;
  /** The model catalogue, downloads and checks. */
  readonly models: ModelsApi;
  /** Saved settings, the limits in force and the redaction policy every face applies. */
  readonly settings: SettingsApi;
  /** Registered datasets (engine/datasets): manifests, their states, search and documents. */
  readonly datasets: DatasetsApi;
  private readonly registry: DatasetRegistry;
  /** The agent memory store: threads of entries, searched like documents. */
  readonly memory: MemoryApi;
  private readonly memoryService: MemoryService;
  private readonly checkpointer: WalCheckpointer | null;
  private mergeSoon: NodeJS.Timeout | null = null;
  /** knowledge.search / knowledge.get over every source: collections, datasets, memory. */
  readonly knowledge: KnowledgeApi;
  /** Bumped whenever the index changes; caches keyed on it stay honest. */
  private generation = 0;
  private closed = false;

  private constructor(opts: EngineOptions) {
    // checked before the database opens: a NaN limit would silently mean "no limit"
    if (opts.maxFileBytes !== undefined && !(Number.isSafeInteger(opts.maxFileBytes) && opts.maxFileBytes > 0)) {
      throw invalidInput(`maxFileBytes must be a positive whole number of bytes (got ${opts.maxFileBytes})`);
    }
    if (!opts.profileDir) throw invalidInput('a profile folder is required (TROVE_HOME, or the OS app-data folder)');
    this.profileDir = path.resolve(opts.profileDir);
    this.databaseFile = databasePath(this.profileDir);
    secureProfile(this.profileDir);
    this.db = openDatabase(this.databaseFile, { nativeRank: opts.nativeRank });
    registerFilterFunctions(this.db);
    this.collections = new CollectionStore(this.db);
    this.documents = new DocumentStore(this.db);
    this.chunks = new ChunkStore(this.db);
    this.stats = new StatsStore(this.db);
    this.reports = new StatusReporter({
      profileDir: this.profileDir,
      databaseFile: this.databaseFile,
      collections: this.collections,
      stats: this.stats,
      indexing: () => this.indexing.status(),
      embeddings: (visible) => this.embeddings.statusReport(visible),
      datasets: () => this.registry.list(),
      memory: () => this.memory.summary(),
    });
    this.accessTokens = new AccessTokens(new TokenStore(this.db), (name) => this.requireCollection(name).id);
    this.lexical = new LexicalSearch(this.db);
    this.retriever = new DocumentRetriever(this.collections, this.documents);
    this.chunking = { ...DEFAULT_CHUNKING, ...opts.chunking };
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const settings = new EngineSettings(this.profileDir, {
      maxFileBytes: opts.maxFileBytes,
      chunking: this.chunking,
      collectionRedaction: () => new Map(this.collections.list(ALL_KINDS).map((c) => [c.name.toLowerCase(), c.redactSecrets])),
    });
    this.settings = settings;
    this.indexing = new IndexingService(
      { db: this.db, documents: this.documents, chunks: this.chunks },
      this.collections,
      { ...opts.indexing, chunking: this.chunking, maxFileBytes: this.maxFileBytes, maxFileBytesNow: () => settings.maxFileBytes().value },
      () => {
        this.generation++;
        this.embeddings?.changed();
      },
    );
    this.embeddings = new EmbeddingService(this.db, this.profileDir, opts.embeddings, {
      saved: () => settings.savedOrDefaults().backgroundEmbedding,
      paused: () => this.indexing.jobs.pauses(),
      indexingBusy: () => this.indexing.busy(),
    });
    settings.onSaved(() => this.embeddings.changed()); // the Settings switch applies at once
    this.embeddings.follow({ chunks: this.chunks, documents: this.documents }, this.indexing); // vectors go with their chunks; search learns what waits
    this.modes = new ModeSearch(this.db, this.embeddings, this.lexical, this.collections, { fusion: opts.search?.fusion ?? 'rrf' });
    this.models = new EngineModels(this.embeddings);
    const live = opts.indexing?.live;
    this.registry = openDatasetRegistry({
      db: this.db,
      profileDir: this.profileDir,
      collections: this.collections,
      documents: this.documents,
      chunks: this.chunks,
      lexical: this.lexical,
      indexing: this.indexing,
      embeddings: this.embeddings,
      fusion: opts.search?.fusion ?? 'rrf',
      generation: () => this.generation,
      changed: () => {
        this.generation++;
        this.embeddings.changed();
      },
      watch: { usePolling: live?.usePolling ?? false, pollIntervalMs: live?.pollIntervalMs ?? 1000 },
      hnswGraphFrom: opts.datasets?.hnswGraphFrom,
      projectRoot: opts.datasets?.projectRoot,
    });
    this.datasets = datasetsApi(this.registry, this.embeddings);
    this.memoryService = new MemoryService({
      db: this.db,
      databaseFile: this.databaseFile,
      collections: this.collections,
      documents: this.documents,
      chunks: this.chunks,
      embeddings: this.embeddings,
      chunking: this.chunking,
      changed: () => this.memoryChanged(),
    });
    this.memory = this.memoryService;
    this.knowledge = sqliteKnowledge({
      collections: this.collections,
      documents: this.documents,
      chunks: this.chunks,
      stats: this.stats,
      lexical: this.lexical,
      modes: this.modes,
      retriever: this.retriever,
      generation: () => this.generation,
      searched: () => this.embeddings.searched(),
      datasets: this.datasets,
      memory: this.memory,
    });
    // last: a constructor that throws above leaves no thread behind
    this.checkpointer = opts.backgroundCheckpoints ? WalCheckpointer.start(this.databaseFile) : null;
  }

  /** Memory was written: embed it in the background (when on) and, once writes pause, let an idle host merge its keyword index. */
  private memoryChanged(): void {
    this.embeddings.changed();
    this.indexing.keywordIndexWritten('memory_fts');
    if (this.mergeSoon) clearTimeout(this.mergeSoon);
    this.mergeSoon = setTimeout(() => {
      this.mergeSoon = null;
      if (!this.closed) this.indexing.wake();
    }, MERGE_QUIET_MS + 100);
    this.mergeSoon.unref();
  }

  static open(opts: EngineOptions): Engine {
    return new Engine(opts);
  }

  /** Closes the database at once; settles when model workers have exited (after their current run: terminating one mid-run aborts the process). */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    if (this.mergeSoon) clearTimeout(this.mergeSoon);
    this.memoryService.close();
    const datasets = this.registry.close(); // stops the manifest watcher; pending loads see the engine closed
    const models = this.embeddings.close();
    const parsers = this.indexing.close();
    this.db.close();
    const checkpoints = this.checkpointer?.close(); // after the writer's: its connection, the last, takes the final checkpoint
    return Promise.all([models, datasets, parsers, checkpoints, this.settings.close()]).then(() => undefined);
  }

  // ---- collections ---------------------------------------------------------------------

  addCollection(input: AddCollectionInput): CollectionInfo {
    const root = path.resolve(input.root);
    assertFolder(root);
    const name = input.name ?? path.basename(root);
    validateName(name);
    if (this.collections.get(name)) throw new TroveError('CONFLICT', `a collection named "${name}" already exists`);
    const include = validateGlobs(input.include?.length ? input.include : [...DEFAULT_INCLUDE], 'include');
    const exclude = validateGlobs([...DEFAULT_EXCLUDE, ...(input.exclude ?? [])], 'exclude');
    const row = this.collections.insert({ name, root: fs.realpathSync(root), include, exclude, context: input.context ?? '' });
    this.indexing.collectionAdded(row);
    return this.info(row);
  }

  listCollections(): CollectionInfo[] {
    const counts = this.stats.counts();
    return this.collections.list().map((c) => this.info(c, counts));
  }

  /** Names and context notes only: no document counts, cheap enough for every search. */
  collectionNotes(): { name: string; context: string }[] {
    return this.collections.list().map((c) => ({ name: c.name, context: c.context }));
  }

  renameCollection(oldName: string, newName: string): CollectionInfo {
    const c = this.requireCollection(oldName);
    validateName(newName);
    const clash = this.collections.get(newName);
    if (clash && clash.id !== c.id) throw new TroveError('CONFLICT', `a collection named "${newName}" already exists`);
    this.collections.rename(c.id, newName);
    this.indexing.collectionRenamed({ ...c, name: newName });
    this.generation++;
    return this.info(this.collections.get(newName)!);
  }

  removeCollection(name: string): void {
    const c = this.requireCollection(name);
    this.indexing.collectionRemoved(c.id); // watcher stopped, queued jobs cancelled at once
    this.db.transaction(() => {
      this.chunks.deleteForCollection(c.id);
      this.collections.delete(c.id);
    })();
    this.generation++;
    this.embeddings.changed();
  }

  setCollectionContext(name: string, context: string): CollectionInfo {
    const c = this.requireCollection(name);
    if (context.length > 4000) throw invalidInput('a context note is limited to 4000 characters');
    this.collections.setContext(c.id, context);
    return this.info(this.collections.get(c.name)!);
  }

  /** Secret redaction for one collection: true or false overrides the Settings switch, null follows it. */
  setCollectionRedaction(name: string, redactSecrets: boolean | null): CollectionInfo {
    const c = this.requireCollection(name);
    this.collections.setRedactSecrets(c.id, redactSecrets);
    return this.info(this.collections.get(c.name)!);
  }

  // ---- indexing ------------------------------------------------------------------------

  /** One collection, one folder dataset (`dataset`: its id), or every collection and folder dataset. */
  async index(opts: { collection?: string; dataset?: string; onProgress?: (p: IndexProgress) => void; signal?: AbortSignal } = {}): Promise<IndexReport[]> {
    const targets = opts.collection
      ? [this.requireCollection(opts.collection)]
      : opts.dataset !== undefined
        ? [this.requireFolderDataset(opts.dataset)]
        : [...this.collections.list(), ...this.registry.datasetCollections()];
    try {
      return await this.indexing.index(targets, opts); // through the durable queue: resumable after a crash
    } catch (err) {
      throw storageError(err) ?? err;
    } finally {
      this.generation++;
      await this.registry.indexed(); // folder datasets waiting for their first index become Ready
      this.embeddings.changed(); // background embedding (when enabled) after keyword indexing
    }
  }

  /** Merges the keyword index now, for the fastest searches (a watching host does this by itself when idle). */
  compactIndex(): Promise<void> {
    return this.indexing.compact();
  }

  // ---- embeddings ----------------------------------------------------------------------

  /**
   * Embeds every chunk still without a vector (all collections, or one); resumable. A space big
   * enough for an ANN index gets it built in the background; `waitForAnnIndex` (a one-shot command
   * about to exit) waits for it and saves it for the next process.
   */
  async embed(opts: { collection?: string; onProgress?: (p: EmbeddingProgress) => void; waitForAnnIndex?: boolean } = {}): Promise<CollectionEmbeddingStatus[]> {
    const memory = this.collections.get(MEMORY_COLLECTION, ['memory']);
    const targets = opts.collection
      ? [opts.collection === MEMORY_COLLECTION && memory ? memory : this.requireCollection(opts.collection)]
      : [...this.collections.list(), ...this.registry.datasetCollections(), ...(memory ? [memory] : [])];
    return this.embeddings.embedNow(targets, opts.onProgress, { waitForAnnIndex: opts.waitForAnnIndex }).catch((err: unknown) => {
      throw storageError(err) ?? err;
    });
  }

  /** Chooses a collection's embedding model (null: automatic). Vectors are rebuilt in the background and swapped in when complete. */
  async setCollectionModel(name: string, modelId: string | null): Promise<CollectionEmbeddingStatus> {
    return this.embeddings.chooseModel(this.requireCollection(name), modelId);
  }

  /** Background embedding: on or off (and what decided: the host's option, the saved setting, the default), and what it is doing. */
  backgroundEmbedding(): BackgroundEmbedding {
    return this.embeddings.backgroundNow(this.collections.list());
  }

  onEmbeddingProgress(listener: (p: EmbeddingProgress) => void): () => void {
    return this.embeddings.onProgress(listener);
  }

  /**
   * Watch every collection and folder dataset (and those added later) and keep the index fresh
   * until stopWatching; dataset manifests are watched too, so a changed one reloads.
   */
  async startWatching(): Promise<void> {
    this.registry.ensureStarted(); // folder datasets' collections exist before the watchers start
    await this.indexing.startWatching();
    await this.registry.startWatching();
  }

  async stopWatching(): Promise<void> {
    await this.registry.stopWatching();
    await this.indexing.stopWatching();
  }

  /** Pause background indexing and embedding of one collection, or of everything; changes keep being queued. */
  pause(collection?: string): void {
    this.indexing.pause(collection === undefined ? undefined : this.requireCollection(collection));
    this.embeddings.changed(); // the stage stops after the chunks in flight
  }

  resume(collection?: string): void {
    this.indexing.resume(collection === undefined ? undefined : this.requireCollection(collection));
    this.embeddings.changed();
  }

  /** Background work is in hand: an indexing run not yet idle, or the embedding stage running (a host's idle check). */
  busy(): boolean {
    return this.indexing.busy() || this.embeddings.busy();
  }

  /** The progress stream (phase, done/total, rate, ETA, current file). Returns an unsubscribe. */
  onProgress(listener: ProgressListener): () => void {
    return this.indexing.onProgress(listener);
  }

  /** Files that failed to index, with reason, attempts and next retry. */
  failures(collection?: string): FailureInfo[] {
    return this.indexing.failures(collection === undefined ? undefined : this.requireCollection(collection));
  }

  // ---- search and retrieval ---------------------------------------------------------------

  /** Keyword search answers synchronously; vector, hybrid and rerank with a promise (the query is embedded in a worker). */
  search(input: SearchRequest & { mode?: 'keyword' }): SearchResponse;
  search(input: SearchRequest): SearchResponse | Promise<SearchResponse>;
  search(input: SearchRequest): SearchResponse | Promise<SearchResponse> {
    const started = performance.now();
    this.embeddings.searched(); // background embedding gives way to searches
    const req = validateSearchRequest(input);
    const filters = this.resolveFilters(req);
    if (req.mode === 'keyword') return this.keywordSearch(req, filters, started);
    const collectionIds = filters.collectionIds ?? this.collections.list().map((c) => c.id);
    this.modes.assertAvailable(req.mode, collectionIds); // synchronously: a mode that cannot run says so before any work
    const p = this.modes.run(req, filters, collectionIds, this.generation).then((r) => semanticResponse(req, r, (ids) => this.indexing.freshness(ids), started));
    p.catch(() => undefined); // the caller gets the rejection; a probe that drops the promise must not crash the process
    return p;
  }

  private resolveFilters(req: ValidSearchRequest): ResolvedFilters {
    // a kind nothing can have is a typo, not an empty result
    const unknown = req.kinds?.find((k) => !KNOWN_KINDS.includes(k) && !this.stats.kindExists(k));
    if (unknown !== undefined) throw invalidInput(`unknown kind "${unknown}" (kinds: ${KNOWN_KINDS.join(', ')})`);
    return {
      collectionIds: req.collections?.map((n) => this.requireCollection(n).id),
      pathGlob: req.path,
      kinds: req.kinds,
      modifiedAfterMs: parseDateFilter(req.modifiedAfter, 'modifiedAfter'),
      modifiedBeforeMs: parseDateFilter(req.modifiedBefore, 'modifiedBefore'),
      tags: req.tags,
    };
  }

  private keywordSearch(req: ValidSearchRequest, filters: ResolvedFilters, started: number): SearchResponse {
    const r = this.lexical.search({ ...req, filters }, this.generation);
    return keywordResponse(req, r, req.freshness ? this.indexing.freshness(r.hits.map((h) => h.documentId)) : null, started);
  }

  /** One document. `highlight`: mark a query's words in the text (the app's preview of a result), as its snippets mark them. */
  get(locator: string, opts: GetOptions & { highlight?: { query: string; syntax?: SearchSyntax } } = {}): RetrievedDocument {
    const doc = this.retriever.get(locator, opts);
    if (!opts.highlight) return doc;
    const { query, syntax } = opts.highlight;
    return { ...doc, highlights: highlightSpans(doc.text, queryMatcher(query, syntax ?? 'match'), opts.lineNumbers ?? false) };
  }

  multiGet(pattern: string, opts: MultiGetOptions = {}): MultiGetResult {
    return this.retriever.multiGet(pattern, opts);
  }

  /** The index's status; `collections` limits it to a scoped caller's (see status-report.ts). */
  status(opts: { collections?: readonly string[]; memory?: boolean } = {}): StatusReport {
    return this.reports.status(opts);
  }

  /** Paths of the indexed documents of a collection, sorted (completions, suffix lookups). */
  documentPaths(collection: string): string[] {
    return this.documents.indexedPaths(this.requireCollection(collection).id);
  }

  // ---- access tokens -------------------------------------------------------------------

  /** Returns the secret once; only its hash is stored (see access-tokens.ts for the defaults). */
  createToken(input: CreateTokenInput): { token: string; info: TokenInfo } {
    return this.accessTokens.create(input);
  }

  listTokens(): TokenInfo[] {
    return this.accessTokens.list();
  }

  revokeToken(name: string): void {
    this.accessTokens.revoke(name);
  }

  /** The token a secret belongs to, or null; records its use. */
  verifyToken(secret: string): TokenInfo | null {
    return this.accessTokens.verify(secret);
  }

  private requireFolderDataset(id: string): CollectionRow {
    const d = this.datasets.info(id);
    const row = this.registry.datasetCollections().find((c) => c.name === `~dataset:${id}`);
    if (!row) throw new TroveError('INVALID_INPUT', `dataset "${id}" is ${d.kind === 'faiss' ? 'a FAISS index: it has nothing to index' : `${d.state}${d.reason ? `: ${d.reason}` : ''}`}`);
    return row;
  }

  private requireCollection(name: string): CollectionRow {
    const c = this.collections.get(name);
    if (!c) {
      const known = this.collections.list().map((k) => k.name);
      throw notFound(`no collection named "${name}"${known.length ? ` (collections: ${known.join(', ')})` : ''}`);
    }
    return c;
  }

  private info(c: CollectionRow, counts?: ReturnType<StatsStore['counts']>): CollectionInfo {
    return this.reports.info(c, counts);
  }
}
