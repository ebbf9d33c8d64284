// Finds a model's files: TROVE_MODELS_DIR first (tests and CI point it at ../shared/models),
// then models packaged with the app, then the user cache (where downloads go). Every file is
// checked against the manifest's sha256 before it is used: a corrupt or different file is an
// error that says which file and where, never a silent wrong vector.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { TroveError } from '../errors.js';
import { sha256File } from './file-hash.js';
import { filesFor, pickVariant, type ModelFile, type ModelSpec, type WeightsVariant } from './manifest.js';
import type { ModelLocations } from '../types/models.js';

export type { ModelLocations };

export type ModelSource = 'models-dir' | 'packaged' | 'cache';

export interface ResolvedModel {
  spec: ModelSpec;
  variant: WeightsVariant;
  dir: string;
  source: ModelSource;
  weightsFile: string;
  /** Digest of the weights actually used: recorded with every vector they make. */
  weightsSha256: string;
  /** false: some file has no known digest yet (recorded on first fetch); it was accepted as is. */
  verified: boolean;
}

/** Digests recorded when a file without a published digest was first fetched (trust on first use). */
export const RECORDED_DIGESTS = '.trove-digests.json';

export function candidateDirs(spec: ModelSpec, loc: ModelLocations): { dir: string; source: ModelSource }[] {
  const out: { dir: string; source: ModelSource }[] = [];
  if (loc.modelsDir) out.push({ dir: path.join(loc.modelsDir, spec.id), source: 'models-dir' });
  if (loc.packagedDir) out.push({ dir: path.join(loc.packagedDir, spec.id), source: 'packaged' });
  const npmDir = spec.npmPackage ? installedPackageDir(spec.npmPackage) : null;
  if (npmDir) out.push({ dir: npmDir, source: 'packaged' });
  out.push({ dir: path.join(loc.cacheDir, spec.id), source: 'cache' });
  return out;
}

/** Where the model is (the first location holding its weights), verified; throws UNAVAILABLE with the reason otherwise. */
export async function resolveModel(spec: ModelSpec, loc: ModelLocations, wanted: WeightsVariant = 'int8'): Promise<ResolvedModel> {
  const variant = pickVariant(spec, wanted);
  const weightsRel = spec.weights[variant]!;
  const dirs = candidateDirs(spec, loc);
  const found = dirs.find((d) => fs.existsSync(path.join(d.dir, weightsRel)));
  if (!found) {
    throw new TroveError(
      'UNAVAILABLE',
      `model "${spec.id}" is not available: no ${weightsRel} in ${dirs.map((d) => d.dir).join(', ')}. ` +
        `Run \`trove models pull ${spec.id}\` (needs a network connection) or set TROVE_MODELS_DIR to a folder that has it.`,
      { model: spec.id, reason: 'missing' },
    );
  }
  const recorded = readRecorded(found.dir);
  let verified = true;
  let weightsSha256 = '';
  for (const f of filesFor(spec, variant)) {
    const abs = path.join(found.dir, f.path);
    if (!fs.existsSync(abs)) {
      if (f.optional) continue; // the engine works without it; checked when present
      throw new TroveError('UNAVAILABLE', `model "${spec.id}" in ${found.dir} is incomplete: ${f.path} is missing`, { model: spec.id, reason: 'missing' });
    }
    const digest = await sha256File(abs);
    const verdict = checkDigest(f, digest, recorded[f.path]);
    if (verdict === 'mismatch') {
      throw new TroveError(
        'UNAVAILABLE',
        `model "${spec.id}" is corrupt or not the expected build: ${abs} has sha256 ${digest}, expected ${expectedDigests(f, recorded[f.path]).join(' or ')}. ` +
          `Delete it and run \`trove models pull ${spec.id}\`.`,
        { model: spec.id, reason: 'corrupt', file: abs },
      );
    }
    if (verdict === 'unverified') verified = false;
    if (f.path === weightsRel) weightsSha256 = digest;
  }
  return { spec, variant, dir: found.dir, source: found.source, weightsFile: path.join(found.dir, weightsRel), weightsSha256, verified };
}

/** Where an npm package the app depends on is installed (its files ship with the app), or null. */
function installedPackageDir(name: string): string | null {
  try {
    return path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

export function checkDigest(f: ModelFile, digest: string, recorded?: string): 'ok' | 'unverified' | 'mismatch' {
  const expected = expectedDigests(f, recorded);
  if (expected.includes(digest)) return 'ok';
  return expected.length ? 'mismatch' : 'unverified';
}

function expectedDigests(f: ModelFile, recorded?: string): string[] {
  return [...(f.sha256 ? [f.sha256] : []), ...f.alsoAccept, ...(recorded && !f.sha256 ? [recorded] : [])];
}

export function readRecorded(dir: string): Record<string, string> {
  try {
    const json = JSON.parse(fs.readFileSync(path.join(dir, RECORDED_DIGESTS), 'utf8')) as unknown;
    return json && typeof json === 'object' ? (json as Record<string, string>) : {};
  } catch {
    return {};
  }
}
