// The CLI faces of embeddings, through the compiled `trove` bin, on the profile's SQLite file and
// on PostgreSQL (the global --database): indexing leaves vectors alone, `trove embed` fills them,
// `trove index --embed` embeds what it indexed, `models use` with an unknown model changes nothing.
// On SQLite also the faces that only print what the engine answers: vector and rerank search (a
// file indexed alone is found by meaning at once: the search embeds a few waiting chunks itself),
// `models list`, `models use auto`. (Switching models re-embeds, and vector search says why it is
// off: engine-vectors.test.ts, on both backends.)
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

  it('collection add indexes without embedding; trove embed fills the vectors; index --embed embeds what it indexed', async () => {
    expect((await trove('collection', 'add', docs, '--name', 'docs')).code).toBe(0);
    expect(await json('status')).toMatchObject({ needsEmbedding: 2, hasVectorIndex: false });
    const embedded = await json<{ collections: CollectionEmbeddingStatus[] }>('embed');
    expect(embedded.collections).toEqual([expect.objectContaining({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 2, needsEmbedding: 0 })]);
    fs.writeFileSync(path.join(docs, 'c.md'), '# Tides\n\nThe moon pulls the oceans into tides twice a day.\n');
    const both = await json<{ reports: { collection: string }[]; embeddings: CollectionEmbeddingStatus[] }>('index', '--embed');
    expect(both.reports.map((r) => r.collection)).toEqual(['docs']);
    expect(both.embeddings).toEqual([expect.objectContaining({ collection: 'docs', vectors: 3, needsEmbedding: 0 })]);
  });

  it('models use: an unknown model is refused and changes nothing', async () => {
    const unknown = await trove('models', 'use', 'no-such-model', '--collection', 'docs');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no-such-model');
    const status = await json<{ embeddings: { collections: (CollectionEmbeddingStatus & { problem: string | null })[] } }>('status');
    expect(status.embeddings.collections).toEqual([expect.objectContaining({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 3, needsEmbedding: 0, switchingTo: null, problem: null })]);
  });

  // the faces alone over the same index: one backend (their engine calls run on both in engine-vectors.test.ts)
  if (b.name === 'sqlite') {
    it('vector and rerank search, a file indexed alone found by meaning at once, models list, models use auto', async () => {
      const v = await json<{ results: { path: string; pendingEmbedding: boolean }[] }>('search', 'configure retry policies', '--mode', 'vector');
      expect(v.results[0]).toMatchObject({ path: 'a.md', pendingEmbedding: false });
      const r = await json<{ results: { explain: object }[] }>('search', 'retries', '--mode', 'rerank', '--explain');
      expect(r.results[0]!.explain).toHaveProperty('rerank');
      fs.writeFileSync(path.join(docs, 'd.md'), '# Ferns\n\nFerns spread by spores rather than seeds.\n');
      expect((await json<{ embeddings?: unknown }>('index')).embeddings).toBeUndefined(); // keyword only
      const ferns = await json<{ results: { path: string; pendingEmbedding: boolean }[] }>('search', 'plants that grow without seeds', '--mode', 'vector');
      expect(ferns.results[0]).toMatchObject({ path: 'd.md', pendingEmbedding: false }); // embedded by the search itself: it was one chunk
      const list = await json<{ models: { id: string; state: string }[] }>('models', 'list');
      expect(list.models.find((m) => m.id === 'all-MiniLM-L6-v2')).toMatchObject({ state: 'ready' });
      expect(list.models.find((m) => m.id === 'bge-small-en-v1.5')).toMatchObject({ state: 'missing' });
      const auto = await json<{ collections: CollectionEmbeddingStatus[] }>('models', 'use', 'auto', '--collection', 'docs');
      expect(auto.collections).toEqual([expect.objectContaining({ collection: 'docs', model: 'all-MiniLM-L6-v2', vectors: 4, needsEmbedding: 0, switchingTo: null })]);
    });
  }
});
