// Downloading models from the command line on a machine that has none: `trove models pull` and
// `trove embed` (which pulls what its collections need first) say which source served, here a
// real HTTP server on loopback serving <id>/<file> (TROVE_MODELS_MIRROR), and an unreachable one
// is one clear error while keyword search keeps working.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { startModelMirror, type ModelMirror } from '../helpers/model-mirror.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const MINI = { id: 'all-MiniLM-L6-v2', files: ['onnx/model_quantized.onnx', 'tokenizer.json'] };
let mirror: ModelMirror;
beforeAll(async () => {
  ensureBuilt();
  mirror = await startModelMirror(tempDir('trove-cli-mirror-'));
  mirror.fill(modelsDir, MINI.id, MINI.files);
  mirror.fill(modelsDir, 'test-tiny-embedder', ['onnx/model.onnx', 'tokenizer.json']);
});
afterAll(async () => {
  await mirror.close();
  removeTempDirs();
});

describe('models from the command line on an empty home', () => {
  it('`trove models pull` says which source served and where the verified files are', async () => {
    const home = tempDir('trove-cli-pull-');
    const r = await runTrove(['models', 'pull', 'test-tiny-embedder'], { home, env: { TROVE_MODELS_MIRROR: mirror.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`test-tiny-embedder: downloaded from mirror ${mirror.url} and verified in ${path.join(home, 'models', 'test-tiny-embedder')}\n`);
    const again = oneJson<{ model: string; source: string | null; passedOver: string[] }>(await runTrove(['models', 'pull', 'test-tiny-embedder', '--json'], { home, env: { TROVE_MODELS_MIRROR: mirror.url } }));
    expect(again).toMatchObject({ model: 'test-tiny-embedder', source: null, passedOver: [] }); // already here: nothing fetched
  });

  it('`trove embed` downloads the model its collection needs first, says from where, then embeds; vector search works', async () => {
    const home = tempDir('trove-cli-embed-');
    const docs = tempDir('trove-cli-embed-docs-');
    writeTree(docs, { 'a.md': '# Resilience settings\n\nThe client retries failed requests three times.\n', 'b.md': '# Bread\n\nKnead the dough for ten minutes.\n' });
    const env = { TROVE_MODELS_MIRROR: mirror.url };
    expect((await runTrove(['collection', 'add', docs, '--name', 'docs'], { home, env })).code).toBe(0);
    const r = await runTrove(['embed'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`all-MiniLM-L6-v2: downloaded from mirror ${mirror.url} and verified in ${path.join(home, 'models', 'all-MiniLM-L6-v2')}`);
    expect(r.stdout).toMatch(/^docs: all-MiniLM-L6-v2, 2 vectors, 0 waiting$/m);
    const found = oneJson<{ results: { path: string }[] }>(await runTrove(['search', 'how do I configure retry policies', '--mode', 'vector', '--json'], { home, env }));
    expect(found.results[0]?.path).toBe('a.md');
  });

  it('an unreachable source: `trove embed` says so in one line and fails; keyword search is unaffected', async () => {
    const home = tempDir('trove-cli-offline-');
    const docs = tempDir('trove-cli-offline-docs-');
    writeTree(docs, { 'a.md': '# Retries\n\nThe client retries failed requests.\n' });
    const env = { TROVE_MODELS_MIRROR: 'http://127.0.0.1:9/' };
    expect((await runTrove(['collection', 'add', docs, '--name', 'docs'], { home, env })).code).toBe(0);
    const r = await runTrove(['embed'], { home, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^all-MiniLM-L6-v2: not downloaded: cannot download http:\/\/127\.0\.0\.1:9\/all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx: fetch failed/m);
    expect(r.stderr).toMatch(/model "all-MiniLM-L6-v2" is not available/);
    expect(oneJson<{ results: unknown[] }>(await runTrove(['search', 'retries', '--json'], { home, env })).results).toHaveLength(1);
  });
});
