// The models an engine uses: resolved from their locations (TROVE_MODELS_DIR, the packaged models,
// the profile's downloads; every file sha256-checked), their worker pools started on first use and
// closed with the engine, the query embeddings (LRU cached), and the reranker's scores. A pool of an
// engine that embeds in the background keeps a worker free for queries (pool.ts's background lane).
import os from 'node:os';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { VectorSpace } from '../store/vectors.js';
import { findModel, loadManifest, type Manifest, type WeightsVariant } from './manifest.js';
import { ModelPool } from './pool.js';
import { resolveModel, type ModelLocations, type ResolvedModel } from './resolver.js';

export interface EmbeddingOptions {
  /**
   * Embed new and changed chunks in the background, at low priority (the hosts: `trove serve`
   * unless --no-embed, the desktop app). The saved setting `backgroundEmbedding` can still turn it
   * off, live. Default false: a one-shot command embeds only when asked (embed()).
   */
  auto?: boolean;
  /** Background chunks start only after searches have been quiet this long (default 100 ms). */
  searchQuietMs?: number;
  /** After this long without a search (default 2 s), background chunks go to every worker, not only the background ones. */
  spareAfterMs?: number;
  /** Workers that take background chunks (default: all but one, at least one). */
  backgroundWorkers?: number;
  /** Niceness of the background workers' threads on Linux (default 10; 0: normal priority). */
  backgroundNice?: number;
  /** A folder holding one sub-folder per model id, looked in first (TROVE_MODELS_DIR). */
  modelsDir?: string;
  packagedDir?: string;
  /** Where downloaded models live; default <profile>/models. */
  cacheDir?: string;
  /** Use this model for every collection without a choice of its own (default: automatic by language). */
  defaultModel?: string;
  /** Cross-encoder for mode rerank; default the manifest's default. null: none. */
  rerankModel?: string | null;
  /** The exact int8 weight rewrite where this CPU allows it (embed/signed-weights.ts); default true. */
  signedWeights?: boolean;
  /** Model worker threads (default: one per core, at most 2). */
  workers?: number;
  variant?: WeightsVariant;
  /** Chunks per write transaction (default 32). */
  batchChunks?: number;
  /** Chunks per model run in the embedding stage (default 1: exact vectors; see embedding-stage.ts). */
  runBatch?: number;
  /**
   * A semantic search first embeds the chunks in its scope still without a vector when there are at
   * most this many (default 256), so what was just written is found; beyond that it answers with what
   * is embedded and says how much is pending. 0: never.
   */
  catchUpChunks?: number;
  /** A vector space gets an ANN index from this many vectors (SQLite; default 20,000, store/sqlite/ann-spaces.ts). */
  annMinVectors?: number;
  manifestFile?: string;
}

const QUERY_CACHE = 256;

export class EmbeddingModels {
  readonly manifest: Manifest;
  readonly locations: ModelLocations;
  private readonly pools = new Map<string, Promise<ModelPool>>();
  private readonly resolved = new Map<string, Promise<ResolvedModel>>();
  private readonly queryCache = new Map<string, Float32Array>();
  private closed = false;

  constructor(
    profileDir: string,
    private readonly opts: EmbeddingOptions = {},
  ) {
    this.manifest = loadManifest(opts.manifestFile);
    this.locations = { modelsDir: opts.modelsDir, packagedDir: opts.packagedDir, cacheDir: opts.cacheDir ?? path.join(profileDir, 'models') };
  }

  /** A model of the catalogue as this host has it (NOT_FOUND when unknown; UNAVAILABLE when absent or not the expected build). */
  resolve(modelId: string, role: 'embed' | 'rerank' = 'embed'): Promise<ResolvedModel> {
    const key = `${role}:${modelId}`;
    let p = this.resolved.get(key);
    if (!p) {
      p = resolveModel(findModel(this.manifest, modelId, role), this.locations, this.opts.variant);
      this.resolved.set(key, p);
      p.catch(() => this.resolved.delete(key)); // a pulled or fixed model is seen next time
    }
    return p;
  }

  /** Forget resolutions (after a download or a file change). */
  refresh(): void {
    this.resolved.clear();
  }

  /** The model's workers (started on first use). */
  pool(model: ResolvedModel): Promise<ModelPool> {
    if (this.closed) return Promise.reject(new TroveError('UNAVAILABLE', 'the engine is closed'));
    const key = `${model.spec.id}@${model.weightsSha256}`;
    let p = this.pools.get(key);
    if (!p) {
      const workers = this.opts.workers ?? Math.max(1, Math.min(2, os.availableParallelism()));
      const rerank = model.spec.role === 'rerank';
      p = ModelPool.start(model, {
        workers: rerank ? 1 : workers, // reranking scores 30 short pairs per query: one worker is plenty
        intraOpThreads: 1,
        signedWeights: this.opts.signedWeights ?? true,
        signedCacheDir: path.join(this.locations.cacheDir, '.signed'),
        // an engine that embeds in the background keeps a worker free for queries (pool.ts)
        backgroundWorkers: this.opts.auto && !rerank ? (this.opts.backgroundWorkers ?? Math.max(1, workers - 1)) : 0,
        backgroundNice: this.opts.backgroundNice ?? 10,
      });
      this.pools.set(key, p);
      p.catch(() => this.pools.delete(key));
    }
    return p;
  }

  /** The query's vector in a space (the same model and weights that made its vectors). */
  async embedQuery(space: VectorSpace, query: string): Promise<Float32Array> {
    const key = `${space.id}\0${query}`;
    const hit = this.cached(key);
    if (hit) return hit;
    const model = await this.resolve(space.modelId);
    if (model.weightsSha256 !== space.weightsSha256) {
      throw new TroveError('UNAVAILABLE', `the vectors were made by other weights of "${space.modelId}" than the file now in ${model.dir}; they are being rebuilt`);
    }
    const v = await (await this.pool(model)).embed([query], 'query', { lane: 'urgent' });
    this.remember(key, v);
    return v;
  }

  /**
   * A text embedded by a model named directly (a registered dataset's vectors came from it), with
   * the model it resolved to. Queries are cached like embedQuery's and jump the workers' queue.
   */
  async embedWithModel(modelId: string, text: string, kind: 'query' | 'passage'): Promise<{ vector: Float32Array; model: ResolvedModel }> {
    const model = await this.resolve(modelId);
    const key = `${model.spec.id}@${model.weightsSha256}\0${kind}\0${text}`;
    const hit = kind === 'query' ? this.cached(key) : undefined;
    if (hit) return { vector: hit, model };
    const vector = await (await this.pool(model)).embed([text], kind, { lane: kind === 'query' ? 'urgent' : 'normal' });
    if (kind === 'query') this.remember(key, vector);
    return { vector, model };
  }

  /** The reranker model id, or null when none is configured. */
  rerankModelId(): string | null {
    return this.opts.rerankModel !== undefined ? this.opts.rerankModel : this.manifest.defaults.rerank;
  }

  /**
   * Cross-encoder logits for (query, passage) pairs; throws UNAVAILABLE when no reranker is
   * present — before `passages` is called, so a missing model costs no passage reads.
   */
  async rerankScores(query: string, passages: () => Promise<string[]>): Promise<Float32Array> {
    const id = this.rerankModelId();
    if (!id) throw new TroveError('UNAVAILABLE', 'no reranker is configured');
    const model = await this.resolve(id, 'rerank');
    const pool = await this.pool(model);
    return pool.score(query, await passages());
  }

  /** Settles when every pool's workers have exited (after their current run: terminating one mid-run aborts the process). */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.then((pool) => pool.close(), () => undefined)));
  }

  private cached(key: string): Float32Array | undefined {
    const hit = this.queryCache.get(key);
    if (hit) {
      this.queryCache.delete(key); // LRU: move to the back
      this.queryCache.set(key, hit);
    }
    return hit;
  }

  private remember(key: string, v: Float32Array): void {
    this.queryCache.set(key, v);
    if (this.queryCache.size > QUERY_CACHE) this.queryCache.delete(this.queryCache.keys().next().value!);
  }
}
