// The downloader against a real HTTP server on loopback: a server of <model id>/<file> (a mirror),
// and a jar-shaped ZIP built here holding the real all-MiniLM-L6-v2 file and tokenizer as members,
// as Maven Central's langchain4j jar does. Sources are tried in order (a dead first one falls
// through), a truncated download resumes with a Range request, a corrupt file or member is deleted
// and reported, and what arrives is checked by sha256 (after extraction, for a member).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadModel } from '../../src-main/engine/embed/downloader.js';
import { findModel, loadManifest, parseManifest, type ModelDownloadSource, type ModelSpec } from '../../src-main/engine/embed/manifest.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
import type { DownloadProgress } from '../../src-main/engine/index.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const manifest = loadManifest();
const MINI = findModel(manifest, 'all-MiniLM-L6-v2');
const TINY = findModel(manifest, 'test-tiny-cross-encoder');
const ONNX = 'all-minilm-l6-v2-q.onnx';
const TOKENIZER = 'all-minilm-l6-v2-q-tokenizer.json';

/** What the server answers, by path: bytes, with optional one-time truncation. */
const routes = new Map<string, Uint8Array>();
const truncateOnce = new Map<string, number>();
const requests: { path: string; range: string | null }[] = [];
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
  requests.push({ path: rel, range: req.headers.range ?? null });
  const body = routes.get(rel);
  if (!body) return void res.writeHead(404).end();
  const range = /bytes=(\d+)-/.exec(req.headers.range ?? '');
  const from = range ? Number(range[1]) : 0;
  res.writeHead(range ? 206 : 200, { 'content-length': body.length - from });
  const cut = truncateOnce.get(rel);
  if (cut !== undefined) {
    truncateOnce.delete(rel);
    res.flushHeaders();
    res.write(body.subarray(from, from + cut), () => res.socket?.destroy()); // the connection drops mid-file
    return;
  }
  res.end(body.subarray(from));
});
let base = '';
/** A loopback port nothing listens on: a connection there is refused, as an unreachable source's is. */
let DEAD = '';

/** A jar as langchain4j publishes it: META-INF, a class, a README and the two model members (deflated). */
function jar(members: { onnx?: Uint8Array; tokenizer?: Uint8Array } = {}): Uint8Array {
  const dir = path.join(modelsDir, 'all-MiniLM-L6-v2');
  const files: Record<string, Uint8Array> = {
    'META-INF/MANIFEST.MF': Buffer.from('Manifest-Version: 1.0\r\nCreated-By: trove tests\r\n'),
    'dev/langchain4j/model/embedding/onnx/allminilml6v2q/AllMiniLmL6V2QuantizedEmbeddingModel.class': Buffer.from('not really a class'),
    README: Buffer.from('Model card: https://huggingface.co/Xenova/all-MiniLM-L6-v2\n'),
    [TOKENIZER]: members.tokenizer ?? fs.readFileSync(path.join(dir, 'tokenizer.json')),
    [ONNX]: members.onnx ?? fs.readFileSync(path.join(dir, 'onnx', 'model_quantized.onnx')),
  };
  return zipSync(files, { level: 1 });
}

function zipSource(name: string, file: string, bytes?: number): ModelDownloadSource {
  return { kind: 'zip', name, url: `${base}${file}`, ...(bytes ? { bytes } : {}), members: { 'onnx/model_quantized.onnx': ONNX, 'tokenizer.json': TOKENIZER } };
}
const withSources = (spec: ModelSpec, sources: ModelDownloadSource[]): ModelSpec => ({ ...spec, sources });
const deadFiles = (): ModelDownloadSource => ({ kind: 'files', name: 'Dead hub', baseUrl: DEAD });

let goodJar: Uint8Array;
beforeAll(async () => {
  // idle connections stay open for the whole file: fetch reuses them, and one the server closed while
  // a test was building its jar would reset the next request (a race of the test's making)
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  DEAD = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
  await new Promise<void>((r) => closed.close(() => r()));
  goodJar = jar();
  routes.set('/good.jar', goodJar);
  for (const f of ['onnx/model.onnx', 'tokenizer.json']) routes.set(`/mirror/${TINY.id}/${f}`, fs.readFileSync(path.join(modelsDir, TINY.id, f)));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  removeTempDirs();
});

describe('a server of files (a mirror)', () => {
  it('downloads, verifies and renames into place; the model then resolves from the cache', async () => {
    const cache = tempDir('trove-cache-');
    const seen: DownloadProgress[] = [];
    const r = await downloadModel(TINY, cache, { mirror: `${base}mirror/`, onProgress: (p) => seen.push(p) });
    expect(r).toEqual({ dir: path.join(cache, TINY.id), source: `mirror ${base}mirror/`, passedOver: [] });
    expect(seen.at(-1)).toMatchObject({ model: TINY.id, source: `mirror ${base}mirror/` });
    expect(await resolveModel(TINY, { cacheDir: cache })).toMatchObject({ source: 'cache', verified: true, weightsSha256: TINY.files[0]!.sha256 });
    // a second pull finds everything in place and fetches nothing
    const before = requests.length;
    expect(await downloadModel(TINY, cache, { mirror: `${base}mirror/` })).toMatchObject({ source: null });
    expect(requests.length).toBe(before);
  });

  it('a corrupt download is deleted and reported; nothing is left in place', async () => {
    const cache = tempDir('trove-cache-');
    const good = routes.get(`/mirror/${TINY.id}/onnx/model.onnx`)!;
    const bad = Uint8Array.from(good);
    bad[bad.length - 1]! ^= 1;
    routes.set(`/bad/${TINY.id}/onnx/model.onnx`, bad);
    routes.set(`/bad/${TINY.id}/tokenizer.json`, routes.get(`/mirror/${TINY.id}/tokenizer.json`)!);
    await expect(downloadModel(TINY, cache, { mirror: `${base}bad/` })).rejects.toThrow(/download of test-tiny-cross-encoder\/onnx\/model.onnx is corrupt: sha256 [0-9a-f]{64}, expected e00f807d/);
    expect(fs.existsSync(path.join(cache, TINY.id, 'onnx', 'model.onnx'))).toBe(false);
    expect(fs.existsSync(path.join(cache, TINY.id, 'onnx', 'model.onnx.part'))).toBe(false);
  });

  it('a truncated download resumes from its .part with a Range request', async () => {
    const cache = tempDir('trove-cache-');
    truncateOnce.set(`/mirror/${TINY.id}/onnx/model.onnx`, 1000);
    await expect(downloadModel(TINY, cache, { mirror: `${base}mirror/` })).rejects.toThrow(/interrupted|stopped at/);
    const part = path.join(cache, TINY.id, 'onnx', 'model.onnx.part');
    expect(fs.statSync(part).size).toBe(1000);
    await downloadModel(TINY, cache, { mirror: `${base}mirror/` });
    expect(requests.filter((q) => q.path === `/mirror/${TINY.id}/onnx/model.onnx`).at(-1)!.range).toBe('bytes=1000-');
    expect(fs.existsSync(part)).toBe(false);
    expect((await resolveModel(TINY, { cacheDir: cache })).verified).toBe(true);
  });

  it('offline: a clear error', async () => {
    await expect(downloadModel(TINY, tempDir(), { mirror: DEAD })).rejects.toThrow(/cannot download .*: fetch failed \(ECONNREFUSED\) \(offline\?/);
  });
});

describe('an archive source (a jar in a package registry)', () => {
  it('after a dead first source: downloads the jar, extracts the members, checks them after extraction, says which source served', async () => {
    const cache = tempDir('trove-cache-');
    const seen: DownloadProgress[] = [];
    const spec = withSources(MINI, [deadFiles(), zipSource('Test registry jar', 'good.jar', goodJar.length)]);
    const r = await downloadModel(spec, cache, { onProgress: (p) => seen.push(p) });
    expect(r.source).toBe('Test registry jar');
    expect(r.passedOver).toHaveLength(1);
    expect(r.passedOver[0]).toMatch(/^Dead hub: cannot download http:\/\/127\.0\.0\.1:\d+\/onnx\/model_quantized\.onnx: fetch failed \(ECONNREFUSED\)/);
    expect(seen.at(-1)).toMatchObject({ model: 'all-MiniLM-L6-v2', file: 'good.jar', received: goodJar.length, total: goodJar.length, source: 'Test registry jar' });
    const resolved = await resolveModel(MINI, { cacheDir: cache });
    expect(resolved).toMatchObject({ source: 'cache', verified: true, weightsSha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1' });
    // the optional files the jar lacks are left out; the archive itself is gone once its members are in place
    expect(fs.readdirSync(path.join(cache, 'all-MiniLM-L6-v2')).sort()).toEqual(['onnx', 'tokenizer.json']);
    // and the next pull goes nowhere: the optional files alone are no reason to
    const before = requests.length;
    expect(await downloadModel(spec, cache)).toEqual({ dir: path.join(cache, 'all-MiniLM-L6-v2'), source: null, passedOver: [] });
    expect(requests.length).toBe(before);
  });

  it('a truncated archive download resumes from its .part with a Range request', async () => {
    const cache = tempDir('trove-cache-');
    const spec = withSources(MINI, [zipSource('Test registry jar', 'good.jar')]);
    truncateOnce.set('/good.jar', 4_000_000);
    await expect(downloadModel(spec, cache)).rejects.toThrow(/download of .*good\.jar (was interrupted|stopped) at/);
    const part = path.join(cache, 'all-MiniLM-L6-v2', '.archives', 'good.jar.part');
    const kept = fs.statSync(part).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(4_000_000);
    expect((await downloadModel(spec, cache)).source).toBe('Test registry jar');
    expect(requests.filter((q) => q.path === '/good.jar').at(-1)!.range).toBe(`bytes=${kept}-`);
    expect((await resolveModel(MINI, { cacheDir: cache })).verified).toBe(true);
    expect(fs.existsSync(path.join(cache, 'all-MiniLM-L6-v2', '.archives'))).toBe(false);
  });

  it('a corrupt member (same size, other bytes) is refused after extraction; the archive is deleted; nothing is placed', async () => {
    const cache = tempDir('trove-cache-');
    const onnx = Uint8Array.from(fs.readFileSync(path.join(modelsDir, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx')));
    for (let i = 5000; i < 5010; i++) onnx[i]! ^= 0xff;
    routes.set('/corrupt.jar', jar({ onnx }));
    const spec = withSources(MINI, [zipSource('Test registry jar', 'corrupt.jar')]);
    await expect(downloadModel(spec, cache)).rejects.toThrow(
      /member all-minilm-l6-v2-q\.onnx of http:\/\/127\.0\.0\.1:\d+\/corrupt\.jar \(all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx\) is corrupt: sha256 [0-9a-f]{64}, expected afdb6f1a/,
    );
    expect(fs.existsSync(path.join(cache, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'))).toBe(false);
    expect(fs.existsSync(path.join(cache, 'all-MiniLM-L6-v2', '.archives', 'corrupt.jar'))).toBe(false);
  });

  it('an archive that is not a ZIP, or a member of another size, is refused before anything is inflated', async () => {
    const cache = tempDir('trove-cache-');
    routes.set('/html.jar', Buffer.from('<html>a proxy login page</html>'));
    await expect(downloadModel(withSources(MINI, [zipSource('Proxy', 'html.jar')]), cache)).rejects.toThrow(/html\.jar cannot be used: not a readable ZIP archive .*; it was deleted, try again/);
    routes.set('/short.jar', jar({ tokenizer: Buffer.from('{"truncated": true}') }));
    await expect(downloadModel(withSources(MINI, [zipSource('Short', 'short.jar')]), cache)).rejects.toThrow(/member all-minilm-l6-v2-q-tokenizer\.json would decompress to 19 bytes, expected 711661/);
    expect(fs.existsSync(path.join(cache, 'all-MiniLM-L6-v2', 'tokenizer.json'))).toBe(false);
  });

  it('every source failing: one error naming each with its reason, in order', async () => {
    const spec = withSources(MINI, [deadFiles(), zipSource('Gone registry', 'missing.jar'), { kind: 'zip', name: 'Partial jar', url: `${base}good.jar`, members: { 'tokenizer.json': TOKENIZER } }]);
    const err = (await downloadModel(spec, tempDir()).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^model "all-MiniLM-L6-v2" could not be downloaded from any of its sources: \(1\) Dead hub: cannot download .*ECONNREFUSED.*; \(2\) Gone registry: cannot download .*missing\.jar: HTTP 404; \(3\) Partial jar: it does not hold onnx\/model_quantized\.onnx$/);
  });

  it('the catalogue: a source naming a file the model does not have is refused', () => {
    const json = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../models/manifest.json'), 'utf8')) as { models: { id: string; sources: { kind: string; members?: Record<string, string> }[] }[] };
    json.models.find((m) => m.id === 'all-MiniLM-L6-v2')!.sources.find((s) => s.kind === 'zip')!.members!['onnx/model_q8.onnx'] = 'x.onnx';
    expect(() => parseManifest(json)).toThrow(/source "Maven Central \(.*\)" of model "all-MiniLM-L6-v2" names files the model does not have: onnx\/model_q8\.onnx/);
  });
});
