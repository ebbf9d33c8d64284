// Where the tests' models are: one folder in the user cache (<cache>/trove/test-models) that
// `npm test`'s pretest step fills (scripts/test-prerequisites.ts): the catalogue's default English
// model from its public sources through Trove's own downloader (sha256-checked, once), and the tiny
// models the tests build (test/helpers/tiny-models.ts). Nothing beside the clone is read:
// TROVE_MODELS_DIR (a folder a person or a bench names) does not change what the tests run on.
// Never a silent skip: a missing model is an error that says how to get it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesFor, loadManifest, pickVariant } from '../../src-main/engine/embed/manifest.js';
import { TINY_MODELS } from './tiny-models.js';

/** Downloaded from the catalogue's sources (models/manifest.json). */
export const PUBLIC_TEST_MODELS = ['all-MiniLM-L6-v2'];
/** Built by the tests. */
export const BUILT_TEST_MODELS = TINY_MODELS.map((m) => m.id);

/** The OS's per-user cache folder (XDG_CACHE_HOME, ~/Library/Caches, %LOCALAPPDATA%). */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches');
  if (process.platform === 'win32') return env.LOCALAPPDATA ?? path.join(os.homedir(), 'AppData', 'Local');
  return env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
}

/** Where the pretest step keeps the test models. */
export function testModelsCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userCacheDir(env), 'trove', 'test-models');
}

/** Files of the test models missing from a folder, as <id>/<file> (by presence and size; the engine checks sha256 when it loads them). */
export function missingTestModelFiles(dir: string, ids: readonly string[] = [...PUBLIC_TEST_MODELS, ...BUILT_TEST_MODELS]): string[] {
  const manifest = loadManifest();
  const missing: string[] = [];
  for (const id of ids) {
    const spec = manifest.models.find((m) => m.id === id);
    if (!spec) throw new Error(`models/manifest.json has no test model "${id}"`);
    for (const f of filesFor(spec, pickVariant(spec)).filter((x) => !x.optional)) {
      const abs = path.join(dir, id, f.path);
      if (!fs.existsSync(abs) || (f.bytes !== undefined && fs.statSync(abs).size !== f.bytes)) missing.push(`${id}/${f.path}`);
    }
  }
  return missing;
}

export const HOW_TO_GET_MODELS =
  'run `npm test` (its pretest step downloads all-MiniLM-L6-v2 from its public sources, Hugging Face or Maven Central, and builds the tiny test models), or `npx tsx scripts/test-prerequisites.ts --no-browser`; behind a proxy, TROVE_MODELS_MIRROR names a server of <model id>/<file> to use instead';

/** The folder the tests read models from; throws with the way to get them when they are not there. */
export function testModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = testModelsCache(env);
  const missing = missingTestModelFiles(dir);
  if (missing.length) throw new Error(`the test models are not in ${dir} (missing ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}): ${HOW_TO_GET_MODELS}`);
  return dir;
}
