// The model catalogue as a person sees it: every model the manifest knows, and whether its files
// are here (and verified). Shared by `trove models list` and the app's Settings screen.
import type { Manifest } from './manifest.js';
import { resolveModel, type ModelLocations } from './resolver.js';
import type { CatalogueEntry } from '../types/models.js';

export type { CatalogueEntry };

export async function modelCatalogue(manifest: Manifest, locations: ModelLocations): Promise<CatalogueEntry[]> {
  const rows: CatalogueEntry[] = [];
  for (const spec of manifest.models) {
    let state = 'ready';
    let where: string | null = null;
    try {
      const r = await resolveModel(spec, locations);
      where = r.dir;
      if (!r.verified) state = 'ready (unverified: no published sha256)';
    } catch (err) {
      state = (err as { details?: { reason?: string } }).details?.reason ?? 'unavailable';
    }
    rows.push({ id: spec.id, role: spec.role, languages: spec.languages, dims: spec.dims ?? null, state, ready: where !== null, where, testOnly: spec.testOnly });
  }
  return rows;
}
