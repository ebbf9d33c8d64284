// Root postinstall: build the optional native ranking extension (scripts/build-native.mjs), then
// fetch the Electron binary on developer machines.
// Electron >= 42 has no install script of its own; the binary is fetched by `install-electron`
// (node_modules/electron/install.js). electron-vite dev/preview need it; `electron-vite build`,
// `tsc` and vitest do not. CI / offline machines set ELECTRON_SKIP_BINARY_DOWNLOAD=1
// (the same variable Electron <= 41's own postinstall honours).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

// env var (preferred: set by CI scripts), or `electron_skip_binary_download=true` in an .npmrc
// (npm exports unknown .npmrc keys to scripts as npm_config_*; npm 11 warns "Unknown project config").
spawnSync(process.execPath, [path.join(import.meta.dirname, 'build-native.mjs')], { stdio: 'inherit' });

const skip = process.env.ELECTRON_SKIP_BINARY_DOWNLOAD ?? process.env.npm_config_electron_skip_binary_download;
if (skip && skip !== '0' && skip !== 'false') {
  console.log('[trove] ELECTRON_SKIP_BINARY_DOWNLOAD set: not downloading the Electron binary');
  process.exit(0);
}
const require = createRequire(import.meta.url);
const installJs = path.join(path.dirname(require.resolve('electron/package.json')), 'install.js');
// install.js is a no-op when dist/ already holds the right version
const r = spawnSync(process.execPath, [installJs], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error('[trove] Electron binary download failed. Offline? Re-run with ELECTRON_SKIP_BINARY_DOWNLOAD=1 ' +
    '(build/test still work; only `npm run dev` needs the binary).');
}
process.exit(r.status ?? 1);
