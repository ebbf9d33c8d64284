// Filtered vector search over a space larger than one kNN round can fetch (sqlite-vec's k caps at
// 4096): a filter that keeps much of the space is answered from the nearest k, filtered; one that
// keeps only a few far-away documents still finds them (the exact scan over what the filter keeps).
// Real SQLite + sqlite-vec, synthetic unit vectors (no model needed).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nearestDocuments } from '../../src-main/engine/search/vector.js';
import { ChunkStore } from '../../src-main/engine/store/chunks.js';
import { CollectionStore } from '../../src-main/engine/store/collections.js';
import type { Db } from '../../src-main/engine/store/database.js';
import { DocumentStore } from '../../src-main/engine/store/documents.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import { VectorStore, type VectorSpace } from '../../src-main/engine/store/vectors.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const DIMS = 8;
const N = 5000;
let storage: SqliteStorage;
let db: Db;
let space: VectorSpace;
let collectionId: number;

/** A unit vector at angle `a` in the first plane, so cosine to the query (angle 0) is cos(a). */
const at = (a: number): Float32Array => {
  const v = new Float32Array(DIMS);
  v[0] = Math.cos(a);
  v[1] = Math.sin(a);
  return v;
};

beforeAll(() => {
  storage = SqliteStorage.open(path.join(tempDir('trove-vf-'), 'index.sqlite'));
  db = storage.db;
  const collections = new CollectionStore(db);
  const documents = new DocumentStore(db);
  const chunks = new ChunkStore(db);
  const vectors = new VectorStore(db);
  collectionId = collections.insert({ name: 'many', root: tempDir('trove-vf-root-'), include: ['**/*'], exclude: [], context: '' }).id;
  space = vectors.ensureSpace('synthetic', 'digest', DIMS);
  const rows: { chunkId: number; vector: Float32Array }[] = [];
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      // "near/…" documents sit close to the query; the three "far/…" ones lie far from it
      const far = i >= N - 3;
      const file = far ? `far/${i}.md` : `near/${i}.md`;
      const documentId = documents.insertNew({ collectionId, path: file, docid: i.toString(16).padStart(6, '0'), title: file, kind: 'markdown', size: 10, mtimeMs: 1, tags: '[]', metadata: '{}' });
      documents.putContent(documentId, `text ${i}`);
      chunks.replaceFor(documentId, [{ ordinal: 0, charStart: 0, charEnd: 6, lineStart: 1, lineEnd: 1, headingPath: [], tokens: 2, ftsTitle: '', ftsHeadings: '', ftsBody: `text ${i}` }], true);
      rows.push({ chunkId: chunks.forDocument(documentId)[0]!.id, vector: at(far ? 1.2 + i / N / 10 : (i / N) * 0.5) });
    }
  })();
  vectors.insert(space.id, collectionId, rows);
});

afterAll(async () => {
  await storage.close();
  removeTempDirs();
});

/** The nearest documents' paths under the filter, through the storage's kNN as every search uses it. */
const find = async (pathGlob: string | undefined, top = 5) => {
  const r = await nearestDocuments(storage, [{ space, collectionIds: [collectionId], vector: at(0) }], top, 0, { pathGlob });
  const docs = await storage.documents.forHits(r.documents.map((d) => d.documentId));
  return { hits: r.documents.map((d) => ({ path: docs.get(d.documentId)!.path })), exhausted: r.exhausted };
};

describe('filtered vector search on a large space', () => {
  it('a filter that keeps most documents answers with the nearest of them, in order', async () => {
    const r = await find('near/*.md');
    expect(r.hits.map((h) => h.path)).toEqual(['near/0.md', 'near/1.md', 'near/2.md', 'near/3.md', 'near/4.md']);
  });

  it('a filter that keeps only documents beyond the nearest 4096 still finds every one of them', async () => {
    const r = await find('far/*.md');
    expect(r.hits.map((h) => h.path).sort()).toEqual([`far/${N - 3}.md`, `far/${N - 2}.md`, `far/${N - 1}.md`]);
    expect(r.exhausted).toBe(true);
  });

  it('without a filter: the nearest documents', async () => {
    expect((await find(undefined, 3)).hits.map((h) => h.path)).toEqual(['near/0.md', 'near/1.md', 'near/2.md']);
  });
});
