// Where a profile lives (TROVE_HOME, else the OS's per-user app-data directory; config.ts asks),
// and how its files are kept at rest: the folder 0700 and the index, its WAL, the settings and
// token files 0600, so on a shared machine no other local user can read the indexed documents.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function defaultProfileDir(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): string {
  if (env.TROVE_HOME) return path.resolve(env.TROVE_HOME);
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Trove');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Trove');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'trove');
}

export function databasePath(profileDir: string): string {
  return path.join(profileDir, 'index.sqlite');
}

// Windows has no POSIX modes: the profile lives under the user's own AppData, which its ACLs protect
const POSIX = process.platform !== 'win32';

/** Creates the profile folder 0700, or takes group and other access away from an existing one. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!POSIX) return;
  const mode = fs.statSync(dir).mode & 0o777;
  if (mode & 0o077) chmodOwned(dir, mode & 0o700);
}

/** chmod, except on what another user owns (a shared TROVE_HOME someone else made): that is theirs to set. */
function chmodOwned(target: string, mode: number): void {
  try {
    fs.chmodSync(target, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
}

/** Makes an existing file owner-only (0600 at most); a missing one is left missing. */
export function tightenFile(file: string): void {
  if (!POSIX) return;
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return;
  }
  if (mode & 0o077) chmodOwned(file, mode & 0o600);
}

/** Creates a file 0600 when it does not exist yet (SQLite then gives its WAL and shm files the same mode). */
export function createPrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  tightenFile(file);
}

/** Files of a profile that hold secrets or document text besides the index (tightened when a profile opens). */
const PRIVATE_FILES = ['settings.json', 'host-token', 'runtime.json', 'host.log'];

/** The profile folder 0700 and its private files 0600, whatever an older version or the umask left. */
export function secureProfile(profileDir: string): void {
  ensurePrivateDir(profileDir);
  for (const f of PRIVATE_FILES) tightenFile(path.join(profileDir, f));
}
