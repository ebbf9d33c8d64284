// A search whose ranked chunk leaves the index before its page is read — a batch landed in
// between, as it can on PostgreSQL, whose reads are not one snapshot (a watched folder's searches
// failed with CONFLICT there) — ranks again on the index as it is now, with the texts read again;
// only an index that changes under every try fails the search. The write is a real index run
// landing between the ranking and the reading of the page.
//
// PostgreSQL only: on SQLite the reads of one search straddle a write only with reader threads
// (store/sqlite/reader-pool.ts; test/integration/reader-pool.test.ts searches while batches land),
// and its rowids are reused, so a forced straddle there would be no real case.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeywordSearch, PAGE_ATTEMPTS } from '../../src-main/engine/search/keyword-search.js';
import { PageAnchors } from '../../src-main/engine/search/page-anchors.js';
import type { KeywordIndex } from '../../src-main/engine/store/keyword-index.js';
import type { KeywordIndexRepository, Storage } from '../../src-main/engine/store/storage.js';
import { Engine } from '../../src-main/engine/index.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

/** The storage with `afterRank` run after each ranking of candidates, before the page is read. */
function racing(storage: Storage, afterRank: () => Promise<void>): Storage {
  return Object.assign(Object.create(storage) as Storage, {
    keyword(index: KeywordIndex): KeywordIndexRepository {
      const repo = storage.keyword(index);
      return Object.assign(Object.create(repo) as KeywordIndexRepository, {
        candidates: async (...args: Parameters<KeywordIndexRepository['candidates']>) => {
          const found = await repo.candidates(...args);
          await afterRank();
          return found;
        },
      });
    },
  });
}

const request = { query: 'heron', syntax: 'match' as const, limit: 10, offset: 0, snippetChars: 200, explain: false, filters: {} };

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  while (opened.length) await opened.pop()!.close();
  removeTempDirs();
});

/** A folder indexed into a database of its own, and a storage of its own on that database (the searching host). */
async function indexed(files: Record<string, string>): Promise<{ engine: Engine; root: string; storage: Storage }> {
  const database = await freshDatabase('race', { migrated: true });
  const root = tempDir('trove-root-');
  writeTree(root, files);
  const engine = await Engine.open({ profileDir: tempDir('trove-profile-'), database });
  opened.push(engine);
  await engine.addCollection({ root, name: 'notes' });
  await engine.index();
  const storage = await PostgresStorage.open(database);
  opened.push(storage);
  return { engine, root, storage };
}

describe('a search racing an index write (PostgreSQL)', () => {
  /** Rewrites the note (new chunks: the ranked one is gone) and indexes it. */
  const rewrite = async (engine: Engine, root: string, n: number) => {
    fs.writeFileSync(path.join(root, 'note.md'), `# Note\n\nrevision ${n}: the heron waits${' by the pond'.repeat(n)}\n`);
    await engine.index();
  };

  it('ranks again when its page changed under it, and answers from the index as it is now', async () => {
    const { engine, root, storage: plain } = await indexed({ 'note.md': '# Note\n\nrevision 0: the heron waits\n', 'other.md': 'nothing here' });
    let writes = 0;
    let race = false;
    const storage = racing(plain, async () => {
      if (race && writes === 0) await rewrite(engine, root, ++writes);
    });
    const search = new KeywordSearch(storage, new PageAnchors(storage));
    // a first search caches the note's text (the same generation: nothing tells this reader of the write)
    expect((await search.search(request, 0)).hits.map((h) => h.snippet)).toEqual([expect.stringContaining('revision 0')]);
    race = true;
    const r = await search.search(request, 0);
    expect(writes).toBe(1);
    expect(r.hits.map((h) => [h.path, h.snippet])).toEqual([['note.md', expect.stringContaining('revision 1: the heron waits by the pond')]]);
  });

  it('fails with CONFLICT only when the index changes under every try', async () => {
    const { engine, root, storage: plain } = await indexed({ 'note.md': '# Note\n\nrevision 0: the heron waits\n' });
    let writes = 0;
    const storage = racing(plain, () => rewrite(engine, root, ++writes));
    const err = await troveErrorAsync(() => new KeywordSearch(storage, new PageAnchors(storage)).search(request, 0));
    expect(err).toMatchObject({ code: 'CONFLICT', message: 'the index changed during the search; search again' });
    expect(writes).toBe(PAGE_ATTEMPTS);
  });
});
