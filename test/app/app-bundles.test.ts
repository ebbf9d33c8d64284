// `electron-vite build` produces the three bundles the desktop app needs, in the shapes Electron
// requires (ESM main with two entries, a self-contained CJS preload for the sandbox, a renderer
// with relative asset URLs and a CSP), and electron-builder accepts the packaging config.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const out = (p: string) => path.join(ROOT, 'out', p);

beforeAll(() => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
}, 120_000);

describe('app bundles', () => {
  it('builds the main process (app + engine host) as ES modules that parse', () => {
    for (const entry of ['main/main.js', 'main/host.js']) {
      expect(fs.existsSync(out(entry)), entry).toBe(true);
      const check = spawnSync(process.execPath, ['--check', out(entry)], { encoding: 'utf8' });
      expect(check.status, check.stderr).toBe(0);
    }
    expect(fs.readFileSync(out('main/main.js'), 'utf8')).toMatch(/from "electron"/);
    // the engine host must not load Electron: it is the same host `trove serve` runs
    expect(fs.readFileSync(out('main/host.js'), 'utf8')).not.toMatch(/from "electron"/);
  });

  it("puts the host's worker scripts beside it, where engine/worker-script.ts starts them", () => {
    for (const entry of ['main/worker.js', 'main/parse-worker.js', 'main/checkpoint-worker.js', 'main/reader-worker.js', 'main/model-prepare-worker.js']) {
      expect(fs.existsSync(out(entry)), entry).toBe(true);
      const check = spawnSync(process.execPath, ['--check', out(entry)], { encoding: 'utf8' });
      expect(check.status, check.stderr).toBe(0);
      expect(fs.readFileSync(out(entry), 'utf8')).not.toMatch(/from "electron"/);
    }
  });

  it('builds one self-contained CommonJS preload that requires nothing but electron', () => {
    const preload = fs.readFileSync(out('preload/index.cjs'), 'utf8');
    const requires = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    expect(new Set(requires)).toEqual(new Set(['electron']));
    expect(preload).toContain('exposeInMainWorld("trove"');
  });

  it('builds the renderer with relative asset URLs and a strict CSP', () => {
    const html = fs.readFileSync(out('renderer/index.html'), 'utf8');
    expect(html).toMatch(/src="\.\/assets\/index-[\w-]+\.js"/);
    expect(html).toContain("default-src 'self'");
    expect(html).not.toMatch(/unsafe-eval/);
  });

  it('has an electron-builder config that passes electron-builder’s own schema', async () => {
    const require = createRequire(path.join(ROOT, 'package.json'));
    const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
      getConfig(dir: string, file: string | null, extra: unknown): Promise<Record<string, unknown>>;
      validateConfiguration(config: unknown, log: unknown): Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    const config = await getConfig(ROOT, null, null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config).toMatchObject({ appId: 'org.trove.desktop', asar: true });
    await expect(validateConfiguration({ ...config, linux: { bogusKey: true } }, new DebugLogger(false))).rejects.toThrow(/Invalid configuration/);
  });
});
