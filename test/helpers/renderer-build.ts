// Builds the renderer (electron-vite: out/renderer) for the UI tests unless `npm test` just did,
// or this helper built it after the last change to the renderer, its API types or the preload.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './cli.js';

function newest(dir: string): number {
  let at = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    at = Math.max(at, e.isDirectory() ? newest(abs) : fs.statSync(abs).mtimeMs);
  }
  return at;
}

export function buildRendererOnce(): void {
  const index = path.join(REPO, 'out/renderer/index.html');
  if (process.env.npm_lifecycle_event === 'test' && fs.existsSync(index)) return;
  const stamp = path.join(REPO, 'out/.test-build-started');
  const builtAt = fs.existsSync(stamp) ? Number(fs.readFileSync(stamp, 'utf8')) : 0;
  const sources = Math.max(...['src-renderer', 'src-preload', 'src-main/api', 'src-main/engine/types'].map((d) => newest(path.join(REPO, d))));
  if (fs.existsSync(index) && builtAt > sources) return;
  const started = Date.now();
  execFileSync(process.execPath, [path.join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: REPO, stdio: 'pipe' });
  fs.writeFileSync(stamp, String(started));
}
