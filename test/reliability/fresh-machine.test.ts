// A fresh machine's `npm test`: its pretest step fetches the test models through Trove's own
// downloader from a mirror (here a real HTTP server on loopback serving a copy of the models as
// <id>/<file>, as TROVE_MODELS_MIRROR would), sha256-checked, into the user cache; a second run is
// offline; what it cannot fetch, or a corrupt file, is one clear line and a failed step; a missing
// browser is one line saying how to get one. Two small models keep it quick (the step is the same
// for the third).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModelMirror } from '../helpers/model-mirror.js';
import { missingTestModelFiles, testModelsCache, testModelsDir } from '../helpers/test-models.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODELS = testModelsDir();
const SOME = ['test-tiny-cross-encoder', 'all-MiniLM-L6-v2'];
afterAll(removeTempDirs);

function pretest(env: Record<string, string>, args: string[] = ['--models', SOME.join(','), '--no-browser']): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/test-prerequisites.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: env.XDG_CACHE_HOME ?? tempDir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr: stderr.split('\n').filter((l) => l && !l.startsWith('npm warn')).join('\n') }));
  });
}

const missingOf = (cacheHome: string) => missingTestModelFiles(testModelsCache({ XDG_CACHE_HOME: cacheHome })).filter((f) => SOME.some((m) => f.startsWith(`${m}/`)));

describe('a fresh machine: the pretest step', () => {
  it('fetches the test models from a mirror into the user cache, then runs offline', async () => {
    const cacheHome = tempDir('trove-fresh-cache-');
    const mirror = await startModelMirror(MODELS); // serves the folder as it is: <id>/<file>
    let first;
    try {
      first = await pretest({ XDG_CACHE_HOME: cacheHome, TROVE_MODELS_MIRROR: mirror.url });
    } finally {
      await mirror.close();
    }
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/test models: fetched 10 file\(s\) in .*trove\/test-models/);
    expect(missingOf(cacheHome)).toEqual([]);
    // the mirror is gone: the second run needs no network
    const second = await pretest({ XDG_CACHE_HOME: cacheHome, TROVE_MODELS_MIRROR: mirror.url });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/test models: all cached/);
  });

  it('says in one line what it could not fetch and how to point TROVE_MODELS_DIR at a copy', async () => {
    const r = await pretest({ XDG_CACHE_HOME: tempDir('trove-fresh-none-'), TROVE_MODELS_MIRROR: 'http://127.0.0.1:9/' });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^npm test: could not fetch the test models into .* \(all-MiniLM-L6-v2: cannot download .*; test-tiny-cross-encoder: cannot download .*\): set TROVE_MODELS_DIR to a folder/);
  });

  it('refuses a corrupt file from the mirror and keeps nothing of it', async () => {
    const served = tempDir('trove-fresh-mirror-');
    const mirror = await startModelMirror(served);
    mirror.fill(MODELS, 'test-tiny-cross-encoder', ['onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json', 'reference.json']);
    mirror.corrupt('test-tiny-cross-encoder', 'onnx/model.onnx');
    const cacheHome = tempDir('trove-fresh-corrupt-');
    try {
      const r = await pretest({ XDG_CACHE_HOME: cacheHome, TROVE_MODELS_MIRROR: mirror.url }, ['--models', 'test-tiny-cross-encoder', '--no-browser']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/test-tiny-cross-encoder: download of test-tiny-cross-encoder\/onnx\/model\.onnx is corrupt: sha256 [0-9a-f]{64}, expected 7fd56d59/);
      expect(fs.existsSync(path.join(testModelsCache({ XDG_CACHE_HOME: cacheHome }), 'test-tiny-cross-encoder', 'onnx', 'model.onnx'))).toBe(false);
    } finally {
      await mirror.close();
    }
  });

  it('with TROVE_MODELS_DIR set it fetches nothing; a missing browser is one line saying how to get one', async () => {
    const r = await pretest({ TROVE_MODELS_DIR: MODELS, TROVE_CHROMIUM: '/nonexistent/chromium' }, []);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^npm test: no Chromium for the browser tests: install Chromium .*npx playwright-core install chromium.* TROVE_CHROMIUM/);
    expect(r.stderr.split('\n')).toHaveLength(1);
  });
});
