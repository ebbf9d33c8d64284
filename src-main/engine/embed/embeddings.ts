// The engine's embedding side: which model serves each collection (chosen, or automatic by
// language), model workers (started on first use, closed with the engine), the background
// embedding stage with its progress, query embeddings (LRU cached) and the reranker.
// Without a model everything here says why it is off; keyword search never depends on it.
import os from 'node:os';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { ChunkStore } from '../store/chunks.js';
import { VectorStore, type VectorSpace } from '../store/vectors.js';
import { AnnSpaces } from '../search/ann-spaces.js';
import type { PendingEmbeddingProbe } from '../watch/freshness.js';
import { fillSpace, type EmbeddingProgress } from './embedding-stage.js';
import { looksEnglish } from './language.js';
import { findModel, loadManifest, type Manifest, type WeightsVariant } from './manifest.js';
import { ModelPool } from './pool.js';
import { resolveModel, type ModelLocations, type ResolvedModel } from './resolver.js';
import type { CollectionEmbeddingStatus, EmbeddingStatusReport } from '../types/models.js';

export type { CollectionEmbeddingStatus, EmbeddingStatusReport };

export interface EmbeddingOptions {
  /** Embed in the background after every index change (default false: call embed()). */
  auto?: boolean;
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
  /** A vector space gets an ANN index from this many vectors (default 20,000; see search/ann-spaces.ts). */
  annMinVectors?: number;
  manifestFile?: string;
}

const QUERY_CACHE = 256;

export class EmbeddingService {
  readonly manifest: Manifest;
  private readonly locations: ModelLocations;
  private readonly pools = new Map<string, Promise<ModelPool>>();
  private readonly resolved = new Map<string, Promise<ResolvedModel>>();
  private readonly queryCache = new Map<string, Float32Array>();
  private readonly listeners = new Set<(p: EmbeddingProgress) => void>();
  private readonly latest = new Map<string, EmbeddingProgress>();
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Why the last stage could not embed a collection (model missing, corrupt...). */
  private readonly problems = new Map<string, string>();

  readonly vectors: VectorStore;
  readonly ann: AnnSpaces;
  private readonly sampleTextStmt;
  private readonly collectionIdsStmt;
  private readonly chunkCountStmt;
  private readonly textStmt;

  constructor(
    private readonly db: Db,
    profileDir: string,
    private readonly opts: EmbeddingOptions = {},
  ) {
    this.manifest = loadManifest(opts.manifestFile);
    this.vectors = new VectorStore(db);
    this.ann = new AnnSpaces(this.vectors, path.join(profileDir, 'vectors'), opts.annMinVectors);
    this.vectors.setListener(this.ann);
    this.sampleTextStmt = db.prepare<[number], { t: string }>(
      `SELECT substr(t.text, 1, 2000) AS t FROM contents t JOIN documents d ON d.id = t.document_id WHERE d.collection_id = ? ORDER BY d.id LIMIT 40`,
    );
    this.collectionIdsStmt = db.prepare<[], { id: number; name: string }>('SELECT id, name FROM collections ORDER BY id');
    this.chunkCountStmt = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.collection_id = ?');
    this.textStmt = db.prepare<[number], { text: string }>('SELECT text FROM contents WHERE document_id = ?');
    this.locations = {
      modelsDir: opts.modelsDir,
      packagedDir: opts.packagedDir,
      cacheDir: opts.cacheDir ?? path.join(profileDir, 'models'),
    };
  }

  get modelLocations(): ModelLocations {
    return this.locations;
  }

  /** Vectors are deleted with their chunks; freshness asks which documents still wait for vectors. */
  follow(chunks: ChunkStore, indexing: { setPendingEmbeddingProbe(probe: PendingEmbeddingProbe | null): void }): void {
    chunks.addDeleteHook({ forDocument: (id) => this.vectors.deleteForDocument(id), forCollection: (id) => this.vectors.deleteForCollection(id) });
    indexing.setPendingEmbeddingProbe((ids) => this.vectors.documentsPending(ids));
  }

  // ---- models --------------------------------------------------------------------------

  /** The model a collection uses: its own choice, the configured default, or by its language. */
  modelFor(collectionId: number): string {
    const choice = this.vectors.collection(collectionId).modelChoice ?? this.opts.defaultModel;
    if (choice) return choice;
    const rows = this.sampleTextStmt.all(collectionId);
    return looksEnglish(rows.map((r) => r.t).join('\n')) ? this.manifest.defaults.embed : this.manifest.defaults.embedMultilingual;
  }

  resolve(modelId: string, role: 'embed' | 'rerank' = 'embed'): Promise<ResolvedModel> {
    let p = this.resolved.get(modelId);
    if (!p) {
      p = resolveModel(findModel(this.manifest, modelId, role), this.locations, this.opts.variant);
      this.resolved.set(modelId, p);
      p.catch(() => this.resolved.delete(modelId)); // a pulled or fixed model is seen next time
    }
    return p;
  }

  /** Forget resolutions (after a download or a file change). */
  refresh(): void {
    this.resolved.clear();
  }

  private pool(model: ResolvedModel): Promise<ModelPool> {
    if (this.closed) return Promise.reject(new TroveError('UNAVAILABLE', 'the engine is closed'));
    const key = `${model.spec.id}@${model.weightsSha256}`;
    let p = this.pools.get(key);
    if (!p) {
      const workers = this.opts.workers ?? Math.max(1, Math.min(2, os.availableParallelism()));
      // reranking scores 30 short pairs per query: one worker is plenty
      p = ModelPool.start(model, { workers: model.spec.role === 'rerank' ? 1 : workers, intraOpThreads: 1, signedWeights: this.opts.signedWeights ?? true });
      this.pools.set(key, p);
      p.catch(() => this.pools.delete(key));
    }
    return p;
  }

  // ---- the background stage ------------------------------------------------------------

  onProgress(listener: (p: EmbeddingProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  progress(): EmbeddingProgress[] {
    return [...this.latest.values()];
  }

  problem(collection: string): string | null {
    return this.problems.get(collection) ?? null;
  }

  /** The stage is embedding, or about to (a change was just seen with `auto` on). */
  busy(): boolean {
    return this.running !== null || this.timer !== null;
  }

  /** Called on every index change: embeds in the background when `auto` is on. */
  changed(): void {
    if (!this.opts.auto || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run().catch((err: unknown) => process.stderr.write(`trove: embedding stage failed: ${(err as Error).message}\n`));
    }, 300);
  }

  /** Embeds every chunk still without a vector; resolves when none is left (or the engine closes). */
  run(collections?: readonly { id: number; name: string }[]): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          for (const c of collections ?? this.allCollections()) {
            if (this.closed) return;
            await this.embedCollection(c.id, c.name);
          }
        } while (this.again && !this.closed);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private allCollections(): { id: number; name: string }[] {
    return this.collectionIdsStmt.all();
  }

  private async embedCollection(collectionId: number, name: string): Promise<void> {
    const modelId = this.modelFor(collectionId);
    let model: ResolvedModel;
    let pool: ModelPool;
    try {
      model = await this.resolve(modelId);
      pool = await this.pool(model);
    } catch (err) {
      this.problems.set(name, (err as Error).message);
      return;
    }
    this.problems.delete(name);
    if (this.closed) return;
    const space = this.vectors.ensureSpace(model.spec.id, model.weightsSha256, pool.dims);
    const cv = this.vectors.collection(collectionId);
    let switching = false;
    if (cv.activeSpaceId === null) this.vectors.setActive(collectionId, space.id);
    else if (cv.activeSpaceId !== space.id) {
      // another model, or other weights under the same id: build beside the old vectors, swap when done
      if (cv.buildingSpaceId !== space.id) this.vectors.setBuilding(collectionId, space.id);
      switching = true;
    } else if (cv.buildingSpaceId !== null) {
      this.vectors.setBuilding(collectionId, null);
      this.vectors.dropUnusedSpaces();
    }
    let complete = false;
    try {
      complete = await fillSpace(this.vectors, (documentId) => this.textStmt.get(documentId)?.text ?? '', { collectionId, collection: name, spaceId: space.id, switching, pool }, {
        batch: this.opts.batchChunks ?? 32,
        isStopped: () => this.closed,
        onProgress: (p) => {
          this.latest.set(name, p);
          for (const l of this.listeners) l(p);
        },
      });
    } catch (err) {
      if (this.closed) return; // closing rejects queued chunks: they stay pending for next time
      this.problems.set(name, (err as Error).message);
      return;
    }
    if (complete && switching) this.vectors.swap(collectionId);
  }

  /** Runs the stage over these collections now; throws UNAVAILABLE when none of them could be embedded. */
  async embedNow(targets: readonly { id: number; name: string }[], onProgress?: (p: EmbeddingProgress) => void): Promise<CollectionEmbeddingStatus[]> {
    const off = onProgress ? this.onProgress(onProgress) : () => undefined;
    try {
      await this.run(targets.map((c) => ({ id: c.id, name: c.name })));
    } finally {
      off();
    }
    const problems = targets.map((c) => this.problem(c.name)).filter((p): p is string => !!p);
    if (problems.length === targets.length && problems.length) throw new TroveError('UNAVAILABLE', problems[0]!);
    return targets.map((c) => this.collectionStatus(c.id, c.name));
  }

  /** A collection's model (null: automatic); checked now, re-embedded by the stage, swapped in when complete. */
  async chooseModel(c: { id: number; name: string }, modelId: string | null): Promise<CollectionEmbeddingStatus> {
    if (modelId !== null) await this.resolve(modelId); // fails now when the model is unknown or absent
    this.vectors.setModelChoice(c.id, modelId);
    this.changed();
    return this.collectionStatus(c.id, c.name);
  }

  // ---- queries -------------------------------------------------------------------------

  /** The query's vector in a space (the same model and weights that made its vectors). */
  async embedQuery(space: VectorSpace, query: string): Promise<Float32Array> {
    const key = `${space.id}\0${query}`;
    const hit = this.queryCache.get(key);
    if (hit) {
      this.queryCache.delete(key); // LRU: move to the back
      this.queryCache.set(key, hit);
      return hit;
    }
    const model = await this.resolve(space.modelId);
    if (model.weightsSha256 !== space.weightsSha256) {
      throw new TroveError('UNAVAILABLE', `the vectors were made by other weights of "${space.modelId}" than the file now in ${model.dir}; they are being rebuilt`);
    }
    const v = await (await this.pool(model)).embed([query], 'query', { urgent: true });
    this.queryCache.set(key, v);
    if (this.queryCache.size > QUERY_CACHE) this.queryCache.delete(this.queryCache.keys().next().value!);
    return v;
  }

  /**
   * A text embedded by a model named directly (a registered dataset's vectors came from it), with
   * the model it resolved to. Queries are cached like embedQuery's and jump the workers' queue.
   */
  async embedWithModel(modelId: string, text: string, kind: 'query' | 'passage'): Promise<{ vector: Float32Array; model: ResolvedModel }> {
    const model = await this.resolve(modelId);
    const key = `${model.spec.id}@${model.weightsSha256}\0${kind}\0${text}`;
    const hit = this.queryCache.get(key);
    if (hit) {
      this.queryCache.delete(key);
      this.queryCache.set(key, hit);
      return { vector: hit, model };
    }
    const vector = await (await this.pool(model)).embed([text], kind, { urgent: kind === 'query' });
    if (kind === 'query') {
      this.queryCache.set(key, vector);
      if (this.queryCache.size > QUERY_CACHE) this.queryCache.delete(this.queryCache.keys().next().value!);
    }
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
  async rerankScores(query: string, passages: () => string[]): Promise<Float32Array> {
    const id = this.rerankModelId();
    if (!id) throw new TroveError('UNAVAILABLE', 'no reranker is configured');
    const model = await this.resolve(id, 'rerank');
    return (await this.pool(model)).score(query, passages());
  }

  // ---- status --------------------------------------------------------------------------

  collectionStatus(collectionId: number, name: string): CollectionEmbeddingStatus {
    const cv = this.vectors.collection(collectionId);
    const active = cv.activeSpaceId !== null ? this.vectors.space(cv.activeSpaceId) : undefined;
    const building = cv.buildingSpaceId !== null ? this.vectors.space(cv.buildingSpaceId) : undefined;
    const vectors = active ? this.vectors.count(active.id, collectionId) : 0;
    const chunks = this.chunkCountStmt.get(collectionId)!.n;
    return {
      collection: name,
      model: active?.modelId ?? null,
      weightsSha256: active?.weightsSha256 ?? null,
      vectors,
      needsEmbedding: active ? this.vectors.pendingCount(active.id, collectionId) : chunks,
      hasVectorIndex: vectors > 0,
      switchingTo: building?.modelId ?? null,
    };
  }

  statusReport(visible: readonly { id: number; name: string }[]): EmbeddingStatusReport {
    const collections = visible.map((c) => ({ ...this.collectionStatus(c.id, c.name), problem: this.problem(c.name) }));
    const names = new Set(visible.map((c) => c.name));
    return {
      needsEmbedding: collections.reduce((n, c) => n + c.needsEmbedding, 0),
      hasVectorIndex: collections.some((c) => c.hasVectorIndex),
      embeddings: { collections, progress: this.progress().filter((p) => names.has(p.collection)) },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ann.close(); // saves changed ANN indexes while the database is still open
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.then((pool) => pool.close(), () => undefined)));
    await this.running?.catch(() => undefined);
  }
}
