// Loads native/trove_rank (scripts/build-native.mjs): trove_bm25(), FTS5's bm25() with the
// phrase counts passed in rather than counted per query (see native/trove_rank.c). Optional:
// without it, keyword search ranks with bm25() — identical scores, slower on common words.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

const FILE = `trove_rank.${process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so'}`;

export interface RankExtensionOptions {
  /** false: use bm25() (TROVE_NATIVE_RANK=0). */
  enabled: boolean;
  /** Where the built extension is (TROVE_NATIVE_DIR: the packaged app's resources). */
  dir?: string;
}

/** The given folder, else native/build in the project (from src-main/ or dist/). */
function candidates(dir: string | undefined): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dirs = [dir, path.resolve(here, '..', '..', '..', 'native', 'build'), path.resolve(here, '..', '..', 'native', 'build')];
  return dirs.filter((d): d is string => !!d).map((d) => path.join(d, FILE));
}

/** True when trove_bm25() is now available on this connection. */
export function loadRankExtension(db: Database.Database, opts: RankExtensionOptions = { enabled: true }): boolean {
  if (!opts.enabled) return false;
  const file = candidates(opts.dir).find((f) => fs.existsSync(f));
  if (!file) return false;
  try {
    db.loadExtension(file); // entry point sqlite3_troverank_init, derived by SQLite from the file name
    return true;
  } catch (err) {
    process.stderr.write(`trove: ${file} did not load (${(err as Error).message}); keyword search uses bm25()\n`);
    return false;
  }
}
