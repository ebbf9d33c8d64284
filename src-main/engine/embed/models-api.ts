// The engine's models room (Engine.models): the catalogue as a person sees it, downloads and
// checks. Faces get this narrow interface, never the embedding service behind it.
import type { CatalogueEntry, ModelLocations, ModelsApi, ModelVerification, PullOptions, PullResult } from '../types/models.js';
import { modelCatalogue } from './catalogue.js';
import { downloadModel } from './downloader.js';
import { findModel, loadManifest, type Manifest } from './manifest.js';
import { candidateDirs, resolveModel } from './resolver.js';
import path from 'node:path';
import type { EmbeddingOptions } from './embeddings.js';

/** What the catalogue reads: the manifest, where models are looked for, and who forgets resolutions after a download (EmbeddingService). */
export interface ModelSource {
  readonly manifest: Manifest;
  readonly modelLocations: ModelLocations;
  refresh(): void;
  /** The embedding models the collections (or one) use now; absent on a host without collections of its own. */
  modelsInUse?(collection?: string): Promise<string[]>;
}

/** A host without an EmbeddingService (an index in PostgreSQL): the same manifest and locations as EmbeddingService reads (profile's models folder by default). */
export function profileModelSource(profileDir: string, opts: EmbeddingOptions = {}, refresh: () => void = () => undefined): ModelSource {
  return {
    manifest: loadManifest(opts.manifestFile),
    modelLocations: { modelsDir: opts.modelsDir, packagedDir: opts.packagedDir, cacheDir: opts.cacheDir ?? path.join(profileDir, 'models') },
    refresh,
  };
}

export class EngineModels implements ModelsApi {
  constructor(private readonly embeddings: ModelSource) {}

  list(): Promise<CatalogueEntry[]> {
    return modelCatalogue(this.embeddings.manifest, this.embeddings.modelLocations);
  }

  assertKnown(id: string): void {
    findModel(this.embeddings.manifest, id);
  }

  locations(): ModelLocations {
    return { ...this.embeddings.modelLocations };
  }

  async missing(collection?: string): Promise<string[]> {
    const out: string[] = [];
    for (const id of (await this.embeddings.modelsInUse?.(collection)) ?? []) {
      const spec = this.embeddings.manifest.models.find((m) => m.id === id);
      if (!spec) continue; // an unknown choice is reported by the embedding itself
      const reason = await resolveModel(spec, this.embeddings.modelLocations).then(
        () => null,
        (err: unknown) => (err as { details?: { reason?: string } }).details?.reason ?? 'unavailable',
      );
      if (reason === 'missing') out.push(id);
    }
    return out;
  }

  async verify(id?: string): Promise<ModelVerification[]> {
    const { manifest, modelLocations } = this.embeddings;
    const specs = id ? [findModel(manifest, id)] : manifest.models;
    const rows: ModelVerification[] = [];
    for (const spec of specs) {
      try {
        const r = await resolveModel(spec, modelLocations);
        rows.push({ id: spec.id, ok: true, verified: r.verified, weightsSha256: r.weightsSha256, dir: r.dir });
      } catch (err) {
        rows.push({ id: spec.id, ok: false, reason: (err as Error).message, looked: candidateDirs(spec, modelLocations).map((d) => d.dir) });
      }
    }
    return rows;
  }

  async pull(id: string, opts: PullOptions = {}): Promise<PullResult> {
    const spec = findModel(this.embeddings.manifest, id); // NOT_FOUND for an unknown id, before any download
    try {
      const { dir, source, passedOver } = await downloadModel(spec, this.embeddings.modelLocations.cacheDir, opts);
      return { model: id, dir, source, passedOver };
    } finally {
      this.embeddings.refresh(); // a pulled (or removed half-download) model is seen by the next resolve
    }
  }
}
