// Where a profile lives: TROVE_HOME, else the OS's per-user app-data directory (config.ts asks).
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
