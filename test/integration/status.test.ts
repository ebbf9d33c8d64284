// The status report as a caller sees it, on SQLite and on PostgreSQL: everything for a full-access
// caller (collections with their counts, indexing, embeddings, datasets, the memory summary), and
// for a caller scoped to some collections only theirs — totals, indexing and embeddings included —
// with no datasets and no memory unless granted. (Counts per collection, skipped files and their
// reasons: collections.test.ts.)
import { beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

describeBackends('status', (b) => {
  let engine: Engine;

  beforeAll(async () => {
    ({ engine } = await b.indexedFolder({ 'one.md': '# One\n\nfirst note', 'two.md': '# Two\n\nsecond note' }, 'a'));
    const other = tempDir('trove-root-');
    writeTree(other, { 'three.txt': 'third note', 'four.html': '<h1>Four</h1><p>fourth note</p>' });
    await engine.addCollection({ root: other, name: 'b' });
    await engine.index({ collection: 'b' });
    await engine.memory.storeBatch([
      { threadId: 't1', source: 'user', text: 'A remembered note.' },
      { threadId: 't2', source: 'agent', text: 'Another remembered note.' },
    ]);
  });

  it('shows a full-access caller everything, memory and datasets included', async () => {
    const s = await engine.status();
    expect(s.database).toEqual({ path: engine.location, bytes: expect.any(Number) });
    expect(s.database.bytes).toBeGreaterThan(0);
    expect(s.totals).toEqual({ collections: 2, documents: 4, chunks: 4, skipped: 0, failed: 0, kinds: { markdown: 2, text: 1, html: 1 } });
    expect(s.collections.map((c) => [c.name, c.documents, c.kinds])).toEqual([
      ['a', 2, { markdown: 2 }],
      ['b', 2, { text: 1, html: 1 }],
    ]);
    expect(s.indexing.collections.map((c) => c.collection)).toEqual(['a', 'b']);
    expect(s.embeddings.collections.map((c) => c.collection)).toEqual(['a', 'b']);
    expect(s.needsEmbedding).toBe(4); // memory's chunks are memory's: its summary counts them
    expect(s.memory).toEqual({ entries: 2, threads: 2, needsEmbedding: 2 });
    expect(s.datasets).toEqual([]);
  });

  it('shows a caller scoped to some collections only theirs, with no memory unless granted', async () => {
    const s = await engine.status({ collections: ['B'] });
    expect(s.totals).toEqual({ collections: 1, documents: 2, chunks: 2, skipped: 0, failed: 0, kinds: { text: 1, html: 1 } });
    expect(s.collections.map((c) => c.name)).toEqual(['b']);
    expect(s.indexing.collections.map((c) => c.collection)).toEqual(['b']);
    expect(s.embeddings.collections.map((c) => c.collection)).toEqual(['b']);
    expect(s.needsEmbedding).toBe(2);
    expect(s).not.toHaveProperty('memory');
    expect(s.datasets).toEqual([]);
    expect((await engine.status({ collections: ['b'], memory: true })).memory).toEqual({ entries: 2, threads: 2, needsEmbedding: 2 });
    expect((await engine.status({ collections: [] })).totals).toMatchObject({ collections: 0, documents: 0 });
  });
});
