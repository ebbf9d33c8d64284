// Model resolution and download: missing, corrupt (sha mismatch) and wrong-dims models give
// clear errors while keyword search keeps working, on SQLite and on PostgreSQL (nothing of a
// refused model reaches the index); the downloader against a local HTTP server serving
// ../shared/models, including a corrupt file and a truncated (then resumed) one.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { downloadModel } from '../../src-main/engine/embed/downloader.js';
import { findModel, loadManifest, parseManifest } from '../../src-main/engine/embed/manifest.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
import type { Engine } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { describeBackends, type TestBackend } from '../helpers/backends.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const manifest = loadManifest();
afterAll(() => removeTempDirs());

/** A copy of a shared model folder that the test may damage. */
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

describe('downloader', () => {
  let truncateOnce = new Set<string>();
  let corrupt = new Set<string>();
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url!, 'http://x').pathname).slice(1);
    const file = path.join(modelsDir, rel);
    if (rel.includes('..') || !fs.existsSync(file)) return void res.writeHead(404).end();
    let body = fs.readFileSync(file);
    if (corrupt.has(rel)) body = Buffer.concat([body.subarray(0, body.length - 1), Buffer.from([body[body.length - 1]! ^ 1])]);
    const range = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const from = range ? Number(range[1]) : 0;
    res.writeHead(range ? 206 : 200, { 'content-length': body.length - from });
    if (truncateOnce.delete(rel)) {
      res.flushHeaders();
      res.write(body.subarray(from, from + 1000));
      setTimeout(() => res.socket?.destroy(), 100); // the connection drops mid-file
      return;
    }
    res.end(body.subarray(from));
  });
  let mirror = '';
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('downloads, verifies and renames into place; the model then resolves from the cache', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const cache = tempDir('trove-cache-');
    const spec = findModel(manifest, 'test-tiny-cross-encoder');
    const seen: number[] = [];
    await downloadModel(spec, cache, { mirror, onProgress: (p) => seen.push(p.received) });
    expect(seen.length).toBeGreaterThan(0);
    const r = await resolveModel(spec, { cacheDir: cache });
    expect(r).toMatchObject({ source: 'cache', verified: true, weightsSha256: '7fd56d59001e1003670d613ecd96ffc73c585f412ccf459dcd3c1da878bc1b36' });
  });

  it('a corrupt download is deleted and reported; nothing is left in place', async () => {
    const cache = tempDir('trove-cache-');
    corrupt = new Set(['test-tiny-cross-encoder/onnx/model.onnx']);
    const spec = findModel(manifest, 'test-tiny-cross-encoder');
    await expect(downloadModel(spec, cache, { mirror })).rejects.toThrow(/onnx\/model.onnx is corrupt: sha256/);
    expect(fs.existsSync(path.join(cache, spec.id, 'onnx', 'model.onnx'))).toBe(false);
    expect(fs.existsSync(path.join(cache, spec.id, 'onnx', 'model.onnx.part'))).toBe(false);
    corrupt = new Set();
  });

  it('a truncated download resumes from its .part with a Range request', async () => {
    const cache = tempDir('trove-cache-');
    truncateOnce = new Set(['test-tiny-cross-encoder/onnx/model.onnx']);
    const spec = findModel(manifest, 'test-tiny-cross-encoder');
    await expect(downloadModel(spec, cache, { mirror })).rejects.toThrow(/interrupted|stopped at/);
    const part = path.join(cache, spec.id, 'onnx', 'model.onnx.part');
    expect(fs.statSync(part).size).toBe(1000);
    await downloadModel(spec, cache, { mirror });
    expect(fs.existsSync(part)).toBe(false);
    expect((await resolveModel(spec, { cacheDir: cache })).verified).toBe(true);
  });

  it('offline: a clear error', async () => {
    const spec = findModel(manifest, 'test-tiny-cross-encoder');
    await expect(downloadModel(spec, tempDir(), { mirror: 'http://127.0.0.1:1/' })).rejects.toThrow(/cannot download .*offline/);
  });
});
