// Where the tests' models are: TROVE_MODELS_DIR (CI and this workspace point it at a copy, e.g.
// ../shared/models), else the user cache that `npm test`'s pretest step fills through Trove's own
// downloader (scripts/test-prerequisites.ts). Never a silent skip: a missing model is an error
// that says how to get it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestModelFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface TestModelSet {
  source: string | null;
  models: { id: string; files: TestModelFile[] }[];
}

export const TEST_MODELS: TestModelSet = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', 'models.json'), 'utf8')) as TestModelSet;

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

/** Files of the test set missing from a folder (by size; the pretest step checks sha256 when it fetches). */
export function missingTestModelFiles(dir: string): string[] {
  const missing: string[] = [];
  for (const m of TEST_MODELS.models) {
    for (const f of m.files) {
      const abs = path.join(dir, m.id, f.path);
      if (!fs.existsSync(abs) || fs.statSync(abs).size !== f.bytes) missing.push(`${m.id}/${f.path}`);
    }
  }
  return missing;
}

export const HOW_TO_GET_MODELS =
  'set TROVE_MODELS_DIR to a folder holding <model id>/<file> (a copy of the test models, e.g. ../shared/models) or TROVE_MODELS_MIRROR to a server of one, then run `npm test` (its pretest step fetches them)';

/** The folder the tests read models from; throws with the way to get them when they are not there. */
export function testModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.TROVE_MODELS_DIR || testModelsCache(env);
  const missing = missingTestModelFiles(dir);
  if (missing.length) throw new Error(`the test models are not in ${dir} (missing ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}): ${HOW_TO_GET_MODELS}`);
  return dir;
}
