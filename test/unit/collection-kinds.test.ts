// Collection kinds (store/collections.ts): the user's folders are what every caller gets by
// default; the engine's own collections (a dataset's folder, the memory store) only when asked.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/engine/store/database.js';
import { CollectionStore } from '../../src-main/engine/store/collections.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);

describe('collection kinds', () => {
  it('lists and finds folders by default, other kinds only by request', () => {
    const db = openDatabase(path.join(tempDir(), 'index.sqlite'));
    try {
      const store = new CollectionStore(db);
      const base = { root: '/x', include: ['**/*.md'], exclude: [], context: '' };
      expect(store.insert({ ...base, name: 'notes' }).kind).toBe('folder');
      expect(store.insert({ ...base, name: '~memory', kind: 'memory' }).kind).toBe('memory');
      expect(store.insert({ ...base, name: '~dataset:docs', kind: 'dataset' }).kind).toBe('dataset');

      expect(store.list().map((c) => c.name)).toEqual(['notes']);
      expect(store.list(['folder', 'dataset']).map((c) => c.name)).toEqual(['notes', '~dataset:docs']);
      expect(store.list(['memory']).map((c) => c.name)).toEqual(['~memory']);

      expect(store.get('notes')?.kind).toBe('folder');
      expect(store.get('~memory')).toBeUndefined();
      expect(store.get('~memory', ['memory'])?.kind).toBe('memory');
      expect(store.nameTaken('~memory')).toBe(true);
      expect(store.nameTaken('other')).toBe(false);
      expect(store.byId(store.get('~memory', ['memory'])!.id)?.name).toBe('~memory');
    } finally {
      db.close();
    }
  });
});
