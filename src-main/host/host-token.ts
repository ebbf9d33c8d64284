// The host's own bearer token (full access): kept in $TROVE_HOME/host-token (0600) so MCP client
// configs that carry it keep working across restarts. TROVE_TOKEN (read by the face) overrides it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../engine/index.js';

export function hostTokenPath(profileDir: string): string {
  return path.join(profileDir, 'host-token');
}

export function loadHostToken(profileDir: string, given?: string): string {
  if (given && given.length >= 16) return given;
  const file = hostTokenPath(profileDir);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 16) return existing;
  } catch {
    /* first start */
  }
  ensurePrivateDir(profileDir);
  const token = `trove_${randomBytes(32).toString('base64url')}`;
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return token;
}
