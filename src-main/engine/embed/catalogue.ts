// The model catalogue as a person sees it: every model the manifest knows, and whether its files
// are here (and verified). Shared by `trove models list` and the app's Settings screen.
import type { Manifest } from './manifest.js';
import { resolveModel, type ModelLocations } from './resolver.js';

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
