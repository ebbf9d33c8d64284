// The engine facade: the only door the faces (CLI, MCP server, app API) use. One engine on either
// backend — the profile's SQLite file or a database in PostgreSQL a team shares — behind the
// storage interface; it opens its storage, owns its services and closes them in order. There is no
// module-level state.
import path from 'node:path';
import { AccessTokens, type CreateTokenInput } from './access-tokens.js';
import { Collections } from './collections.js';
import { DatasetsRoom } from './datasets/datasets-room.js';
import { EmbeddingService } from './embed/embeddings.js';
import { EngineModels } from './embed/models-api.js';
import { invalidInput, TroveError } from './errors.js';
import { DEFAULT_CHUNKING, type ChunkOptions } from './ingest/chunker.js';
import { failuresOf } from './indexing/failures.js';
import { IndexingService } from './indexing/indexing-service.js';
import type { ProgressListener } from './indexing/progress.js';
import { openKnowledge } from './knowledge/open-knowledge.js';
import { MemoryService } from './memory/memory-service.js';
import { MEMORY_COLLECTION } from './memory/memory-search.js';
import { OcrService } from './ocr/ocr-service.js';
import { DocumentRetriever, type GetOptions, type MultiGetOptions } from './retrieve/documents.js';
import { highlightSpans, queryMatcher } from './search/highlight.js';
import { KeywordSearch } from './search/keyword-search.js';
import { ModeSearch } from './search/modes.js';
import { PageAnchors } from './search/page-anchors.js';
import { resolveFilters, validateSearchRequest, type SearchRequest } from './search/request.js';
import { keywordResponse, semanticResponse } from './search/response.js';
import { EngineSettings } from './settings/engine-settings.js';
import { DEFAULT_MAX_FILE_BYTES } from './settings/settings-store.js';
import { StatusReporter } from './status-report.js';
import { ALL_KINDS, type CollectionRow } from './store/collections.js';
import { MERGE_QUIET_MS } from './store/fts-merge.js';
import { openStorage } from './store/open-storage.js';
import type { Storage } from './store/storage.js';
import type {
  AddCollectionInput,
  BackgroundEmbedding,
  BackgroundOcr,
  CollectionEmbeddingStatus,
  CollectionInfo,
  CollectionOcrStatus,
  DatasetsApi,
  EmbeddingProgress,
  FailureInfo,
  IndexProgress,
  IndexReport,
  KnowledgeApi,
  MemoryApi,
  ModelsApi,
  MultiGetResult,
  OcrProgress,
  RetrievedDocument,
  SearchResponse,
  SearchSyntax,
  StatusReport,
  TokenInfo,
} from './types/index.js';
import type { EngineOptions } from './engine-options.js';

export type { EngineOptions };

export class Engine {
  readonly backend: Storage['backend'];
  readonly profileDir: string;
  /** Where the index is: the SQLite file, or the PostgreSQL URL with its password hidden. */
  readonly location: string;
  /** The model catalogue, downloads and checks (models stay files of this host's profile on every backend). */
  readonly models: ModelsApi;
  /** Saved settings, the limits in force and the redaction policy every face applies. */
  readonly settings: EngineSettings;
  /** Registered datasets: manifests, their states, search and documents. */
  readonly datasets: DatasetsApi;
  /** The agent memory store: threads of entries, searched like documents. */
  readonly memory: MemoryApi;
  /** knowledge.search / knowledge.get over every source: collections, datasets, memory. */
  readonly knowledge: KnowledgeApi;
  private readonly collections: Collections;
  private readonly reports: StatusReporter;
  private readonly tokens: AccessTokens;
  private readonly keyword: KeywordSearch;
  private readonly modes: ModeSearch;
  private readonly retriever: DocumentRetriever;
  private readonly indexing: IndexingService;
  private readonly embeddings: EmbeddingService;
  private readonly ocr: OcrService;
  private readonly datasetRoom: DatasetsRoom;
  private readonly memoryService: MemoryService;
  private readonly offRemote: () => void;
  /** Bumped whenever the index changes (here, or on another host): caches keyed on it stay honest. */
  private generation = 0;
  /** Each collection's redaction override, read once until the index changes. */
  private redaction: Promise<ReadonlyMap<string, boolean | null>> | null = null;
  private mergeSoon: NodeJS.Timeout | null = null;
  private closed = false;

  /** Opens the profile's SQLite index, or the PostgreSQL database `database` names (a bad URL is INVALID_INPUT, an unreachable server UNAVAILABLE). */
  static async open(opts: EngineOptions): Promise<Engine> {
    // checked before the index opens: a NaN limit would silently mean "no limit"
    if (opts.maxFileBytes !== undefined && !(Number.isSafeInteger(opts.maxFileBytes) && opts.maxFileBytes > 0)) {
      throw invalidInput(`maxFileBytes must be a positive whole number of bytes (got ${opts.maxFileBytes})`);
    }
    if (!opts.profileDir) throw invalidInput('a profile folder is required (TROVE_HOME, or the OS app-data folder)');
    const profileDir = path.resolve(opts.profileDir);
    const storage = await openStorage({
      profileDir,
      database: opts.database,
      nativeRank: opts.nativeRank,
      annMinVectors: opts.embeddings?.annMinVectors,
      backgroundCheckpoints: opts.backgroundCheckpoints,
      readerThreads: opts.readerThreads,
      offloadReads: opts.offloadReads,
    });
    try {
      return new Engine(storage, profileDir, opts);
    } catch (err) {
      await storage.close();
      throw err;
    }
  }

  private constructor(
    private readonly storage: Storage,
    profileDir: string,
    opts: EngineOptions,
  ) {
    this.backend = storage.backend;
    this.profileDir = profileDir;
    this.location = storage.location;
    const chunking: ChunkOptions = { ...DEFAULT_CHUNKING, ...opts.chunking };
    const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const settings = new EngineSettings(profileDir, { maxFileBytes: opts.maxFileBytes, chunking, collectionRedaction: () => this.collectionRedaction() });
    this.settings = settings;
    const fusion = opts.search?.fusion ?? 'rrf';
    this.indexing = new IndexingService(
      storage,
      // files about to be parsed: when some may be scans, an OCR worker gets ready meanwhile
      { ...opts.indexing, chunking, maxFileBytes, maxFileBytesNow: () => settings.maxFileBytes().value, willParse: (c, paths) => this.ocr.willParse(c, paths) },
      () => this.changed(),
    );
    this.embeddings = new EmbeddingService(storage, profileDir, opts.embeddings, {
      collections: () => storage.collections.list(ALL_KINDS),
      saved: () => settings.savedOrDefaults().backgroundEmbedding,
      paused: () => this.indexing.pausesNow(),
      indexingBusy: () => this.indexing.busy(),
    });
    const { models } = this.embeddings;
    const ocrSaved = () => settings.savedOrDefaults().ocr;
    const background = { paused: () => this.indexing.pausesNow(), indexingBusy: () => this.indexing.busy(), changed: () => this.changed() };
    this.ocr = new OcrService({ storage, profileDir, models, parse: (bytes, file, ocr) => this.indexing.parse(bytes, file, ocr), saved: ocrSaved, ...background }, opts.ocr);
    settings.onSaved(() => (this.embeddings.changed(), this.ocr.changed())); // the Settings switches apply at once
    // an OCR language pulled: collections waiting for it are read
    const refresh = () => (models.refresh(), this.ocr.languagesChanged());
    this.models = new EngineModels({ manifest: models.manifest, modelLocations: models.locations, refresh, modelsInUse: (c) => this.embeddings.modelsInUse(c) });
    const anchors = new PageAnchors(storage);
    this.keyword = new KeywordSearch(storage, anchors);
    this.modes = new ModeSearch(storage, this.keyword, this.embeddings, { fusion });
    this.retriever = new DocumentRetriever(storage);
    this.collections = new Collections(storage, this.indexing, () => this.changed(), (languages) => this.ocr.ready(languages));
    this.tokens = new AccessTokens(storage.tokens, async (name) => (await this.collections.require(name)).id);
    const live = opts.indexing?.live;
    this.datasetRoom = new DatasetsRoom({
      storage,
      profileDir,
      embeddings: this.embeddings,
      indexing: this.indexing,
      anchors,
      fusion,
      generation: () => this.generation,
      changed: () => this.changed(),
      watch: { usePolling: live?.usePolling ?? false, pollIntervalMs: live?.pollIntervalMs ?? 1000 },
      hnswGraphFrom: opts.datasets?.hnswGraphFrom,
      projectRoot: opts.datasets?.projectRoot,
    });
    this.datasets = this.datasetRoom.api;
    this.memoryService = new MemoryService({ storage, embeddings: this.embeddings, chunking, changed: () => this.memoryChanged() });
    this.memory = this.memoryService;
    this.knowledge = openKnowledge({
      storage,
      keyword: this.keyword,
      modes: this.modes,
      retriever: this.retriever,
      generation: () => this.generation,
      searched: () => this.searchStarted(),
      datasets: this.datasets,
      memory: this.memory,
    });
    this.reports = new StatusReporter({
      profileDir,
      storage,
      indexing: () => this.indexing.status(),
      embeddings: (visible) => this.embeddings.statusReport(visible),
      ocr: (visible) => this.ocr.statusReport(visible),
      datasets: () => this.datasets.list(),
      memory: () => this.memory.summary(),
    });
    // another host changed the index (PostgreSQL's change feed): caches start over, and what it wrote is looked at here too
    this.offRemote = storage.changes.onRemoteChange((collectionId) => {
      this.changed();
      void this.memoryService.remoteChange(collectionId);
      this.datasetRoom.remoteChange();
      void this.indexing.refreshPauses();
    });
  }

  /** The index changed: caches start over, and background embedding and OCR (when on) look for work. */
  private changed(): void {
    this.generation++;
    this.redaction = null;
    this.embeddings.changed();
    this.ocr.changed();
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

  /** Stops the background work in order, then closes the index; settles when model and parse workers have exited (after their current run: terminating an ONNX worker mid-run aborts the process). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.mergeSoon) clearTimeout(this.mergeSoon);
    this.offRemote();
    await this.datasetRoom.close(); // stops the manifest watcher; pending loads see the engine closed
    await this.ocr.close(); // the page on each OCR worker finishes and is written (indexing's parse workers still up); what is left stays queued
    await this.indexing.close();
    await this.embeddings.close();
    await this.memoryService.flush().catch(() => undefined); // metrics held back are written if the index still answers
    await this.storage.close();
    await this.settings.close();
  }

  // ---- collections ---------------------------------------------------------------------

  addCollection(input: AddCollectionInput): Promise<CollectionInfo> {
    return this.collections.add(input);
  }

  listCollections(): Promise<CollectionInfo[]> {
    return this.collections.list();
  }

  /** Names and context notes only: no document counts, cheap enough for every search. */
  collectionNotes(): Promise<{ name: string; context: string }[]> {
    return this.collections.notes();
  }

  renameCollection(oldName: string, newName: string): Promise<CollectionInfo> {
    return this.collections.rename(oldName, newName);
  }

  removeCollection(name: string): Promise<void> {
    return this.collections.remove(name);
  }

  setCollectionContext(name: string, context: string): Promise<CollectionInfo> {
    return this.collections.setContext(name, context);
  }

  /** Secret redaction for one collection: true or false overrides the Settings switch, null follows it. */
  setCollectionRedaction(name: string, redactSecrets: boolean | null): Promise<CollectionInfo> {
    return this.collections.setRedaction(name, redactSecrets);
  }

  // ---- indexing ------------------------------------------------------------------------

  /** One collection, one folder dataset (`dataset`: its id), or every collection and folder dataset; other hosts sharing the index help. */
  async index(opts: { collection?: string; dataset?: string; onProgress?: (p: IndexProgress) => void; signal?: AbortSignal } = {}): Promise<IndexReport[]> {
    const targets = opts.collection
      ? [await this.collections.require(opts.collection)]
      : opts.dataset !== undefined
        ? [await this.requireFolderDataset(opts.dataset)]
        : [...(await this.storage.collections.list()), ...(await this.datasetRoom.datasetCollections())];
    try {
      return await this.indexing.index(targets, opts); // through the durable queue: resumable after a crash
    } finally {
      this.changed(); // background embedding (when enabled) after keyword indexing
      await this.datasetRoom.indexed(); // folder datasets waiting for their first index become Ready
    }
  }

  /** Merges the keyword index now, for the fastest searches (a watching host does this by itself when idle). */
  compactIndex(): Promise<void> {
    return this.indexing.compact();
  }

  // ---- embeddings ----------------------------------------------------------------------

  /**
   * Embeds every chunk still without a vector (all collections, or one), sharing the work with
   * other hosts on a shared index; resumable. `waitForAnnIndex` (a one-shot command about to exit)
   * also builds what makes kNN fast on this backend and keeps it for the next process.
   */
  async embed(opts: { collection?: string; onProgress?: (p: EmbeddingProgress) => void; waitForAnnIndex?: boolean } = {}): Promise<CollectionEmbeddingStatus[]> {
    const all = await this.storage.collections.list(ALL_KINDS);
    const named = opts.collection?.toLowerCase();
    const targets = named === undefined ? all : [all.find((c) => c.name.toLowerCase() === named) ?? (await this.collections.require(opts.collection!))];
    return this.embeddings.embedNow(targets, opts.onProgress, { waitForAnnIndex: opts.waitForAnnIndex });
  }

  /** Chooses a collection's embedding model (null: automatic), for every host on the index. Vectors are rebuilt in the background and swapped in when complete. */
  async setCollectionModel(name: string, modelId: string | null): Promise<CollectionEmbeddingStatus> {
    return this.embeddings.chooseModel(await this.collections.require(name), modelId);
  }

  /** Background embedding: on or off (and what decided: the host's option, the saved setting, the default), and what it is doing. */
  async backgroundEmbedding(): Promise<BackgroundEmbedding> {
    return this.embeddings.backgroundNow(await this.storage.collections.list());
  }

  onEmbeddingProgress(listener: (p: EmbeddingProgress) => void): () => void {
    return this.embeddings.onProgress(listener);
  }

  /** Another host changed the index (a shared database's change feed; never on SQLite, where this engine is the only writer). */
  onRemoteChange(listener: () => void): () => void {
    return this.storage.changes.onRemoteChange(() => listener());
  }

  /**
   * Watch every collection and folder dataset (and those added later, here or by another host) and
   * keep the index fresh until stopWatching; dataset manifests are watched too, so a changed one reloads.
   */
  async startWatching(): Promise<void> {
    await this.datasetRoom.datasetCollections(); // folder datasets' collections exist before the watchers start
    await this.indexing.startWatching();
    await this.datasetRoom.startWatching();
  }

  async stopWatching(): Promise<void> {
    await this.datasetRoom.stopWatching();
    await this.indexing.stopWatching();
  }

  /** Pause background indexing and embedding of one collection, or of everything; changes keep being queued. */
  async pause(collection?: string): Promise<void> {
    const pausing = (async () => this.indexing.pause(collection === undefined ? undefined : await this.collections.require(collection)))();
    this.embeddings.pauseUnderWay(pausing); // no background batch starts before the pause is in force, whatever the index's round trips take
    await pausing;
    this.embeddings.changed(); // the stage stops after the chunks in flight
    this.ocr.changed(); // and OCR after the pages in flight
  }

  async resume(collection?: string): Promise<void> {
    await this.indexing.resume(collection === undefined ? undefined : await this.collections.require(collection));
    this.embeddings.changed();
    this.ocr.changed();
  }

  /** Background work is in hand: an indexing run not yet idle, or the embedding stage running (a host's idle check). */
  busy(): boolean {
    return this.indexing.busy() || this.embeddings.busy() || this.ocr.busy();
  }

  /** The progress stream (phase, done/total, rate, ETA, current file). Returns an unsubscribe. */
  onProgress(listener: ProgressListener): () => void {
    return this.indexing.onProgress(listener);
  }

  /** Files that failed to index, and pages OCR could not read, with reason, attempts and next retry. */
  async failures(collection?: string): Promise<FailureInfo[]> {
    const only = collection === undefined ? undefined : await this.collections.require(collection);
    const [files, pages] = await Promise.all([failuresOf(this.storage, only), this.ocr.failures(only ? [only] : await this.storage.collections.list(['folder', 'dataset']))]);
    return [...files, ...pages];
  }

  // ---- OCR -------------------------------------------------------------------------------

  /** Reads the scanned pages still waiting (every collection, or one) now, with every OCR worker; where each collection stands. */
  async recognize(opts: { collection?: string; onProgress?: (p: OcrProgress) => void } = {}): Promise<CollectionOcrStatus[]> {
    const targets = opts.collection ? [await this.collections.require(opts.collection)] : await this.storage.collections.list();
    return this.ocr.readNow(targets, opts.onProgress);
  }

  /** The languages OCR reads a collection's scans in (null: English); its pages are read again in them. */
  setCollectionOcrLanguages(name: string, languages: string[] | null): Promise<CollectionInfo> {
    return this.collections.setOcrLanguages(name, languages);
  }

  /** Background OCR: on or off (and what decided), and what it is doing. */
  backgroundOcr(): BackgroundOcr {
    return this.ocr.background();
  }

  onOcrProgress(listener: (p: OcrProgress) => void): () => void {
    return this.ocr.onProgress(listener);
  }

  // ---- search and retrieval ---------------------------------------------------------------

  /** A client is calling (an MCP request came in): what serves reads is made ready before they come many at once. */
  clientCalling(): void {
    this.storage.warmReads();
  }

  /** Background work gives way to searches: embedding, OCR, and indexing's use of the parse workers. */
  private searchStarted(): void {
    this.embeddings.searched();
    this.ocr.searched();
    this.indexing.searched();
  }

  /** Keyword, vector, hybrid or reranked search (the query embedded in a worker for the semantic modes). */
  async search(input: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    this.searchStarted();
    const req = validateSearchRequest(input);
    const filters = await resolveFilters(req, { collectionId: async (n) => (await this.collections.require(n)).id, kindExists: (k) => this.storage.stats.kindExists(k) });
    if (req.mode === 'keyword') {
      const r = await this.keyword.search({ ...req, filters }, this.generation);
      return keywordResponse(req, r, req.freshness ? await this.indexing.freshness(r.hits.map((h) => h.documentId)) : null, started);
    }
    const all = await this.storage.collections.list();
    const collections = filters.collectionIds ? all.filter((c) => filters.collectionIds!.includes(c.id)) : all;
    const r = await this.modes.run(req, filters, collections, this.generation);
    return semanticResponse(req, r, (ids) => this.indexing.freshness(ids), started);
  }

  /** One document. `highlight`: mark a query's words in the text (the app's preview of a result), as its snippets mark them. */
  async get(locator: string, opts: GetOptions & { highlight?: { query: string; syntax?: SearchSyntax } } = {}): Promise<RetrievedDocument> {
    const doc = await this.retriever.get(locator, opts);
    if (!opts.highlight) return doc;
    const { query, syntax } = opts.highlight;
    return { ...doc, highlights: highlightSpans(doc.text, queryMatcher(query, syntax ?? 'match'), opts.lineNumbers ?? false) };
  }

  multiGet(pattern: string, opts: MultiGetOptions = {}): Promise<MultiGetResult> {
    return this.retriever.multiGet(pattern, opts);
  }

  /** The index's status; `collections` limits it to a scoped caller's (see status-report.ts). */
  status(opts: { collections?: readonly string[]; memory?: boolean } = {}): Promise<StatusReport> {
    return this.reports.status(opts);
  }

  /** Paths of the indexed documents of a collection, sorted (completions, suffix lookups). */
  async documentPaths(collection: string): Promise<string[]> {
    return this.storage.documents.indexedPaths((await this.collections.require(collection)).id);
  }

  // ---- access tokens: one set for every host on the index (access-tokens.ts) ---------------

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

  // ---- helpers -------------------------------------------------------------------------

  private async requireFolderDataset(id: string): Promise<CollectionRow> {
    const d = await this.datasets.info(id);
    const row = (await this.datasetRoom.datasetCollections()).find((c) => c.name === `~dataset:${id}`);
    if (!row) throw new TroveError('INVALID_INPUT', `dataset "${id}" is ${d.kind === 'faiss' ? 'a FAISS index: it has nothing to index' : `${d.state}${d.reason ? `: ${d.reason}` : ''}`}`);
    return row;
  }

  private collectionRedaction(): Promise<ReadonlyMap<string, boolean | null>> {
    const read = (this.redaction ??= this.storage.collections.list(ALL_KINDS).then((rows) => new Map(rows.map((c) => [c.name.toLowerCase(), c.redactSecrets]))));
    read.catch(() => {
      if (this.redaction === read) this.redaction = null; // a failed read is not kept
    });
    return read;
  }
}

export { MEMORY_COLLECTION };
