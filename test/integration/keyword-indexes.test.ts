// One keyword index per collection kind (store/keyword-index.ts): a dataset's or the memory
// store's documents are written to and searched in their own FTS5 table, never in the folders'
// index, so their words neither turn up in document search nor move its term statistics.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { KeywordSearch } from '../../src-main/engine/search/keyword-search.js';
import { PageAnchors } from '../../src-main/engine/search/page-anchors.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import { ChunkStore } from '../../src-main/engine/store/chunks.js';
import { CollectionStore, type CollectionKind } from '../../src-main/engine/store/collections.js';
import type { Db } from '../../src-main/engine/store/database.js';
import { DocumentStore } from '../../src-main/engine/store/documents.js';
import { keywordIndexOf } from '../../src-main/engine/store/keyword-index.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);

function addDocument(db: Db, folderChunks: ChunkStore, collectionId: number, kind: CollectionKind, file: string, text: string): void {
  const prepared = prepareDocument(Buffer.from(text), file, DEFAULT_CHUNKING);
  if (!prepared.ok) throw new Error(prepared.reason);
  const documents = new DocumentStore(db);
  const chunks = folderChunks.forIndex(keywordIndexOf(kind));
  db.transaction(() => {
    const id = documents.upsert({
      collectionId, path: file, docid: `${kind}${file.length}${collectionId}`, title: prepared.title, kind: prepared.kind,
      size: text.length, mtimeMs: 1, hash: null, status: 'indexed', error: null, tags: [], metadata: {},
    }, 1);
    documents.putContent(id, prepared.text);
    chunks.indexText(chunks.replaceFor(id, prepared.chunks, true));
  })();
}

let generation = 0;
const search = async (keyword: KeywordSearch, query: string) =>
  (await keyword.search({ query, syntax: 'match', limit: 10, offset: 0, snippetChars: 200, explain: false, filters: {} }, generation)).hits.map((h) => h.path);

describe('keyword indexes per collection kind', () => {
  it('writes, finds and deletes each kind in its own index', async () => {
    const storage = SqliteStorage.open(path.join(tempDir(), 'index.sqlite'));
    const db = storage.db;
    try {
      const collections = new CollectionStore(db);
      const folderChunks = new ChunkStore(db);
      const base = { root: '/x', include: [], exclude: [], context: '' };
      const notes = collections.insert({ ...base, name: 'notes' });
      const memory = collections.insert({ ...base, name: '~memory', kind: 'memory' });
      const dataset = collections.insert({ ...base, name: '~dataset:papers', kind: 'dataset' });
      addDocument(db, folderChunks, notes.id, 'folder', 'kettle.md', '# Kettle\n\nDescale the kettle with vinegar every month.');
      addDocument(db, folderChunks, memory.id, 'memory', 'm/1', 'The user prefers vinegar over citric acid for descaling.');
      addDocument(db, folderChunks, dataset.id, 'dataset', 'paper.md', '# Scale\n\nLimescale forms where hard water is boiled; vinegar dissolves it.');

      const anchors = new PageAnchors(storage);
      const folders = new KeywordSearch(storage, anchors);
      const memories = new KeywordSearch(storage, anchors, 'memory_fts');
      const datasets = new KeywordSearch(storage, anchors, 'dataset_fts');
      expect(await search(folders, 'vinegar')).toEqual(['kettle.md']);
      expect(await search(memories, 'vinegar')).toEqual(['m/1']);
      expect(await search(datasets, 'vinegar')).toEqual(['paper.md']);
      expect(await search(folders, 'limescale citric')).toEqual([]); // words only the other kinds have

      // deleting goes to the document's own index: the memory entry is gone from memory search only
      db.transaction(() => folderChunks.forIndex('memory_fts').deleteFor(new DocumentStore(db).byPath(memory.id, 'm/1')!.id))();
      generation++;
      expect(await search(memories, 'vinegar')).toEqual([]);
      expect(await search(folders, 'vinegar')).toEqual(['kettle.md']);
      expect(await search(datasets, 'vinegar')).toEqual(['paper.md']);
      expect(folderChunks.forIndex('memory_fts')).toBe(folderChunks.forIndex('memory_fts'));
      expect(folderChunks.forIndex('chunks_fts')).toBe(folderChunks);
    } finally {
      await storage.close();
    }
  });
});
