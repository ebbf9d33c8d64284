// The embedding stage on a shared index (PostgreSQL): after keyword indexing, the chunks of a
// collection without a vector in its space are embedded by every host that runs it, each taking
// slices no other host holds (VectorRepository.claimPending: embedding_claims, a claim free again
// once it expires, so a host that dies loses only time). The model and space are chosen as
// EmbeddingService does on SQLite (the collection's choice, the configured default, else by the
// text's language; a new space becomes the active one, another model's is built beside it and
// swapped in when complete), and every chunk is embedded alone, as there, so its vector is the
// one SQLite would hold.
import { TroveError } from '../errors.js';
import type { EmbeddingOptions } from '../embed/embeddings.js';
import { LANGUAGE_SAMPLE, looksEnglish } from '../embed/language.js';
import type { ModelPool } from '../embed/pool.js';
import { QueryEmbedder } from '../embed/query-embedder.js';
import type { CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';
import type { EmbeddingProgress } from '../types/models.js';

/** Chunks per claim: a slice small enough that hosts share a collection evenly. */
const CLAIM_CHUNKS = 32;
/** How long a claim holds: far longer than a slice takes; a dead host's slice is free after it. */
const CLAIM_MS = 5 * 60_000;
const HELD_ELSEWHERE_MS = 100;

export interface SharedEmbedResult {
  collection: string;
  model: string;
  /** Chunks this host embedded. */
  embedded: number;
  /** Chunks of the collection still without a vector (other hosts' claims that never finished). */
  pending: number;
}

export class SharedEmbedder {
  private readonly models: QueryEmbedder;

  constructor(
    private readonly storage: Storage,
    profileDir: string,
    private readonly opts: EmbeddingOptions = {},
  ) {
    this.models = new QueryEmbedder(profileDir, opts);
  }

  /** The model a collection uses: its own choice, the configured default, or by its language (EmbeddingService.modelFor). */
  async modelFor(c: CollectionRow): Promise<string> {
    const choice = (await this.storage.vectors.collection(c.id)).modelChoice ?? this.opts.defaultModel;
    if (choice) return choice;
    const sample = await this.storage.documents.languageSample(c.id, LANGUAGE_SAMPLE);
    return looksEnglish(sample.join('\n')) ? this.models.defaults.embed : this.models.defaults.embedMultilingual;
  }

  /** A collection's model from now on (null: automatic); the next embed() builds its space beside the active one and swaps it in. */
  async chooseModel(c: CollectionRow, modelId: string | null): Promise<void> {
    if (modelId !== null) await this.models.embeddingModel(modelId); // fails now when the model is unknown or not on this host
    await this.storage.vectors.setModelChoice(c.id, modelId);
  }

  /** Embeds the collection's pending chunks with the other hosts until none is left; UNAVAILABLE when the model is not on this host. */
  async embed(c: CollectionRow, opts: { onProgress?: (p: EmbeddingProgress) => void; signal?: AbortSignal } = {}): Promise<SharedEmbedResult> {
    const modelId = await this.modelFor(c);
    const { model, pool } = await this.models.passageModel(modelId);
    const { vectors } = this.storage;
    const space = await vectors.ensureSpace(model.spec.id, model.weightsSha256, pool.dims);
    const cv = await vectors.collection(c.id);
    let switching = false;
    if (cv.activeSpaceId === null) await vectors.setActive(c.id, space.id);
    else if (cv.activeSpaceId !== space.id) {
      if (cv.buildingSpaceId !== space.id) await vectors.setBuilding(c.id, space.id);
      switching = true;
    }
    const started = performance.now();
    let total = await vectors.pendingCount(space.id, c.id);
    let embedded = 0;
    const report = (phase: EmbeddingProgress['phase']) => {
      const rate = embedded / Math.max(1e-3, (performance.now() - started) / 1000);
      opts.onProgress?.({ collection: c.name, model: model.spec.id, phase, done: embedded, total, chunksPerSecond: Math.round(rate * 10) / 10, etaSeconds: rate > 0 ? Math.round((total - embedded) / rate) : null });
    };
    for (;;) {
      if (opts.signal?.aborted) throw new TroveError('INTERNAL', 'embedding cancelled; the chunks left stay pending');
      const now = Date.now();
      const slice = await vectors.claimPending(space.id, c.id, CLAIM_CHUNKS, now, now + CLAIM_MS);
      if (!slice.length) {
        if ((await vectors.pendingCount(space.id, c.id)) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, HELD_ELSEWHERE_MS)); // the rest is held by other hosts
        continue;
      }
      try {
        embedded += await this.embedSlice(space.id, c.id, slice, pool);
      } finally {
        await vectors.releaseClaims(space.id, slice.map((s) => s.id));
      }
      total = Math.max(total, embedded);
      report(switching ? 'switching' : 'filling');
    }
    if (switching) await vectors.swap(c.id);
    report('done');
    return { collection: c.name, model: model.spec.id, embedded, pending: await vectors.pendingCount(space.id, c.id) };
  }

  async close(): Promise<void> {
    await this.models.close();
  }

  private async embedSlice(spaceId: number, collectionId: number, slice: readonly { id: number; documentId: number; charStart: number; charEnd: number }[], pool: ModelPool): Promise<number> {
    const texts = await this.storage.documents.contents([...new Set(slice.map((s) => s.documentId))]);
    // one chunk per request: every vector is exact (embed/onnx-model.ts), as the SQLite stage does
    const vecs = await Promise.all(slice.map((s) => pool.embed([(texts.get(s.documentId) ?? '').slice(s.charStart, s.charEnd)], 'passage', { lane: 'normal' })));
    return this.storage.vectors.insert(spaceId, collectionId, slice.map((s, i) => ({ chunkId: s.id, vector: vecs[i]! })));
  }
}
