// Models for a host on an index the engine's EmbeddingService does not own (the PostgreSQL
// backend today: engine/shared): embeds a query for a vector space, checking the space's weights
// are the ones on disk, scores passages with the cross-encoder, and gives the shared embedding
// stage (shared/shared-embedder.ts) a model's pool to embed passages with. Models are resolved and their
// workers started on first use, as EmbeddingService does, from the same locations and options.
import os from 'node:os';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { VectorSpace } from '../store/vectors.js';
import type { EmbeddingOptions } from './embeddings.js';
import { findModel, loadManifest, type Manifest } from './manifest.js';
import { ModelPool } from './pool.js';
import { resolveModel, type ResolvedModel } from './resolver.js';

const QUERY_CACHE = 256;

export class QueryEmbedder {
  /** The model catalogue (a registered dataset names its model from it). */
  readonly manifest: Manifest;
  private readonly pools = new Map<string, Promise<ModelPool>>();
  private readonly cache = new Map<string, Float32Array>();
  private closed = false;

  constructor(
    private readonly profileDir: string,
    private readonly opts: EmbeddingOptions = {},
  ) {
    this.manifest = loadManifest(opts.manifestFile);
  }

  /** The query's vector in this space; UNAVAILABLE when the model is missing or its weights are not the space's. */
  async embedQuery(space: VectorSpace, query: string): Promise<Float32Array> {
    const key = `${space.id}\0${query}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const model = await this.resolve(space.modelId, 'embed');
    if (model.weightsSha256 !== space.weightsSha256) {
      throw new TroveError('UNAVAILABLE', `the vectors were made by other weights of "${space.modelId}" than the file now in ${model.dir}`);
    }
    const v = await (await this.pool(model)).embed([query], 'query', { lane: 'urgent' });
    this.cache.set(key, v);
    if (this.cache.size > QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!);
    return v;
  }

  /** The reranker configured (null: none). */
  rerankModelId(): string | null {
    return this.opts.rerankModel !== undefined ? this.opts.rerankModel : this.manifest.defaults.rerank;
  }

  /** Cross-encoder logits for (query, passage) pairs; UNAVAILABLE (before reading passages) without a reranker. */
  async rerankScores(query: string, passages: () => Promise<string[]>): Promise<Float32Array> {
    const id = this.rerankModelId();
    if (!id) throw new TroveError('UNAVAILABLE', 'no reranker is configured');
    const model = await this.resolve(id, 'rerank');
    const pool = await this.pool(model);
    return pool.score(query, await passages());
  }

  /** An embedding model as this host has it: UNAVAILABLE when it is unknown, not a passage model, or not on this host. */
  embeddingModel(modelId: string): Promise<ResolvedModel> {
    return this.resolve(modelId, 'embed');
  }

  /** A text embedded by a model named directly (a registered FAISS dataset's vectors came from it); queries cached like embedQuery's. */
  async embedWithModel(modelId: string, text: string, kind: 'query' | 'passage'): Promise<{ vector: Float32Array; model: ResolvedModel }> {
    const model = await this.resolve(modelId, 'embed');
    const key = `${model.spec.id}@${model.weightsSha256}\0${kind}\0${text}`;
    const hit = kind === 'query' ? this.cache.get(key) : undefined;
    if (hit) return { vector: hit, model };
    const vector = await (await this.pool(model)).embed([text], kind, { lane: kind === 'query' ? 'urgent' : 'normal' });
    if (kind === 'query') {
      this.cache.set(key, vector);
      if (this.cache.size > QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!);
    }
    return { vector, model };
  }

  /** An embedding model's workers, for passages (UNAVAILABLE when the model is not on this host). */
  async passageModel(modelId: string): Promise<{ model: ResolvedModel; pool: ModelPool }> {
    const model = await this.resolve(modelId, 'embed');
    return { model, pool: await this.pool(model) };
  }

  /** The manifest's default embedding models (English, multilingual). */
  get defaults(): { embed: string; embedMultilingual: string } {
    return this.manifest.defaults;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = await Promise.allSettled([...this.pools.values()]);
    await Promise.all(pools.flatMap((p) => (p.status === 'fulfilled' ? [p.value.close()] : [])));
  }

  private async resolve(modelId: string, role: 'embed' | 'rerank'): Promise<ResolvedModel> {
    const locations = { modelsDir: this.opts.modelsDir, packagedDir: this.opts.packagedDir, cacheDir: this.opts.cacheDir ?? path.join(this.profileDir, 'models') };
    try {
      return await resolveModel(findModel(this.manifest, modelId, role), locations, this.opts.variant);
    } catch (err) {
      if (err instanceof TroveError) throw new TroveError('UNAVAILABLE', err.message);
      throw err;
    }
  }

  private pool(model: ResolvedModel): Promise<ModelPool> {
    if (this.closed) return Promise.reject(new TroveError('UNAVAILABLE', 'the index is closed'));
    const key = `${model.spec.id}@${model.weightsSha256}`;
    let p = this.pools.get(key);
    if (!p) {
      const workers = model.spec.role === 'rerank' ? 1 : (this.opts.workers ?? Math.max(1, Math.min(2, os.availableParallelism())));
      p = ModelPool.start(model, { workers, intraOpThreads: 1, signedWeights: this.opts.signedWeights ?? true });
      p.catch(() => this.pools.delete(key));
      this.pools.set(key, p);
    }
    return p;
  }
}
