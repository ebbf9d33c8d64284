// Builds native/trove_rank.c, the SQLite extension with Trove's FTS5 ranking function, into
// native/build/. Optional: without a C compiler (or on failure) keyword search falls back to
// FTS5's own bm25() — the same ranking, slower on queries with common words — so this never
// fails the install. CC overrides the compiler; Windows (no cc) uses the fallback.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'native', 'trove_rank.c');
const headers = path.join(root, 'node_modules', 'better-sqlite3', 'deps', 'sqlite3'); // sqlite3ext.h of the SQLite we link against
const ext = process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so';
const out = path.join(root, 'native', 'build', `trove_rank.${ext}`);

if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= fs.statSync(source).mtimeMs) process.exit(0);
if (process.platform === 'win32' && !process.env.CC) {
  console.log('[trove] no C compiler configured (set CC): keyword search uses FTS5 bm25()');
  process.exit(0);
}
fs.mkdirSync(path.dirname(out), { recursive: true });
const cc = process.env.CC || 'cc';
const shared = process.platform === 'darwin' ? ['-dynamiclib', '-undefined', 'dynamic_lookup'] : ['-shared', '-fPIC'];
const r = spawnSync(cc, ['-O2', ...shared, '-I', headers, '-o', out, source, '-lm'], { stdio: 'inherit' });
if (r.status !== 0) {
  console.log(`[trove] could not build ${path.relative(root, source)} with ${cc}: keyword search uses FTS5 bm25() (same ranking, slower)`);
  fs.rmSync(out, { force: true });
}
process.exit(0);
