// Embedding and reranker models, vectors per collection and the embedding stage's progress.
// Types only (see collections.ts).

export interface EmbeddingProgress {
  collection: string;
  model: string;
  /**
   * filling: the active space; switching: a new model's space, swapped in when complete;
   * paused: stopped with indexing (or background embedding turned off) before the end.
   */
  phase: 'filling' | 'switching' | 'paused' | 'done';
  done: number;
  total: number;
  chunksPerSecond: number;
  etaSeconds: number | null;
  /** Of `done`, the chunks that got a copy of a vector of the same text instead of a model run. */
  reused?: number;
}

export interface CollectionEmbeddingStatus {
  collection: string;
  /** The model whose vectors serve searches (null: none yet). */
  model: string | null;
  weightsSha256: string | null;
  vectors: number;
  needsEmbedding: number;
  /** Chunks of the collection (vectors + needsEmbedding, while no model switch is under way). */
  chunks: number;
  hasVectorIndex: boolean;
  /** A model being built to replace `model`; swapped in when complete. */
  switchingTo: string | null;
}

/**
 * The background embedding stage of this engine. `enabled` is what is in force: the engine's
 * option (a host's `--no-embed`, or a one-shot command that never embeds in the background) and
 * the saved setting; `source` says which of them decided.
 */
export interface BackgroundEmbedding {
  enabled: boolean;
  source: 'option' | 'saved' | 'default';
  /**
   * embedding: at work; waiting: keyword indexing (or a burst of searches) goes first; paused:
   * with indexing (Engine.pause); idle: nothing left to embed; off: not enabled.
   */
  state: 'embedding' | 'waiting' | 'paused' | 'idle' | 'off';
}

/** How much of some collections' text has vectors: what semantic search can see so far. */
export interface EmbeddingCoverage {
  /** Chunks with a vector in their collection's active space. */
  embedded: number;
  chunks: number;
  /** embedded / chunks in percent, one decimal (100 when there are no chunks). */
  percent: number;
  /** The stage's current rate over these collections (0 when it is not running). */
  chunksPerSecond: number;
  /** Seconds until every chunk has a vector at that rate; null when unknown or not running. */
  etaSeconds: number | null;
}

export interface EmbeddingStatusReport {
  needsEmbedding: number;
  hasVectorIndex: boolean;
  embeddings: {
    /** `summary`: how much of the collection is embedded, its model, and live progress, in words. */
    collections: (CollectionEmbeddingStatus & { problem: string | null; summary: string })[];
    progress: EmbeddingProgress[];
    background: BackgroundEmbedding;
    /** Over the collections shown. */
    coverage: EmbeddingCoverage;
    /** Coverage and what the background stage is doing, in the words `trove status` and the MCP status tool use. */
    summary: string;
  };
}

/** Where models are looked for, in order; downloads go to cacheDir. */
export interface ModelLocations {
  /** TROVE_MODELS_DIR: a folder holding one sub-folder per model id. */
  modelsDir?: string;
  /** Models shipped inside the app. */
  packagedDir?: string;
  /** Where downloads go (per profile). */
  cacheDir: string;
}

/** One model of the catalogue as a person sees it. */
export interface CatalogueEntry {
  id: string;
  role: string;
  languages: string[];
  dims: number | null;
  /** 'ready', 'ready (unverified: …)', or why it cannot be used (e.g. not downloaded). */
  state: string;
  ready: boolean;
  where: string | null;
  testOnly: boolean;
}

export type ModelVerification =
  | { id: string; ok: true; verified: boolean; weightsSha256: string; dir: string }
  | { id: string; ok: false; reason: string; looked: string[] };

export interface DownloadProgress {
  model: string;
  /** A model file, or the archive that holds some of them (e.g. a jar). */
  file: string;
  received: number;
  total: number | null;
  /** The source being downloaded from (the catalogue's name for it, or "mirror <url>"). */
  source: string;
}

/** A finished download: where the model is and which source served it. */
export interface PullResult {
  model: string;
  dir: string;
  /** The source that supplied what was fetched (null: every file was already here). */
  source: string | null;
  /** Sources tried before it, each with why it could not serve (e.g. unreachable). */
  passedOver: string[];
}

export interface PullOptions {
  /** Base URL serving <model id>/<file> instead of each model's own source (TROVE_MODELS_MIRROR). */
  mirror?: string;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

/** Engine.models: the model catalogue, downloads and checks (`trove models`, the app's Settings). */
export interface ModelsApi {
  /** Every model the manifest knows, and whether its files are here (and verified: reads and hashes them). */
  list(): Promise<CatalogueEntry[]>;
  /** Throws NOT_FOUND (naming the known ids) unless the manifest knows this model; cheap. */
  assertKnown(id: string): void;
  /** Where models are looked for, in order. */
  locations(): ModelLocations;
  /** The embedding models the collections (or the one named) use now that are not here yet: what `trove embed` downloads first. */
  missing(collection?: string): Promise<string[]>;
  /** Checks model files against their sha256: every model, or one (NOT_FOUND for an unknown id). */
  verify(id?: string): Promise<ModelVerification[]>;
  /** Downloads a model into the profile's cache from its sources in order (resumable, sha256-checked, atomic); resolves to its folder and the source that served. */
  pull(id: string, opts?: PullOptions): Promise<PullResult>;
}
