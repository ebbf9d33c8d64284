// The engine's embedding side: which model serves each collection (chosen, or automatic by
// language), model workers (started on first use, closed with the engine), the embedding stage
// (background and explicit runs: stage-runner.ts; when the background may work: background.ts)
// with its progress, query embeddings (LRU cached) and the reranker.
// Without a model everything here says why it is off; keyword search never depends on it.
import os from 'node:os';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { ChunkStore } from '../store/chunks.js';
import type { DocumentStore } from '../store/documents.js';
import { VectorStore, type VectorSpace } from '../store/vectors.js';
import { AnnSpaces } from '../search/ann-spaces.js';
import type { PendingEmbeddingProbe } from '../watch/freshness.js';
import { BackgroundPolicy, type BackgroundDeps } from './background.js';
import { fillSpace, type EmbeddingProgress } from './embedding-stage.js';
import { coverageOf, EmbeddingCounts } from './embedding-status.js';
import { coverageNotice, describeBackground, describeCollectionEmbedding, describeCoverage } from './describe.js';
import { LANGUAGE_SAMPLE, looksEnglish } from './language.js';
import { findModel, loadManifest, type Manifest, type WeightsVariant } from './manifest.js';
import { ModelPool } from './pool.js';
import { resolveModel, type ModelLocations, type ResolvedModel } from './resolver.js';
import { StageRunner, type StageCollection } from './stage-runner.js';
import type { BackgroundEmbedding, CollectionEmbeddingStatus, EmbeddingStatusReport } from '../types/models.js';

export type { CollectionEmbeddingStatus, EmbeddingStatusReport };

export interface EmbeddingOptions {
  /**
   * Embed new and changed chunks in the background, at low priority (the hosts: `trove serve`
   * unless --no-embed, the desktop app). The saved setting `backgroundEmbedding` can still turn it
   * off, live. Default false: a one-shot command embeds only when asked (embed()).
   */
  auto?: boolean;
  /** Background chunks start only after searches have been quiet this long (default 100 ms). */
  searchQuietMs?: number;
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
  private readonly policy: BackgroundPolicy;
  private readonly stage: StageRunner;
  private readonly counts: EmbeddingCounts;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Why the last stage could not embed a collection (model missing, corrupt...). */
  private readonly problems = new Map<string, string>();

  readonly vectors: VectorStore;
  readonly ann: AnnSpaces;
  /** The automatic model choice's sample of a collection's text (from the document store, given in follow()). */
  private languageSample: (collectionId: number) => string[] = () => [];
  private readonly collectionIdsStmt;
  private readonly textStmt;

  constructor(
    db: Db,
    profileDir: string,
    private readonly opts: EmbeddingOptions = {},
    /** What the background stage asks the rest of the engine (none: never paused, indexing never busy). */
    background: Omit<BackgroundDeps, 'allowed'> = { saved: () => null, paused: () => new Set(), indexingBusy: () => false },
  ) {
    this.manifest = loadManifest(opts.manifestFile);
    this.vectors = new VectorStore(db);
    this.ann = new AnnSpaces(this.vectors, path.join(profileDir, 'vectors'), opts.annMinVectors);
    this.vectors.setListener(this.ann);
    this.collectionIdsStmt = db.prepare<[], { id: number; name: string }>('SELECT id, name FROM collections ORDER BY id');
    this.counts = new EmbeddingCounts(db, this.vectors);
    this.policy = new BackgroundPolicy({ ...background, allowed: opts.auto ?? false }, { searchQuietMs: opts.searchQuietMs ?? 100 });
    this.stage = new StageRunner({
      collections: () => this.collectionIdsStmt.all(),
      embedCollection: (c, explicit, stop) => this.embedCollection(c, explicit, stop),
      policy: this.policy,
    });
    if (opts.auto) this.changed(); // a host that opens embeds what earlier runs left without vectors
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

  /** Vectors are deleted with their chunks; freshness asks which documents still wait for vectors; the language sample reads documents. */
  follow(store: { chunks: ChunkStore; documents: DocumentStore }, indexing: { setPendingEmbeddingProbe(probe: PendingEmbeddingProbe | null): void }): void {
    const { chunks, documents } = store;
    this.languageSample = (id) => documents.languageSample(id, LANGUAGE_SAMPLE);
    chunks.addDeleteHook({ forDocument: (id) => this.vectors.deleteForDocument(id), forCollection: (id) => this.vectors.deleteForCollection(id) });
    indexing.setPendingEmbeddingProbe((ids) => this.vectors.documentsPending(ids));
  }

  // ---- models --------------------------------------------------------------------------

  /** The model a collection uses: its own choice, the configured default, or by its language. */
  modelFor(collectionId: number): string {
    const choice = this.vectors.collection(collectionId).modelChoice ?? this.opts.defaultModel;
    if (choice) return choice;
    return looksEnglish(this.languageSample(collectionId).join('\n')) ? this.manifest.defaults.embed : this.manifest.defaults.embedMultilingual;
  }

  /** The embedding models the collections (or the one named) use now: each one's choice, the default, or by language. */
  modelsInUse(collection?: string): string[] {
    return [...new Set(this.collectionIdsStmt.all().filter((c) => !collection || c.name === collection).map((c) => this.modelFor(c.id)))];
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
      const rerank = model.spec.role === 'rerank';
      p = ModelPool.start(model, {
        workers: rerank ? 1 : workers, // reranking scores 30 short pairs per query: one worker is plenty
        intraOpThreads: 1,
        signedWeights: this.opts.signedWeights ?? true,
        // an engine that embeds in the background keeps a worker free for queries (pool.ts)
        backgroundWorkers: this.opts.auto && !rerank ? (this.opts.backgroundWorkers ?? Math.max(1, workers - 1)) : 0,
        backgroundNice: this.opts.backgroundNice ?? 10,
      });
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

  /** The stage is embedding, or about to (a change was just seen). */
  busy(): boolean {
    return this.stage.busy() || this.timer !== null;
  }

  /** Called on every index change (and pause, resume, a setting change): the background stage looks for work. */
  changed(): void {
    this.counts.invalidate();
    if (this.closed) return;
    this.policy.wake(); // a pause or a switch turned off is heeded now, not after the debounce
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.stage.kick();
    }, 300);
  }

  /** A search started: background chunks give way for a moment (background.ts). */
  searched(): void {
    this.policy.searched();
  }

  private async embedCollection(c: StageCollection, explicit: boolean, stop: () => boolean): Promise<boolean> {
    const { id: collectionId, name } = c;
    const modelId = this.modelFor(collectionId);
    let model: ResolvedModel;
    let pool: ModelPool;
    try {
      model = await this.resolve(modelId);
      pool = await this.pool(model);
    } catch (err) {
      this.problems.set(name, (err as Error).message);
      return false;
    }
    this.problems.delete(name);
    if (this.closed) return false;
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
        lane: explicit ? 'normal' : 'background',
        turn: explicit ? () => Promise.resolve(!stop()) : () => this.policy.turn(stop),
        closed: () => this.closed,
        pausedNow: () => !explicit && !this.closed && !this.policy.mayRun(collectionId),
        onProgress: (p) => {
          this.latest.set(name, p);
          for (const l of this.listeners) l(p);
        },
      });
    } catch (err) {
      if (this.closed) return false; // closing rejects queued chunks: they stay pending for next time
      this.problems.set(name, (err as Error).message);
      return false;
    }
    if (complete && switching) this.vectors.swap(collectionId);
    this.counts.invalidate();
    // the space's ANN index now, in the background, rather than at its first search, which would
    // wait out the build on exact kNN (search/ann-spaces.ts)
    if (complete) void this.ann.prepare(space);
    return complete;
  }

  /** Runs the stage over these collections now (every worker, pauses or not); throws UNAVAILABLE when none of them could be embedded. */
  async embedNow(targets: readonly { id: number; name: string }[], onProgress?: (p: EmbeddingProgress) => void, opts: { waitForAnnIndex?: boolean } = {}): Promise<CollectionEmbeddingStatus[]> {
    const names = new Set(targets.map((c) => c.name));
    const off = onProgress ? this.onProgress((p) => names.has(p.collection) && onProgress(p)) : () => undefined;
    try {
      await this.stage.request(targets.map((c) => c.id));
    } finally {
      off();
    }
    if (opts.waitForAnnIndex) {
      // a process about to exit (`trove embed`): build the indexes now, in large steps, and save them for the next one
      const spaces = new Set(targets.map((c) => this.vectors.collection(c.id).activeSpaceId).filter((id): id is number => id !== null));
      const builds = [...spaces].map((id) => this.vectors.space(id)).filter((space): space is VectorSpace => space !== undefined);
      await Promise.all(builds.map((space) => this.ann.prepare(space, { urgent: true })));
    }
    const problems = targets.map((c) => this.problem(c.name)).filter((p): p is string => !!p);
    if (problems.length === targets.length && problems.length) throw new TroveError('UNAVAILABLE', problems[0]!);
    return targets.map((c) => this.collectionStatus(c.id, c.name));
  }

  /** A collection's model (null: automatic); checked now, re-embedded by the stage, swapped in when complete. */
  async chooseModel(c: { id: number; name: string }, modelId: string | null): Promise<CollectionEmbeddingStatus> {
    if (modelId !== null) await this.resolve(modelId); // fails now when the model is unknown or absent
    this.vectors.setModelChoice(c.id, modelId);
    this.changed(); // the background stage (when on) builds the new space
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
    const v = await (await this.pool(model)).embed([query], 'query', { lane: 'urgent' });
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
    const vector = await (await this.pool(model)).embed([text], kind, { lane: kind === 'query' ? 'urgent' : 'normal' });
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
    return this.counts.collection(collectionId, name);
  }

  /** Whether the background stage is on, and what it is doing for these collections (the cached counts: cheap). */
  private backgroundFor(collections: readonly { id: number; status: CollectionEmbeddingStatus; problem: string | null }[]): BackgroundEmbedding {
    const { enabled, source } = this.policy.enabled();
    if (!enabled) return { enabled, source, state: 'off' };
    if (this.policy.paused()) return { enabled, source, state: 'paused' };
    const filling = this.stage.fillingInBackground;
    if (filling !== null && !this.policy.paused(filling)) return { enabled, source, state: this.policy.waiting ? 'waiting' : 'embedding' };
    const left = collections.filter((c) => c.status.needsEmbedding > 0 && !c.problem);
    if (!left.length) return { enabled, source, state: 'idle' };
    // work is left: the stage takes it up when indexing is done, unless all of it is paused
    return { enabled, source, state: left.every((c) => this.policy.paused(c.id)) ? 'paused' : 'waiting' };
  }

  private recentStatuses(collections: readonly { id: number; name: string }[]) {
    return collections.map((c) => ({ id: c.id, status: this.counts.recent(c.id, c.name), problem: this.problem(c.name) }));
  }

  /** Whether the background stage is on and what it is doing over these collections (cached counts: cheap). */
  backgroundNow(collections: readonly { id: number; name: string }[]): BackgroundEmbedding {
    return this.backgroundFor(this.recentStatuses(collections));
  }

  /** The notice a semantic search over these collections carries while they are not fully embedded (null when they are). */
  coverageNotice(collections: readonly { id: number; name: string }[]): string | null {
    const statuses = this.recentStatuses(collections);
    return coverageNotice(coverageOf(statuses.map((s) => s.status), this.progress()), this.backgroundFor(statuses));
  }

  /** When collections without any vector will have some: the stage's state, or how to compute them. */
  noVectorsYet(collections: readonly { id: number; name: string }[]): string {
    const statuses = this.recentStatuses(collections);
    const bg = this.backgroundFor(statuses);
    const cov = coverageOf(statuses.map((s) => s.status), this.progress());
    if (!bg.enabled) return describeBackground(bg, cov);
    return `${describeBackground(bg, cov)}; ${describeCoverage(cov)} so far`;
  }

  /** A collection is paused with indexing (the background stage leaves it alone). */
  paused(collectionId: number): boolean {
    return this.policy.paused(collectionId);
  }

  statusReport(visible: readonly { id: number; name: string }[]): EmbeddingStatusReport {
    const statuses = visible.map((c) => ({ id: c.id, status: this.collectionStatus(c.id, c.name), problem: this.problem(c.name) }));
    const names = new Set(visible.map((c) => c.name));
    const progress = this.progress().filter((p) => names.has(p.collection));
    const collections = statuses.map((s) => {
      const c = { ...s.status, problem: s.problem };
      return { ...c, summary: describeCollectionEmbedding(c, progress.find((p) => p.collection === c.collection)) };
    });
    const background = this.backgroundFor(statuses);
    const coverage = coverageOf(collections, progress);
    return {
      needsEmbedding: collections.reduce((n, c) => n + c.needsEmbedding, 0),
      hasVectorIndex: collections.some((c) => c.hasVectorIndex),
      embeddings: { collections, progress, background, coverage, summary: `${describeCoverage(coverage)}; ${describeBackground(background, coverage)}` },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ann.close(); // saves changed ANN indexes while the database is still open
    const stage = this.stage.close(); // stops between batches; queued chunks are rejected below
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.then((pool) => pool.close(), () => undefined)));
    await stage;
  }
}
