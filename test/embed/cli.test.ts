// The CLI faces of embeddings, through the compiled `trove` bin (run `npx tsc -p tsconfig.node.json` first):
// vector search says why it is off, `trove embed` fills the vectors, then vector/rerank search and `models` work.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../bin/trove.js');
const home = tempDir('trove-cli-home-');
const docs = tempDir('trove-cli-docs-');
writeTree(docs, {
  'a.md': '# Resilience settings\n\nThe client retries failed requests three times.\n',
  'b.md': '# Bread\n\nKnead the dough for ten minutes.\n',
});
const env = { ...process.env, TROVE_HOME: home, TROVE_MODELS_DIR: modelsDir, TROVE_RERANK_MODEL: 'test-tiny-cross-encoder' };

async function trove(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [bin, ...args], { env });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

afterAll(() => removeTempDirs());

describe('trove search --mode, trove embed, trove models', () => {
  it('works end to end', async () => {
    expect((await trove('collection', 'add', docs, '--name', 'docs')).code).toBe(0);
    const off = await trove('search', 'configure retry policies', '--mode', 'vector');
    expect(off.code).not.toBe(0);
    expect(off.stderr).toMatch(/vector search is off: no vectors yet for docs.*trove embed/);

    const embedded = await trove('embed', '--json');
    expect(embedded.code).toBe(0);
    expect(JSON.parse(embedded.stdout).collections[0]).toMatchObject({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 2, needsEmbedding: 0 });

    const v = JSON.parse((await trove('search', 'configure retry policies', '--mode', 'vector', '--json')).stdout);
    expect(v.results[0]).toMatchObject({ path: 'a.md', pendingEmbedding: false });
    const r = JSON.parse((await trove('search', 'retries', '--mode', 'rerank', '--explain', '--json')).stdout);
    expect(r.results[0].explain).toHaveProperty('rerank');

    const list = JSON.parse((await trove('models', 'list', '--json')).stdout);
    expect(list.models.find((m: { id: string }) => m.id === 'all-MiniLM-L6-v2')).toMatchObject({ state: 'ready' });
    expect(list.models.find((m: { id: string }) => m.id === 'bge-small-en-v1.5')).toMatchObject({ state: 'missing' });
    const status = JSON.parse((await trove('status', '--json')).stdout);
    expect(status).toMatchObject({ needsEmbedding: 0, hasVectorIndex: true });
  });
});
