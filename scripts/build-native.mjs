// Builds Trove's two optional native parts into native/build/, each only when its source is newer
// than its build, and never fails the install (on failure, or without a C compiler, each has its
// fallback):
// - native/trove_rank.c: the SQLite extension with Trove's FTS5 ranking function. Fallback: FTS5's
//   own bm25() — the same ranking, slower on queries with common words.
// - native/trove_memory.c (Linux): a Node-API addon with which a host tunes glibc's malloc (arenas, mmap threshold).
//   Needs Node's headers (npm_config_nodedir, or include/node beside the node binary). Fallback:
//   glibc's defaults (more memory held under load).
// CC overrides the compiler; Windows (no cc) uses the fallbacks.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cc = process.env.CC || 'cc';
const ext = process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so';
const shared = process.platform === 'darwin' ? ['-dynamiclib', '-undefined', 'dynamic_lookup'] : ['-shared', '-fPIC'];

function build(name, out, includeDir, fallback) {
  const source = path.join(root, 'native', `${name}.c`);
  if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= fs.statSync(source).mtimeMs) return;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const r = spawnSync(cc, ['-O2', ...shared, '-I', includeDir, '-o', out, source, '-lm'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.log(`[trove] could not build ${path.relative(root, source)} with ${cc}: ${fallback}`);
    fs.rmSync(out, { force: true });
  }
}

/** Where node_api.h is: the headers npm builds addons against, else those installed beside this node. */
function nodeHeaders() {
  const dirs = [process.env.npm_config_nodedir, path.resolve(process.execPath, '..', '..')].filter(Boolean).map((d) => path.join(d, 'include', 'node'));
  return dirs.find((d) => fs.existsSync(path.join(d, 'node_api.h')));
}

if (process.platform === 'win32' && !process.env.CC) {
  console.log('[trove] no C compiler configured (set CC): keyword search uses FTS5 bm25()');
  process.exit(0);
}
// sqlite3ext.h of the SQLite we link against
build('trove_rank', path.join(root, 'native', 'build', `trove_rank.${ext}`), path.join(root, 'node_modules', 'better-sqlite3', 'deps', 'sqlite3'), 'keyword search uses FTS5 bm25() (same ranking, slower)');
if (process.platform === 'linux') {
  const headers = nodeHeaders();
  if (headers) build('trove_memory', path.join(root, 'native', 'build', 'trove_memory.node'), headers, "the host keeps glibc's default malloc settings");
  else console.log("[trove] no Node headers found (npm_config_nodedir): the host keeps glibc's default malloc settings");
}
process.exit(0);
