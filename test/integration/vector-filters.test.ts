// Filtered vector search over a space larger than one kNN round can fetch (sqlite-vec's k caps at
// 4096): a filter that keeps much of the space is answered from the nearest k, filtered; one that
// keeps only a few far-away documents still finds them (the exact scan over what the filter keeps).
// Real SQLite + sqlite-vec, synthetic unit vectors (no model needed).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Anchors } from '../../src-main/engine/search/anchors.js';
import { VectorSearch } from '../../src-main/engine/search/vector.js';
import { ChunkStore } from '../../src-main/engine/store/chunks.js';
import { CollectionStore } from '../../src-main/engine/store/collections.js';
import { openDatabase, type Db } from '../../src-main/engine/store/database.js';
import { DocumentStore } from '../../src-main/engine/store/documents.js';
import { VectorStore, type VectorSpace } from '../../src-main/engine/store/vectors.js';
import { registerFilterFunctions } from '../../src-main/engine/store/filters.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const DIMS = 8;
const N = 5000;
let db: Db;
let search: VectorSearch;
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
  db = openDatabase(path.join(tempDir('trove-vf-'), 'index.sqlite'));
  registerFilterFunctions(db);
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
  search = new VectorSearch(db, vectors, new Anchors(db));
});

afterAll(() => {
  db.close();
  removeTempDirs();
});

const find = (pathGlob: string | undefined, top = 5) =>
  search.search(
    { query: 'q', syntax: 'match', top, minScore: 0, snippetChars: 50, snippets: false, explain: false, filters: { pathGlob }, generation: 0 },
    [{ space, collectionIds: [collectionId], vector: at(0) }],
  );

describe('filtered vector search on a large space', () => {
  it('a filter that keeps most documents answers with the nearest of them, in order', () => {
    const r = find('near/*.md');
    expect(r.hits.map((h) => h.path)).toEqual(['near/0.md', 'near/1.md', 'near/2.md', 'near/3.md', 'near/4.md']);
  });

  it('a filter that keeps only documents beyond the nearest 4096 still finds every one of them', () => {
    const r = find('far/*.md');
    expect(r.hits.map((h) => h.path).sort()).toEqual([`far/${N - 3}.md`, `far/${N - 2}.md`, `far/${N - 1}.md`]);
    expect(r.exhausted).toBe(true);
  });

  it('without a filter: the nearest documents', () => {
    expect(find(undefined, 3).hits.map((h) => h.path)).toEqual(['near/0.md', 'near/1.md', 'near/2.md']);
  });
});
