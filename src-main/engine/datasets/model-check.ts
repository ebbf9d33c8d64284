// Which embedding model a FAISS index's stored vectors came from. Checking a named model: a few
// documents' own text is embedded with it and compared with their stored vectors — the same model
// gives a cosine near 1.0, another one near 0 (another model of the same size would otherwise give
// garbage results). Inferring one, for a manifest written as the dataset-registry spec shows it
// (it has no `model` field): every installed embedding model of the index's dimension is checked
// the same way, and the one that reproduces the vectors is used. Each outcome is remembered in
// dataset_checks for those exact weights and files, so showing a state never starts a model again.
import { TroveError } from '../errors.js';
import type { DatasetModels, ModelChecks } from './ports.js';

/** A stored vector whose text embeds this far from it did not come from the model. */
export const MISMATCH_BELOW = 0.5;
/** Below this (and above MISMATCH_BELOW) the vectors load, with a warning. */
export const DRIFT_BELOW = 0.85;

/** A few stored vectors with their documents' text: `cosine(i, v)` compares probe i's stored vector with v. */
export interface VectorProbe {
  texts: string[];
  cosine(i: number, vector: Float32Array): number;
}

/** The manifest is missing what loading needed (the model could not be inferred): the dataset is Invalid, not in Error. */
export function incompleteManifest(message: string): TroveError {
  return new TroveError('UNAVAILABLE', message, { state: 'invalid' });
}

/** The best cosine between a probe's stored vectors and the model's embedding of their text (remembered per weights and files). */
export async function bestCosine(models: DatasetModels, checks: ModelChecks, model: { id: string; weightsSha256: string }, files: readonly string[], probe: VectorProbe): Promise<number> {
  const key = [`${model.id}@${model.weightsSha256}`, ...files].join('|');
  const known = await checks.get(key);
  if (known !== undefined) return known;
  let best = -Infinity;
  for (let i = 0; i < probe.texts.length; i++) {
    const { vector } = await models.embedWithModel(model.id, probe.texts[i]!, 'passage');
    best = Math.max(best, probe.cosine(i, vector));
  }
  await checks.put(key, best);
  return best;
}

/**
 * The installed model of `dims` dimensions that reproduces the stored vectors (at least
 * MISMATCH_BELOW; the best one when several come near); an incompleteManifest error saying what
 * was tried when none does. The catalogue's default model is tried first and the search stops at
 * one that reproduces them outright (DRIFT_BELOW and up): two models' embeddings of the same text
 * are unrelated, so no other could do as well, and most datasets load checking one model only.
 */
export async function inferModel(models: DatasetModels, checks: ModelChecks, dims: number, files: readonly string[], probe: VectorProbe): Promise<{ model: string; best: number }> {
  const fix = 'set "model" in the manifest to the model that made them';
  const embed = models.manifest.models.filter((m) => m.role === 'embed' && m.dims);
  const candidates = embed.filter((m) => m.dims === dims).sort((a, b) => Number(b.id === models.manifest.defaults.embed) - Number(a.id === models.manifest.defaults.embed));
  if (!candidates.length) {
    const known = embed.map((m) => `${m.id} (${m.dims})`).join(', ');
    throw incompleteManifest(`the manifest names no model, and no embedding model Trove knows makes ${dims}-dimension vectors (it has ${known}): ${fix}`);
  }
  if (!probe.texts.length) throw incompleteManifest(`the manifest names no model, and no metadata entry has text to tell which model made the vectors: ${fix}`);
  const tried: { id: string; best: number }[] = [];
  const absent: string[] = [];
  for (const c of candidates) {
    let resolved;
    try {
      resolved = await models.resolve(c.id);
    } catch (err) {
      if (!(err instanceof TroveError)) throw err;
      absent.push(c.id); // not on this host (or its files are broken): not a candidate here
      continue;
    }
    const best = await bestCosine(models, checks, { id: c.id, weightsSha256: resolved.weightsSha256 }, files, probe);
    if (best >= DRIFT_BELOW) return { model: c.id, best };
    tried.push({ id: c.id, best });
  }
  const winner = tried.filter((t) => t.best >= MISMATCH_BELOW).sort((a, b) => b.best - a.best)[0];
  if (winner) return { model: winner.id, best: winner.best };
  const checked = tried.length ? `none of the installed ${dims}-dimension models reproduces the stored vectors (${tried.map((t) => `${t.id}: best cosine ${t.best.toFixed(2)}`).join(', ')})` : `no ${dims}-dimension model is installed`;
  const missing = absent.length ? `; not installed here: ${absent.join(', ')} (\`trove models pull <id>\`)` : '';
  throw incompleteManifest(`the manifest names no model, and ${checked}${missing}: ${fix}`);
}
