// The app's index in PostgreSQL (AppIndex, app-index.ts): what the window and the web UI ask of
// an index, answered by a host serving a shared index — SharedIndex for search, get, status,
// tokens, agent memory (SharedIndex.memory) and the knowledge room; SharedIndexer for collections
// (shared-collections.ts), index runs with their progress, pauses, watching and the background
// embedding loop; models from this host's profile; a collection's model chosen for every host.
// Registered datasets are SharedIndex's (shared-datasets.ts), made Ready by this host's indexer.
import { EngineModels, profileModelSource } from '../embed/models-api.js';
import type { EmbeddingOptions } from '../embed/embeddings.js';
import type { AppIndex } from '../app-index.js';
import type { CreateTokenInput } from '../access-tokens.js';
import type { GetOptions, MultiGetOptions } from '../retrieve/documents.js';
import type { SearchRequest } from '../search/request.js';
import type {
  AddCollectionInput,
  BackgroundEmbedding,
  CollectionEmbeddingStatus,
  CollectionInfo,
  EmbeddingProgress,
  IndexProgress,
  IndexReport,
  ModelsApi,
  SearchSyntax,
} from '../types/index.js';
import type { EngineOptions } from '../engine.js';
import { SharedIndex } from './shared-index.js';
import { sharedIndexOptions } from './shared-options.js';
import { SharedIndexer, sharedIndexerOptions } from './shared-indexer.js';
import { backgroundOf } from './shared-status.js';

export interface SharedAppOptions {
  embeddings?: EmbeddingOptions;
  /** startWatching() also starts the background embedding loop (default: unless the saved switch is off, read at start). */
  embed?: boolean;
  /** A line for the host's log per embedding run that did something or could not. */
  log?: (line: string) => void;
}

export class SharedApp implements AppIndex {
  readonly backend = 'postgres' as const;
  readonly models: ModelsApi;

  /** Over an index and an indexer on the same database that the caller owns (and closes, unless through close()). */
  constructor(
    private readonly shared: SharedIndex,
    private readonly indexer: SharedIndexer,
    private readonly opts: SharedAppOptions = {},
  ) {
    shared.trackBackgroundWork(indexer); // busy while indexing or embedding; status reports them
    this.models = new EngineModels(profileModelSource(shared.profileDir, opts.embeddings));
  }

  /** A host's own app index on a database (the desktop host): the index and the indexer opened from the engine's options; close() closes both. */
  static async open(url: string, engine: EngineOptions, opts: Omit<SharedAppOptions, 'embeddings'> = {}): Promise<SharedApp> {
    const shared = await SharedIndex.open(url, sharedIndexOptions(engine));
    try {
      return new SharedApp(shared, await SharedIndexer.open(url, sharedIndexerOptions(engine)), { ...opts, embeddings: engine.embeddings });
    } catch (err) {
      await shared.close();
      throw err;
    }
  }

  /** Keeps the folder collections this host sees fresh, with the other hosts, and embeds them and memory in the background unless `embed` is false. */
  async startWatching(): Promise<void> {
    await this.indexer.startWatching();
    await this.shared.startDatasets(); // folder datasets' collections made and watched, manifests followed
    const embed = this.opts.embed ?? this.settings.savedOrDefaults().backgroundEmbedding !== false;
    if (!embed) return;
    const log = this.opts.log ?? ((line: string) => process.stderr.write(`trove: ${line}\n`));
    await this.indexer.startEmbedding(log);
    this.shared.startMemoryEmbedding(log); // memory the window or an assistant stores gets its vectors here too, as on SQLite
  }

  /** Stops watching (the folders and the dataset manifests); a batch under way is written first. */
  async stopWatching(): Promise<void> {
    await this.shared.stopDatasets();
    await this.indexer.stopWatching();
  }

  get profileDir() {
    return this.shared.profileDir;
  }
  get settings() {
    return this.shared.settings;
  }
  get knowledge() {
    return this.shared.knowledge;
  }
  get memory() {
    return this.shared.memory;
  }
  get datasets() {
    return this.shared.datasets;
  }
  /** The URL with its password hidden (Settings' "database"). */
  get databaseFile(): string {
    return this.shared.location;
  }

  search(input: SearchRequest) {
    return this.shared.search(input);
  }
  get(locator: string, opts?: GetOptions & { highlight?: { query: string; syntax?: SearchSyntax } }) {
    return this.shared.get(locator, opts);
  }
  multiGet(pattern: string, opts?: MultiGetOptions) {
    return this.shared.multiGet(pattern, opts);
  }
  status(opts?: { collections?: readonly string[] }) {
    return this.shared.status(opts);
  }
  verifyToken(secret: string) {
    return this.shared.verifyToken(secret);
  }
  collectionNotes() {
    return this.shared.collectionNotes();
  }
  documentPaths(collection: string) {
    return this.shared.documentPaths(collection);
  }
  busy(): boolean {
    return this.shared.busy();
  }

  // ---- collections, runs, embedding: the indexer's (every host sees the change) ----
  listCollections(): Promise<CollectionInfo[]> {
    return this.indexer.listCollections();
  }
  addCollection(input: AddCollectionInput): Promise<CollectionInfo> {
    return this.indexer.addCollection(input);
  }
  renameCollection(oldName: string, newName: string): Promise<CollectionInfo> {
    return this.indexer.renameCollection(oldName, newName);
  }
  removeCollection(name: string): Promise<void> {
    return this.indexer.removeCollection(name);
  }
  setCollectionContext(name: string, context: string): Promise<CollectionInfo> {
    return this.indexer.setCollectionContext(name, context);
  }
  setCollectionRedaction(name: string, redactSecrets: boolean | null): Promise<CollectionInfo> {
    return this.indexer.setCollectionRedaction(name, redactSecrets);
  }
  index(opts: { collection?: string; onProgress?: (p: IndexProgress) => void; signal?: AbortSignal }): Promise<IndexReport[]> {
    return this.indexer.index(opts);
  }
  embed(opts: { collection?: string }): Promise<unknown> {
    return this.indexer.embed(opts);
  }
  /** The collection's model for every host (null: automatic; NOT_FOUND or UNAVAILABLE when the model is unknown or not here); the app's embed() then builds its space beside the active one. */
  async setCollectionModel(name: string, modelId: string | null): Promise<CollectionEmbeddingStatus> {
    await this.indexer.chooseModel(name, modelId);
    const status = await this.shared.status({ collections: [name] });
    return status.embeddings.collections[0]!;
  }
  async backgroundEmbedding(): Promise<BackgroundEmbedding> {
    return backgroundOf(this.indexer.hostWork());
  }
  onEmbeddingProgress(listener: (p: EmbeddingProgress) => void): () => void {
    return this.indexer.onEmbeddingProgress(listener);
  }
  onRemoteChange(listener: () => void): () => void {
    return this.shared.onRemoteChange(listener);
  }
  pause(collection?: string): Promise<void> {
    return this.indexer.pause(collection);
  }
  resume(collection?: string): Promise<void> {
    return this.indexer.resume(collection);
  }

  // ---- tokens: one set for every host on the database ----
  createToken(input: CreateTokenInput) {
    return this.shared.createToken(input);
  }
  listTokens() {
    return this.shared.listTokens();
  }
  revokeToken(name: string) {
    return this.shared.revokeToken(name);
  }

  /** Stops watching and embedding, then closes the indexer and the index (the desktop host owns both). */
  async close(): Promise<void> {
    await this.indexer.close();
    await this.shared.close();
  }
}
