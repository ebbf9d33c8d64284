// The CLI faces of embeddings, through the compiled `trove` bin, on the profile's SQLite file and
// on PostgreSQL (the global --database): `trove embed` fills the vectors, vector and rerank search
// use them, indexing leaves new files' vectors alone (a vector search embeds a few waiting chunks
// by itself), `trove index --embed` embeds what it indexed, `models` and `status` say so; `models
// use` with an unknown model changes nothing, and "auto" goes back to the choice by language.
// (Switching models re-embeds, and vector search says why it is off: engine-vectors.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { CollectionEmbeddingStatus } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { ensureBuilt, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

describeBackends('trove search --mode, trove embed, trove models', (b) => {
  let home: string;
  let docs: string;
  let database: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    home = tempDir('trove-cli-home-');
    docs = tempDir('trove-cli-docs-');
    writeTree(docs, {
      'a.md': '# Resilience settings\n\nThe client retries failed requests three times.\n',
      'b.md': '# Bread\n\nKnead the dough for ten minutes.\n',
    });
    if (b.name === 'postgres') database = ['--database', await freshDatabase('cli_embed', { migrated: true })];
  }, 240_000); // ensureBuilt compiles dist/ when src-main changed

  async function trove(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return runTrove([...args, ...database], { home, env: { TROVE_MODELS_DIR: modelsDir, TROVE_RERANK_MODEL: 'test-tiny-cross-encoder' } });
  }
  async function json<T>(...args: string[]): Promise<T> {
    const r = await trove(...args, '--json');
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout) as T;
  }

  it('works end to end', async () => {
    expect((await trove('collection', 'add', docs, '--name', 'docs')).code).toBe(0);
    expect(await json('status')).toMatchObject({ needsEmbedding: 2, hasVectorIndex: false });
    const embedded = await json<{ collections: CollectionEmbeddingStatus[] }>('embed');
    expect(embedded.collections[0]).toMatchObject({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 2, needsEmbedding: 0 });

    const v = await json<{ results: { path: string; pendingEmbedding: boolean }[] }>('search', 'configure retry policies', '--mode', 'vector');
    expect(v.results[0]).toMatchObject({ path: 'a.md', pendingEmbedding: false });
    const r = await json<{ results: { explain: object }[] }>('search', 'retries', '--mode', 'rerank', '--explain');
    expect(r.results[0]!.explain).toHaveProperty('rerank');

    // a new file: `trove index` keeps it keyword-only, `--embed` embeds it
    fs.writeFileSync(path.join(docs, 'c.md'), '# Tides\n\nThe moon pulls the oceans into tides twice a day.\n');
    const indexed = await json<{ reports: unknown[]; embeddings?: unknown }>('index');
    expect(indexed.embeddings).toBeUndefined();
    expect(await json('status')).toMatchObject({ needsEmbedding: 1, hasVectorIndex: true });
    const tides = await json<{ results: { path: string; pendingEmbedding: boolean }[] }>('search', 'what pulls the sea up the beach', '--mode', 'vector');
    expect(tides.results[0]).toMatchObject({ path: 'c.md', pendingEmbedding: false }); // embedded by the search itself: it was one chunk
    fs.writeFileSync(path.join(docs, 'd.md'), '# Ferns\n\nFerns spread by spores rather than seeds.\n');
    const both = await json<{ embeddings: CollectionEmbeddingStatus[] }>('index', '--embed');
    expect(both.embeddings).toEqual([expect.objectContaining({ collection: 'docs', vectors: 4, needsEmbedding: 0 })]);

    const list = await json<{ models: { id: string; state: string }[] }>('models', 'list');
    expect(list.models.find((m) => m.id === 'all-MiniLM-L6-v2')).toMatchObject({ state: 'ready' });
    expect(list.models.find((m) => m.id === 'bge-small-en-v1.5')).toMatchObject({ state: 'missing' });
  });

  it('models use: an unknown model changes nothing; "auto" chooses by language again', async () => {
    const unknown = await trove('models', 'use', 'no-such-model', '--collection', 'docs');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no-such-model');
    const status = await json<{ embeddings: { collections: (CollectionEmbeddingStatus & { problem: string | null })[] } }>('status');
    expect(status.embeddings.collections).toEqual([expect.objectContaining({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 4, switchingTo: null, problem: null })]);
    const auto = await json<{ collections: CollectionEmbeddingStatus[] }>('models', 'use', 'auto', '--collection', 'docs');
    expect(auto.collections).toEqual([expect.objectContaining({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 4, needsEmbedding: 0, switchingTo: null })]);
  });
});
