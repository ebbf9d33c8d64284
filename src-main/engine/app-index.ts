// What the app (the app API behind the desktop window and the web UI) asks of an index: the
// served surface (served-index.ts) plus managing collections, index runs and their progress,
// embedding, pauses, tokens, models and datasets. Both the SQLite engine (Engine) and an index in
// PostgreSQL (shared/SharedApp: SharedIndex + SharedIndexer) satisfy it, so the app API takes this
// type and awaits every answer (promises on both backends).
// Declared once here; faces import it through engine/index.ts.
import type { CreateTokenInput } from './access-tokens.js';
import type { ServedIndex } from './served-index.js';
import type {
  AddCollectionInput,
  BackgroundEmbedding,
  CollectionEmbeddingStatus,
  CollectionInfo,
  EmbeddingProgress,
  IndexProgress,
  IndexReport,
  ModelsApi,
  TokenInfo,
} from './types/index.js';

export interface AppIndex extends ServedIndex {
  /** Where the index is, as Settings shows it: the SQLite file, or the PostgreSQL URL with its password hidden. */
  readonly databaseFile: string;
  /** The model catalogue and downloads: models stay files in this host's profile on every backend. */
  readonly models: ModelsApi;

  addCollection(input: AddCollectionInput): Promise<CollectionInfo>;
  listCollections(): Promise<CollectionInfo[]>;
  renameCollection(oldName: string, newName: string): Promise<CollectionInfo>;
  removeCollection(name: string): Promise<void>;
  setCollectionContext(name: string, context: string): Promise<CollectionInfo>;
  /** true or false overrides the Settings switch for this collection, null follows it. */
  setCollectionRedaction(name: string, redactSecrets: boolean | null): Promise<CollectionInfo>;

  /** Brings one collection (or all) up to date, with live progress; `signal` stops it at its next batch. */
  index(opts: { collection?: string; onProgress?: (p: IndexProgress) => void; signal?: AbortSignal }): Promise<IndexReport[]>;
  /** Embeds the chunks still without a vector (one collection, or all). */
  embed(opts: { collection?: string }): Promise<unknown>;
  /** Chooses a collection's embedding model (null: automatic). */
  setCollectionModel(name: string, modelId: string | null): Promise<CollectionEmbeddingStatus>;
  /** Background embedding on this host: on or off, what decided, what it is doing. */
  backgroundEmbedding(): Promise<BackgroundEmbedding>;
  onEmbeddingProgress(listener: (p: EmbeddingProgress) => void): () => void;
  /** Another host changed the index (PostgreSQL's change feed; never on SQLite, where this host is the only writer). */
  onRemoteChange?(listener: () => void): () => void;
  /** Pauses background indexing and embedding of one collection, or of everything. */
  pause(collection?: string): Promise<void>;
  resume(collection?: string): Promise<void>;

  /** Keeps the collections fresh while a host runs (watchers; on PostgreSQL also the background embedding loop), until stopWatching(). */
  startWatching(): Promise<void>;
  stopWatching(): Promise<void>;

  /** Returns the secret once; only its hash is stored. */
  createToken(input: CreateTokenInput): Promise<{ token: string; info: TokenInfo }>;
  listTokens(): Promise<TokenInfo[]>;
  revokeToken(name: string): Promise<void>;
}
