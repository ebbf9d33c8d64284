// A dataset written exactly as the dataset-registry spec shows it — no `model` field, paths relative
// to the project root, found under the project root's datasets/ folder, nested as deep as a person
// likes — served unchanged. The model is inferred: every installed model of the index's dimension
// is checked against the stored vectors, the one that reproduces them is used, and status says it
// was inferred; when none does, the dataset is Invalid with the reason. Real FAISS files (the
// committed fixtures, one with its vectors scrambled here), the real models, a real MCP client,
// and the real CLI run in the project folder.
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type DatasetInfo } from '../../src-main/engine/index.js';
import { parseFaissIndex } from '../../src-main/engine/datasets/faiss-format.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, runTrove } from '../helpers/cli.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

const IP = path.join(FIXTURES, 'datasets', 'ip');
let project: string;
let engine: Engine;
let host: Host;

/** The spec's manifest: its six fields, paths from the project root, no model. */
function specManifest(id: string, dir: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ id, name: `Dataset ${id}`, description: `The ${id} dataset`, index: `./datasets/${dir}/docs.index`, metadata: `./datasets/${dir}/metadata.json`, defaultTopK: 3, ...extra });
}

/** ip's index with every stored vector reversed: still unit vectors, but no model's embedding of their text. */
function scrambledIndex(): Buffer {
  const file = fs.readFileSync(path.join(IP, 'docs.index', 'index.faiss'));
  const { vectors, d, ntotal } = parseFaissIndex(file);
  const at = file.indexOf(Buffer.from(vectors.buffer, vectors.byteOffset, d * ntotal * 4));
  expect(at).toBeGreaterThan(0);
  const out = Buffer.from(file);
  for (let r = 0; r < ntotal; r++) for (let j = 0; j < d; j++) out.writeFloatLE(vectors[r * d + (d - 1 - j)]!, at + (r * d + j) * 4);
  return out;
}

beforeAll(async () => {
  project = tempDir('trove-project-');
  const metadata = fs.readFileSync(path.join(IP, 'metadata.json'));
  const index = fs.readFileSync(path.join(IP, 'docs.index', 'index.faiss'));
  writeTree(path.join(project, 'datasets'), {
    // nested two folders down, as the spec's recursive scan finds it
    'household/cherry-docs/manifest.json': specManifest('cherry-docs', 'household/cherry-docs'),
    'household/cherry-docs/docs.index/index.faiss': index,
    'household/cherry-docs/metadata.json': metadata,
    // inside a dataset's own folder: never walked
    'household/cherry-docs/docs.index/old/manifest.json': specManifest('inner', 'household/cherry-docs'),
    'scrambled/manifest.json': specManifest('scrambled', 'scrambled'),
    'scrambled/docs.index/index.faiss': scrambledIndex(),
    'scrambled/metadata.json': metadata,
    'narrow/manifest.json': JSON.stringify({ id: 'narrow', name: 'Narrow', description: '128-dimension vectors', index: './index.faiss', metadata: '../scrambled/metadata.json' }),
    'narrow/index.faiss': fs.readFileSync(path.join(FIXTURES, 'datasets', 'dims-mismatch', 'index.faiss')),
    // the same files with the model named: checked, not inferred
    'named/manifest.json': specManifest('named', 'household/cherry-docs', { model: 'all-MiniLM-L6-v2' }),
  });
  engine = await Engine.open({ profileDir: tempDir('trove-profile-'), embeddings: { modelsDir, workers: 1 }, datasets: { projectRoot: project } });
  await engine.datasets.settled();
  host = await startHost({ engine, port: 0, writeRuntimeFile: false, token: 'test-runtime-token-0123456789' });
}, 180_000);

afterAll(async () => {
  await host?.close();
  await engine?.close();
  removeTempDirs();
});

const byId = async () => new Map((await engine.datasets.list()).map((d) => [d.id, d]));

describe("the spec's own manifest, in the project root's datasets/ folder", () => {
  it('is found recursively (never inside a dataset), and its model is inferred from the vectors', async () => {
    const all = await byId();
    expect([...all.keys()].sort()).toEqual(['cherry-docs', 'named', 'narrow', 'scrambled']);
    expect(all.get('cherry-docs')).toMatchObject({
      state: 'ready',
      reason: null,
      kind: 'faiss',
      model: 'all-MiniLM-L6-v2',
      modelInferred: true,
      documents: 24,
      dims: 384,
      folder: null,
      indexPath: path.join(project, 'datasets', 'household', 'cherry-docs', 'docs.index'),
    } satisfies Partial<DatasetInfo>);
    expect(all.get('cherry-docs')!.warnings.join('\n')).toMatch(/the manifest names no model: all-MiniLM-L6-v2 was inferred \(it reproduces the stored vectors, best cosine (0\.9\d|1\.00)\)/);
    expect(all.get('named')).toMatchObject({ state: 'ready', model: 'all-MiniLM-L6-v2', modelInferred: false });
  });

  it('is Invalid with the reason when no installed model reproduces the vectors, or none has their dimension', async () => {
    const all = await byId();
    expect(all.get('scrambled')?.state).toBe('invalid');
    expect(all.get('scrambled')?.reason).toMatch(
      /^the manifest names no model, and none of the installed 384-dimension models reproduces the stored vectors \(.*all-MiniLM-L6-v2: best cosine -?0\.[0-4]\d.*\).*: set "model" in the manifest to the model that made them$/,
    );
    expect(all.get('narrow')?.state).toBe('invalid');
    expect(all.get('narrow')?.reason).toMatch(/^the manifest names no model, and no embedding model Trove knows makes 128-dimension vectors \(it has all-MiniLM-L6-v2 \(384\)/);
  });

  it('serves a real MCP client unchanged: knowledge.search {dataset, query, topK}, and status says the model was inferred', async () => {
    const client = new Client({ name: 'cherry-studio', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
    try {
      const r = await client.callTool({ name: 'knowledge.search', arguments: { dataset: 'cherry-docs', query: 'how do I fix a flat tire on my bike' } });
      expect(r.isError).toBeFalsy();
      const results = (r.structuredContent as { results: { path: string; score: number; title: string; snippet: string }[] }).results;
      expect(results).toHaveLength(3); // the manifest's defaultTopK
      expect(results[0]).toMatchObject({ path: 'repairs/bike-tire.md', title: 'Fixing a flat bicycle tire' });
      const status = await client.callTool({ name: 'status', arguments: {} });
      const datasets = (status.structuredContent as { datasets: { id: string; modelInferred: boolean; state: string; reason: string | null }[] }).datasets;
      expect(datasets.find((d) => d.id === 'cherry-docs')).toMatchObject({ state: 'ready', modelInferred: true });
      expect(datasets.find((d) => d.id === 'scrambled')).toMatchObject({ state: 'invalid', modelInferred: false });
      const text = (status.content as { text: string }[])[0]!.text;
      expect(text).toMatch(/- cherry-docs \[ready\]: Dataset cherry-docs \(faiss, 24 vectors; model all-MiniLM-L6-v2, inferred\)/);
      expect(text).toMatch(/- scrambled \[invalid\]: .* — the manifest names no model/);
    } finally {
      await client.close();
    }
  });

  it('the CLI run in the project folder sees its datasets (the working directory is the project root)', async () => {
    ensureBuilt();
    const home = engine.profileDir; // its dataset_checks remember the outcomes: the command starts no model
    const r = await runTrove(['dataset', 'list'], { home, cwd: project, env: { TROVE_MODELS_DIR: modelsDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/cherry-docs {2}\[ready\] {2}Dataset cherry-docs\n {2}FAISS IndexFlatIP, 24 vectors of 384 dims, model all-MiniLM-L6-v2 \(inferred\); top 3/);
    expect(r.stdout).toMatch(/scrambled {2}\[invalid\]/);
    // elsewhere, the project's datasets are not this command's
    const away = await runTrove(['dataset', 'list'], { home, env: { TROVE_MODELS_DIR: modelsDir } });
    expect(away.stdout).not.toMatch(/cherry-docs/);
  }, 120_000);
});
