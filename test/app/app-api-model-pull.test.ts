// models.pull on a real engine: a real HTTP server (node:http) serves a mirror folder laid out
// as <id>/<file>, holding a copy of the tiny test-tiny-embedder model the tests build. The
// engine's models folder is empty, so the model is missing until the app downloads it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testModelsDir } from '../helpers/test-models.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ModelEntry } from '../../src-main/api/results.js';
import { Engine } from '../../src-main/engine/index.js';
import { createAppApi, type AppApi } from '../../src-main/host/app-api.js';
import { startModelMirror, TINY_MODEL, type ModelMirror } from '../helpers/model-mirror.js';
import { ok } from '../helpers/app-api.js';

const SHARED = testModelsDir();
const { id: ID, files: FILES } = TINY_MODEL;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-model-pull-'));
const emptyModels = path.join(tmp, 'models-empty');
const cacheDir = path.join(tmp, 'cache');
let mirror: ModelMirror;
let engine: Engine;
let api: AppApi;
const events: ApiEvent[] = [];

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}

async function catalogueEntry(): Promise<ModelEntry> {
  return ok<ModelEntry[]>(await api.call('models.list', {})).find((m) => m.id === ID)!;
}

beforeAll(async () => {
  fs.mkdirSync(emptyModels);
  mirror = await startModelMirror(path.join(tmp, 'mirror'));
  mirror.fill(SHARED, ID, FILES);
  engine = await Engine.open({ profileDir: path.join(tmp, 'profile'), embeddings: { modelsDir: emptyModels, cacheDir } });
  api = createAppApi({ engine, modelsMirror: mirror.url });
  api.onEvent((e) => events.push(e));
});

afterAll(async () => {
  await api.close();
  await engine.close();
  await mirror.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('app API: downloading a model (models.pull)', () => {
  it('starts with the model missing: no file of it in any folder the engine reads', async () => {
    expect(engine.models.locations()).toMatchObject({ modelsDir: emptyModels, cacheDir });
    expect(engine.models.locations().packagedDir).toBeUndefined();
    expect(filesUnder(emptyModels)).toEqual([]);
    expect(filesUnder(cacheDir)).toEqual([]);
    expect(await catalogueEntry()).toMatchObject({ ready: false, where: null });
  });

  it('refuses an unknown model', async () => {
    expect(await api.call('models.pull', { id: 'no-such-model' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringContaining('no-such-model') } });
    expect(await api.call('models.pull', {})).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('reports a corrupt download (sha256) and keeps nothing of it', async () => {
    mirror.corrupt(ID, TINY_MODEL.weights); // same size, different bytes
    events.length = 0;
    expect(ok(await api.call('models.pull', { id: ID }))).toEqual({ started: ID });
    await api.idle();
    const finished = events.filter((e) => e.type === 'model.finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ model: ID, error: expect.stringContaining('sha256') });
    expect(filesUnder(cacheDir)).toEqual([]); // no weights, no .part
    expect(await catalogueEntry()).toMatchObject({ ready: false });
  });

  it('downloads in the background with progress, refuses a second pull meanwhile, and the model becomes ready', async () => {
    mirror.fill(SHARED, ID, FILES);
    events.length = 0;
    expect(ok(await api.call('models.pull', { id: ID }))).toEqual({ started: ID });
    expect(await api.call('models.pull', { id: ID })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    await api.idle();

    const progress = events.filter((e) => e.type === 'model.progress');
    expect(progress.length).toBeGreaterThan(0);
    const weights = progress.filter((e) => e.file === TINY_MODEL.weights);
    expect(weights.at(-1)).toMatchObject({ model: ID, received: TINY_MODEL.weightsBytes, total: TINY_MODEL.weightsBytes });
    // throttled: a 1.6 MB file on localhost arrives in many chunks but yields only a few events
    expect(weights.length).toBeLessThan(20);
    expect(events.filter((e) => e.type === 'model.finished')).toEqual([{ type: 'model.finished', model: ID, error: null, source: `mirror ${mirror.url}` }]);
    expect(progress.every((e) => e.source === `mirror ${mirror.url}`)).toBe(true); // which source the bytes come from
    expect(events.findIndex((e) => e.type === 'model.finished')).toBe(events.length - 1);

    expect(await catalogueEntry()).toMatchObject({ ready: true, state: 'ready', where: path.join(cacheDir, ID) });
    expect(filesUnder(path.join(cacheDir, ID))).toEqual(expect.arrayContaining(['model.onnx', 'tokenizer.json']));
  });

  it('throttles progress on a slow link to about four events a second', async () => {
    const slow = await startModelMirror(path.join(tmp, 'slow-mirror'), { slow: true });
    try {
      slow.fill(SHARED, ID, FILES);
      const slowCache = path.join(tmp, 'slow-cache');
      const engine2 = await Engine.open({ profileDir: path.join(tmp, 'profile2'), embeddings: { modelsDir: emptyModels, cacheDir: slowCache } });
      const api2 = createAppApi({ engine: engine2, modelsMirror: slow.url });
      const seen: { at: number; e: ApiEvent }[] = [];
      api2.onEvent((e) => seen.push({ at: Date.now(), e }));
      ok(await api2.call('models.pull', { id: ID }));
      await api2.idle();
      await api2.close();
      await engine2.close();
      const weights = seen.filter((s) => s.e.type === 'model.progress' && s.e.file === TINY_MODEL.weights);
      expect(weights.length).toBeGreaterThan(2); // 7 pieces of 256 KB, 150 ms apart: several reports
      // between the first report of the file and its last (complete) one, reports come at least 250 ms apart
      const middle = weights.slice(1, -1);
      for (const [i, w] of middle.entries()) expect(w.at - weights[i]!.at, `report ${i + 1}`).toBeGreaterThanOrEqual(250);
      expect(weights.length).toBeLessThan(7 + 1); // no more reports than network pieces
      expect(seen.at(-1)!.e).toEqual({ type: 'model.finished', model: ID, error: null, source: `mirror ${slow.url}` });
    } finally {
      await slow.close();
    }
  });
});
