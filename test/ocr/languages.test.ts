// OCR languages as models of role `ocr`: English is installed with the app (the npm package, found
// and sha256-checked in place), the others are pulled like any model — from the npm registry's
// package tarball, the member taken out and checked, resumable — and `trove models` lists them.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { create as createTar } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { downloadModel } from '../../src-main/engine/embed/downloader.js';
import { findModel, loadManifest } from '../../src-main/engine/embed/manifest.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
import { Engine } from '../../src-main/engine/index.js';
import { checkLanguages, resolveLanguages } from '../../src-main/engine/ocr/languages.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const manifest = loadManifest();
const require = createRequire(import.meta.url);
const engines: Engine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  removeTempDirs();
});

describe('OCR languages in the catalogue', () => {
  it('lists them as role ocr: English ready from the installed package, the others to pull', async () => {
    const engine = await Engine.open({ profileDir: tempDir('trove-profile-') });
    engines.push(engine);
    const rows = (await engine.models.list()).filter((r) => r.role === 'ocr');
    expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(['tesseract-eng', 'tesseract-chi_sim', 'tesseract-jpn', 'tesseract-deu']));
    const eng = rows.find((r) => r.id === 'tesseract-eng')!;
    expect(eng).toMatchObject({ ready: true, state: 'ready', languages: ['en'] });
    expect(eng.where).toMatch(/node_modules[\\/]@tesseract\.js-data[\\/]eng$/);
    expect(rows.find((r) => r.id === 'tesseract-chi_sim')).toMatchObject({ ready: false, state: 'missing' });
  });

  it('checks language codes and says how to get one that is missing', async () => {
    expect(checkLanguages(undefined, manifest)).toEqual(['eng']);
    expect(checkLanguages(['eng', 'chi_sim', 'eng'], manifest)).toEqual(['eng', 'chi_sim']);
    expect(() => checkLanguages(['klingon'], manifest)).toThrow(/"klingon" is not an OCR language Trove knows \(known: eng, chi_sim/);
    const [eng] = await resolveLanguages(['eng'], manifest, { cacheDir: tempDir() });
    expect(eng).toMatchObject({ code: 'eng', sha256: '45b4cb346724ac1774f1c36f42f182b887bcdb28ebe63e6fff90ac41f3fcff91' });
    await expect(resolveLanguages(['chi_sim'], manifest, { cacheDir: tempDir() })).rejects.toThrow(/^OCR language "chi_sim" is not available: no \S+ in .*trove models pull tesseract-chi_sim/);
  });
});

describe('pulling a language from its package tarball', () => {
  // a registry stand-in on 127.0.0.1: serves tesseract-eng/eng-1.0.0.tgz, an npm-style tarball made
  // here from the installed package; honours Range; can drop the connection once mid-file
  const root = tempDir('trove-ocr-registry-');
  let dropOnce = false;
  const ranges: number[] = [];
  const served = path.join(root, 'tesseract-eng', 'eng-1.0.0.tgz');
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url!, 'http://x').pathname));
    if (file !== served) return void res.writeHead(404).end();
    const body = fs.readFileSync(file);
    const from = Number(/bytes=(\d+)-/.exec(req.headers.range ?? '')?.[1] ?? 0);
    ranges.push(from);
    res.writeHead(from ? 206 : 200, { 'content-length': body.length - from });
    if (dropOnce) {
      dropOnce = false;
      res.flushHeaders();
      res.write(body.subarray(from, from + 200_000));
      setTimeout(() => res.socket?.destroy(), 100);
      return;
    }
    res.end(body.subarray(from));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('downloads the tarball resumably, takes the member out and checks its sha256', async () => {
    const pkg = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
    const staging = tempDir('trove-ocr-pkg-');
    for (const f of ['package.json', '4.0.0_best_int']) fs.cpSync(path.join(pkg, f), path.join(staging, 'package', f), { recursive: true });
    fs.mkdirSync(path.dirname(served), { recursive: true });
    await createTar({ gzip: true, file: served, cwd: staging }, ['package']);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const spec = findModel(manifest, 'tesseract-eng', 'ocr');
    const cache = tempDir('trove-ocr-cache-');
    dropOnce = true;
    await expect(downloadModel(spec, cache, { mirror })).rejects.toThrow(/interrupted|stopped at/);
    const target = path.join(cache, 'tesseract-eng', '4.0.0_best_int', 'eng.traineddata.gz');
    const archivePart = path.join(cache, 'tesseract-eng', '.archives', 'eng-1.0.0.tgz.part');
    const partial = fs.statSync(archivePart).size; // what arrived before the drop
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(fs.statSync(served).size);
    await downloadModel(spec, cache, { mirror }); // resumes with a Range request
    expect(ranges.slice(-1)).toEqual([partial]);
    expect(fs.existsSync(archivePart)).toBe(false);
    const local = { ...spec, npmPackage: undefined }; // look in the cache, not in node_modules
    expect(await resolveModel(local, { cacheDir: cache })).toMatchObject({ source: 'cache', verified: true, weightsFile: target });

    // a tarball whose member is not the expected build: refused, nothing left in place
    fs.writeFileSync(path.join(staging, 'package', '4.0.0_best_int', 'eng.traineddata.gz'), Buffer.alloc(spec.files[0]!.bytes!, 1));
    await createTar({ gzip: true, file: served, cwd: staging }, ['package']);
    const other = tempDir('trove-ocr-cache-');
    await expect(downloadModel(spec, other, { mirror })).rejects.toThrow(/eng\.traineddata\.gz\) is corrupt: sha256/);
    expect(fs.readdirSync(path.join(other, 'tesseract-eng', '4.0.0_best_int'))).toEqual([]);
  });
});
