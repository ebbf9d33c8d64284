// The engine's embedding side over the storage interface: which model serves each collection
// (chosen, or automatic by language), the embedding stage (background and explicit runs:
// stage-runner.ts; when the background may work: background.ts) with its progress, and what
// status and semantic searches say about how much is embedded. The models themselves — resolution,
// worker pools, query embeddings, the reranker — are models.ts's. Without a model everything here
// says why it is off; keyword search never depends on it.
import { TroveError } from '../errors.js';
import type { Storage } from '../store/storage.js';
import type { VectorSpace } from '../store/vectors.js';
import { BackgroundPolicy, type BackgroundDeps } from './background.js';
import { fillSpace, type EmbeddingProgress } from './embedding-stage.js';
import { coverageOf, EmbeddingCounts } from './embedding-status.js';
import { coverageNotice, describeBackground, describeCollectionEmbedding, describeCoverage } from './describe.js';
import { LANGUAGE_SAMPLE, looksEnglish } from './language.js';
import { EmbeddingModels, type EmbeddingOptions } from './models.js';
import type { ModelPool } from './pool.js';
import type { ResolvedModel } from './resolver.js';
import { StageRunner, type StageCollection } from './stage-runner.js';
import type { BackgroundEmbedding, CollectionEmbeddingStatus, EmbeddingStatusReport } from '../types/models.js';

export type { CollectionEmbeddingStatus, EmbeddingOptions, EmbeddingStatusReport };

/** What the stage asks of the rest of the engine: the collections it embeds, pauses, whether indexing goes first. */
export interface EmbeddingDeps extends Omit<BackgroundDeps, 'allowed'> {
  /** Every collection with vectors, of every kind: the memory store and datasets rely on them too. */
  collections: () => Promise<StageCollection[]>;
}

/**
 * How long the vectors of deleted chunks are kept after a fill of their space completes (the
 * stage reuses them for the same text; a document moved to another collection is embedded after
 * this one's fill, so they are not dropped at once).
 */
const RETIRED_KEEP_MS = 10 * 60_000;

/** Chunks a semantic search embeds first, at most (see catchUp). */
const DEFAULT_CATCH_UP_CHUNKS = 256;

export class EmbeddingService {
  readonly models: EmbeddingModels;
  private readonly listeners = new Set<(p: EmbeddingProgress) => void>();
  private readonly latest = new Map<string, EmbeddingProgress>();
  private readonly policy: BackgroundPolicy;
  private readonly stage: StageRunner;
  private readonly counts: EmbeddingCounts;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Why the last stage could not embed a collection (model missing, corrupt...). */
  private readonly problems = new Map<string, string>();

  constructor(
    private readonly storage: Storage,
    profileDir: string,
    private readonly opts: EmbeddingOptions = {},
    private readonly deps: EmbeddingDeps = { collections: async () => [], saved: () => null, paused: () => new Set(), indexingBusy: () => false },
  ) {
    this.models = new EmbeddingModels(profileDir, opts);
    this.counts = new EmbeddingCounts(storage);
    this.policy = new BackgroundPolicy({ ...deps, allowed: opts.auto ?? false }, { searchQuietMs: opts.searchQuietMs ?? 100, spareAfterMs: opts.spareAfterMs });
    this.stage = new StageRunner({
      collections: deps.collections,
      embedCollection: (c, explicit, stop) => this.embedCollection(c, explicit, stop),
      policy: this.policy,
    });
    if (opts.auto) this.changed(); // a host that opens embeds what earlier runs left without vectors
  }

  // ---- models --------------------------------------------------------------------------

  /** The model a collection uses: its own choice, the configured default, or by its language. */
  async modelFor(collectionId: number): Promise<string> {
    const choice = (await this.storage.vectors.collection(collectionId)).modelChoice ?? this.opts.defaultModel;
    if (choice) return choice;
    const sample = await this.storage.documents.languageSample(collectionId, LANGUAGE_SAMPLE);
    return looksEnglish(sample.join('\n')) ? this.models.manifest.defaults.embed : this.models.manifest.defaults.embedMultilingual;
  }

  /** The embedding models the collections (or the one named) use now: each one's choice, the default, or by language. */
  async modelsInUse(collection?: string): Promise<string[]> {
    const targets = (await this.deps.collections()).filter((c) => !collection || c.name === collection);
    return [...new Set(await Promise.all(targets.map((c) => this.modelFor(c.id))))];
  }

  // ---- the stage -----------------------------------------------------------------------

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

  /** Called on every index change, here or on another host (and pause, resume, a setting change): the background stage looks for work. */
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

  /** A pause is under way: the background stage starts no batch before it has taken effect. */
  pauseUnderWay(pausing: Promise<unknown>): void {
    this.policy.pauseUnderWay(pausing);
  }

  private async embedCollection(c: StageCollection, explicit: boolean, stop: () => boolean): Promise<boolean> {
    const { id: collectionId, name } = c;
    const { vectors } = this.storage;
    let model: ResolvedModel;
    let pool: ModelPool;
    try {
      model = await this.models.resolve(await this.modelFor(collectionId));
      pool = await this.models.pool(model);
    } catch (err) {
      this.problems.set(name, (err as Error).message);
      return false;
    }
    this.problems.delete(name);
    if (this.closed) return false;
    const space = await vectors.ensureSpace(model.spec.id, model.weightsSha256, pool.dims);
    const cv = await vectors.collection(collectionId);
    let switching = false;
    if (cv.activeSpaceId === null) await vectors.setActive(collectionId, space.id);
    else if (cv.activeSpaceId !== space.id) {
      // another model, or other weights under the same id: build beside the old vectors, swap when done
      if (cv.buildingSpaceId !== space.id) await vectors.setBuilding(collectionId, space.id);
      switching = true;
    } else if (cv.buildingSpaceId !== null) {
      await vectors.setBuilding(collectionId, null);
      await vectors.dropUnusedSpaces();
    }
    let complete = false;
    const started = Date.now();
    try {
      complete = await fillSpace(this.storage, { collectionId, collection: name, spaceId: space.id, switching, pool }, {
        batch: this.opts.batchChunks ?? 32,
        runBatch: this.opts.runBatch,
        lane: explicit ? 'normal' : 'background',
        turn: explicit ? () => Promise.resolve(!stop()) : () => this.policy.turn(stop),
        closed: () => this.closed,
        pausedNow: () => !explicit && !this.closed && !this.policy.mayRun(collectionId),
        spare: () => this.policy.spare(),
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
    if (complete && switching) await vectors.swap(collectionId);
    if (complete) await vectors.pruneRetired(space.id, started - RETIRED_KEEP_MS);
    this.counts.invalidate();
    // what makes the space's kNN fast (SQLite: its ANN index) now, in the background, rather than at
    // its first search, which would wait out the build on exact kNN
    if (complete) void vectors.prepareSearch(space.id);
    return complete;
  }

  /** Runs the stage over these collections now (every worker, pauses or not); throws UNAVAILABLE when none of them could be embedded. */
  async embedNow(
    targets: readonly StageCollection[],
    onProgress?: (p: EmbeddingProgress) => void,
    opts: { waitForAnnIndex?: boolean } = {},
  ): Promise<CollectionEmbeddingStatus[]> {
    const names = new Set(targets.map((c) => c.name));
    const off = onProgress ? this.onProgress((p) => names.has(p.collection) && onProgress(p)) : () => undefined;
    try {
      await this.stage.request(targets.map((c) => c.id));
    } finally {
      off();
    }
    if (opts.waitForAnnIndex) {
      // a process about to exit (`trove embed`): build what makes kNN fast now, and keep it for the next one
      const spaces = new Set<number>();
      for (const c of targets) {
        const id = (await this.storage.vectors.collection(c.id)).activeSpaceId;
        if (id !== null) spaces.add(id);
      }
      await Promise.all([...spaces].map((id) => this.storage.vectors.prepareSearch(id, { urgent: true })));
    }
    const problems = targets.map((c) => this.problem(c.name)).filter((p): p is string => !!p);
    if (problems.length === targets.length && problems.length) throw new TroveError('UNAVAILABLE', problems[0]!);
    return Promise.all(targets.map((c) => this.collectionStatus(c.id, c.name)));
  }

  /**
   * Before a semantic search: embeds the chunks of these collections still without a vector when
   * they are few (catchUpChunks), so an entry stored a moment ago is found by meaning at once. More
   * than that, a collection switching models (its new space is built beside), or an explicit run
   * under way (the search would wait it out): the search answers with what is embedded, and its
   * notice says how much is pending.
   */
  async catchUp(collections: readonly StageCollection[]): Promise<void> {
    const limit = this.opts.catchUpChunks ?? DEFAULT_CATCH_UP_CHUNKS;
    if (!limit || this.closed || this.stage.explicitUnderWay()) return;
    const statuses = await this.recentStatuses(collections);
    const waiting = statuses.filter((s) => s.status.needsEmbedding > 0 && s.status.switchingTo === null);
    if (!waiting.length || waiting.reduce((n, s) => n + s.status.needsEmbedding, 0) > limit) return;
    await this.stage.request(waiting.map((s) => s.id));
  }

  /** A collection's model (null: automatic); checked now, re-embedded by the stage, swapped in when complete. */
  async chooseModel(c: StageCollection, modelId: string | null): Promise<CollectionEmbeddingStatus> {
    if (modelId !== null) await this.models.resolve(modelId); // fails now when the model is unknown or absent
    await this.storage.vectors.setModelChoice(c.id, modelId);
    this.changed(); // the background stage (when on) builds the new space
    return this.collectionStatus(c.id, c.name);
  }

  // ---- what searches and status say ------------------------------------------------------

  /** The vector space serving a collection now, or null. */
  async activeSpace(collectionId: number): Promise<VectorSpace | null> {
    const id = (await this.storage.vectors.collection(collectionId)).activeSpaceId;
    return id === null ? null : ((await this.storage.vectors.space(id)) ?? null);
  }

  collectionStatus(collectionId: number, name: string): Promise<CollectionEmbeddingStatus> {
    return this.counts.collection(collectionId, name);
  }

  /** Whether the background stage is on, and what it is doing for these collections (the cached counts: cheap). */
  private backgroundFor(collections: readonly { id: number; status: CollectionEmbeddingStatus; problem: string | null }[]): BackgroundEmbedding {
    const { enabled, source } = this.policy.enabled();
    if (!enabled) return { enabled, source, state: 'off' };
    if (this.policy.paused()) return { enabled, source, state: 'paused' };
    const filling = this.stage.fillingInBackground;
    // a collection the stage is only looking at (nothing of it to embed: on PostgreSQL that look takes round trips) is not embedding
    const fillingStatus = collections.find((c) => c.id === filling)?.status;
    if (filling !== null && !this.policy.paused(filling) && (fillingStatus === undefined || fillingStatus.needsEmbedding > 0)) {
      return { enabled, source, state: this.policy.waiting ? 'waiting' : 'embedding' };
    }
    const left = collections.filter((c) => c.status.needsEmbedding > 0 && !c.problem);
    if (!left.length) return { enabled, source, state: 'idle' };
    // work is left: the stage takes it up when indexing is done, unless all of it is paused
    return { enabled, source, state: left.every((c) => this.policy.paused(c.id)) ? 'paused' : 'waiting' };
  }

  private async recentStatuses(collections: readonly StageCollection[]) {
    return Promise.all(collections.map(async (c) => ({ id: c.id, status: await this.counts.recent(c.id, c.name), problem: this.problem(c.name) })));
  }

  /** Whether the background stage is on and what it is doing over these collections (cached counts: cheap). */
  async backgroundNow(collections: readonly StageCollection[]): Promise<BackgroundEmbedding> {
    return this.backgroundFor(await this.recentStatuses(collections));
  }

  /** The notice a semantic search over these collections carries while they are not fully embedded (null when they are). */
  async coverageNotice(collections: readonly StageCollection[]): Promise<string | null> {
    const statuses = await this.recentStatuses(collections);
    return coverageNotice(coverageOf(statuses.map((s) => s.status), this.progress()), this.backgroundFor(statuses));
  }

  /** When collections without any vector will have some: the stage's state, or how to compute them. */
  async noVectorsYet(collections: readonly StageCollection[]): Promise<string> {
    const statuses = await this.recentStatuses(collections);
    const bg = this.backgroundFor(statuses);
    const cov = coverageOf(statuses.map((s) => s.status), this.progress());
    if (!bg.enabled) return describeBackground(bg, cov);
    return `${describeBackground(bg, cov)}; ${describeCoverage(cov)} so far`;
  }

  /** A collection is paused with indexing (the background stage leaves it alone). */
  paused(collectionId: number): boolean {
    return this.policy.paused(collectionId);
  }

  async statusReport(visible: readonly StageCollection[]): Promise<EmbeddingStatusReport> {
    const statuses = await Promise.all(visible.map(async (c) => ({ id: c.id, status: await this.collectionStatus(c.id, c.name), problem: this.problem(c.name) })));
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

  /** Stops the stage between batches, then the models' workers (after their current run). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const stage = this.stage.close(); // stops between batches; queued chunks are rejected below
    await this.models.close();
    await stage;
  }
}
