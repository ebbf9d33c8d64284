// Model resolution: missing, corrupt (sha mismatch) and wrong-dims models give clear errors while
// keyword search keeps working, on SQLite and on PostgreSQL (nothing of a refused model reaches the
// index). The downloader: test/embed/downloader.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findModel, loadManifest, parseManifest } from '../../src-main/engine/embed/manifest.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
import type { Engine } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { describeBackends, type TestBackend } from '../helpers/backends.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const manifest = loadManifest();
afterAll(() => removeTempDirs());

/** A copy of a test model folder that the test may damage. */
function copyModel(id: string): string {
  const dir = tempDir('trove-models-');
  fs.cpSync(path.join(modelsDir, id), path.join(dir, id), { recursive: true });
  for (const f of fs.readdirSync(path.join(dir, id), { recursive: true, withFileTypes: true })) {
    if (f.isFile()) fs.chmodSync(path.join(f.parentPath, f.name), 0o644);
  }
  return dir;
}

async function engineWith(b: TestBackend, models: string, extra: Record<string, unknown> = {}): Promise<Engine> {
  const { engine } = await b.indexedFolder({ 'a.md': '# Retries\n\nThe client retries failed requests three times.\n' }, 'docs', { embeddings: { modelsDir: models, workers: 1, ...extra } });
  return engine;
}

describeBackends('a model that cannot be used', (b) => {
  it('missing: embed and vector search say why; keyword search is unaffected', async () => {
    const engine = await engineWith(b, tempDir('trove-empty-models-'));
    await expect(engine.embed()).rejects.toThrow(/model "all-MiniLM-L6-v2" is not available: no onnx\/model_quantized.onnx .*trove models pull/);
    await expect(engine.search({ query: 'retries', mode: 'vector' })).rejects.toThrow(/vector search is off: .*not available/);
    expect((await engine.status()).embeddings.collections[0]!.problem).toMatch(/not available/);
    expect((await engine.search({ query: 'retries' })).results).toHaveLength(1);
  });

  it('corrupt: a weights file with another sha256 is refused, naming the file', async () => {
    const dir = copyModel('all-MiniLM-L6-v2');
    const weights = path.join(dir, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx');
    const fd = fs.openSync(weights, 'r+');
    fs.writeSync(fd, Buffer.from([0x42]), 0, 1, 1000);
    fs.closeSync(fd);
    const err = await resolveModel(findModel(manifest, 'all-MiniLM-L6-v2'), { modelsDir: dir, cacheDir: tempDir() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TroveError);
    expect((err as TroveError).message).toMatch(/corrupt or not the expected build: .*model_quantized.onnx has sha256/);
    const engine = await engineWith(b, dir);
    await expect(engine.embed()).rejects.toThrow(/corrupt/);
    expect((await engine.search({ query: 'retries' })).results).toHaveLength(1);
  });

  it('wrong dims: a model whose output width differs from the manifest is refused before any vector is stored', async () => {
    const json = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../models/manifest.json'), 'utf8')) as { models: { id: string; dims?: number }[] };
    json.models.find((m) => m.id === 'all-MiniLM-L6-v2')!.dims = 256;
    parseManifest(json); // still a valid manifest
    const file = path.join(tempDir(), 'manifest.json');
    fs.writeFileSync(file, JSON.stringify(json));
    const engine = await engineWith(b, modelsDir, { manifestFile: file });
    await expect(engine.embed()).rejects.toThrow(/makes 384-dimensional vectors, the manifest says 256/);
    expect((await engine.status()).hasVectorIndex).toBe(false);
  });
});

describe('the model manifest', () => {
  it('a malformed manifest is rejected by its schema', () => {
    expect(() => parseManifest({ version: 1, defaults: { embed: 'a', embedMultilingual: 'b', rerank: 'c' }, models: [{ id: 'x', role: 'embed' }] })).toThrow(/model manifest is invalid/);
  });
});
