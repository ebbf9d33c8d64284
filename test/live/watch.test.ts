// Real files, real chokidar events: what a person does in a folder shows up in search by itself.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { FAST, found, settled, sleep, waitFor, watchedFolder, type LiveFolder } from './live-helpers.js';

describeBackends('live folders', (b) => {
  let current: LiveFolder | null = null;
  afterEach(async () => {
    await current?.engine.stopWatching();
    current = null;
  });

  async function folder(files: Record<string, string>, opts: Parameters<typeof watchedFolder>[3] = {}): Promise<LiveFolder> {
    current = await watchedFolder(b, files, 'notes', opts);
    return current;
  }

  const docid = async (f: LiveFolder, rel: string) => (await f.engine.get(`notes/${rel}`)).docid;

  describe('files', () => {
    test('a created file becomes searchable, an edit replaces its text, a delete removes it', async () => {
      const f = await folder({ 'keep.md': 'nothing to see' });
      f.write('fresh.md', '# Fresh\n\nthe quokka smiles');
      await waitFor('created file searchable', async () => (await found(f.engine, 'quokka')).includes('fresh.md'));
      const id = await docid(f, 'fresh.md');

      f.write('fresh.md', '# Fresh\n\nthe wombat digs');
      await waitFor('edit visible', async () => (await found(f.engine, 'wombat')).includes('fresh.md'));
      expect(await found(f.engine, 'quokka')).toEqual([]);
      expect(await docid(f, 'fresh.md')).toBe(id);

      f.remove('fresh.md');
      await waitFor('deleted file gone', async () => (await found(f.engine, 'wombat')).length === 0);
      await expect(f.engine.get('notes/fresh.md')).rejects.toThrow(/fresh\.md/);
      expect(await found(f.engine, 'nothing')).toEqual(['keep.md']);
    });

    test('a renamed file keeps its docid', async () => {
      const f = await folder({ 'old-name.md': '# Platypus\n\nthe platypus lays eggs' });
      const id = await docid(f, 'old-name.md');
      fs.renameSync(f.abs('old-name.md'), f.abs('new-name.md'));
      await waitFor('rename visible', async () => (await found(f.engine, 'platypus')).join() === 'new-name.md');
      expect(await docid(f, 'new-name.md')).toBe(id);
    });

    test('an atomic save (temp write + rename over the file) is one change and the document never disappears', async () => {
      const f = await folder({ 'note.md': '# Note\n\nfirst draft about herons' });
      const id = await docid(f, 'note.md');
      const seen: string[] = [];
      let polling = true;
      // watch the document the whole time: it must never be missing from the index
      const poller = (async () => {
        while (polling) {
          try {
            await f.engine.get('notes/note.md');
          } catch (err) {
            seen.push((err as Error).message);
          }
          await sleep(5);
        }
      })();
      for (let i = 0; i < 3; i++) {
        const tmp = f.abs(`.note.md.${i}.tmp`);
        fs.writeFileSync(tmp, `# Note\n\nrevision ${i} about egrets`);
        fs.renameSync(tmp, f.abs('note.md'));
        await sleep(30);
      }
      await waitFor('last save visible', async () => (await f.engine.search({ query: 'revision 2 about egrets', syntax: 'phrase' })).results.length === 1);
      polling = false;
      await poller;
      expect(seen).toEqual([]);
      expect(await docid(f, 'note.md')).toBe(id);
      expect((await f.engine.status()).totals.documents).toBe(1); // no temp file was indexed
      expect(await found(f.engine, 'herons')).toEqual([]);
    });

    test('a vim-style save (move the old file away, write a new one, delete the backup) keeps the docid', async () => {
      const f = await folder({ 'vim.md': 'before the kingfisher' });
      const id = await docid(f, 'vim.md');
      fs.renameSync(f.abs('vim.md'), f.abs('vim.md~'));
      fs.writeFileSync(f.abs('vim.md'), 'after the kingfisher dived');
      fs.rmSync(f.abs('vim.md~'));
      await waitFor('save visible', async () => (await found(f.engine, 'dived')).includes('vim.md'));
      expect(await docid(f, 'vim.md')).toBe(id);
    });

    test('rules still apply: excluded kinds, tooling folders, .gitignore (and a changed .gitignore)', async () => {
      const f = await folder({ '.gitignore': 'private/\n', 'a.md': 'alpha' });
      f.write('picture.bin', 'capybara bytes');
      f.write('node_modules/pkg/readme.md', 'capybara in node_modules');
      f.write('private/diary.md', 'capybara secrets');
      f.write('.env', 'CAPYBARA=1');
      f.write('public/notes.md', 'capybara in public');
      // the public file was written last: once it is in and the queue has drained, the others had their turn
      await waitFor('public file indexed', async () => (await found(f.engine, 'capybara')).includes('public/notes.md'));
      await waitFor('queue drained', async () => !f.engine.busy() && (await settled(f.engine)));
      expect(await found(f.engine, 'capybara')).toEqual(['public/notes.md']);

      f.write('.gitignore', '# nothing ignored now\n');
      await waitFor('un-ignored folder indexed after the .gitignore changed', async () => (await found(f.engine, 'capybara')).includes('private/diary.md'));
      // and the folder is watched from now on (no reconcile runs in this test: its interval is 10 min)
      f.write('private/later.md', 'capybara written later');
      await waitFor('a new file in the un-ignored folder is seen by the watcher', async () => (await found(f.engine, 'capybara')).includes('private/later.md'));
      f.write('.gitignore', 'public/\n');
      await waitFor('newly ignored folder leaves the index', async () => !(await found(f.engine, 'capybara')).includes('public/notes.md'));
    });
  });

  describe('folders', () => {
    test('a new folder, a renamed folder (docids kept) and a removed folder', async () => {
      // a renamed folder's files keep their docids when the new paths are seen within the grace
      // that gone files wait (the new folder is found by its watch, then read): under a full test
      // run on two cores that took longer than FAST's 150 ms, and once on PostgreSQL longer than
      // 1 s, so this folder waits longer than a host does (the removal below waits it out too)
      const f = await folder({ 'top.md': 'top level' }, { indexing: { ...FAST, live: { ...FAST!.live!, goneGraceMs: 4_000 } } });
      writeTree(f.root, { 'guide/one.md': '# One\n\nlemur one', 'guide/deep/two.md': '# Two\n\nlemur two' });
      await waitFor('new folder indexed', async () => (await found(f.engine, 'lemur')).length === 2);
      const ids = [await docid(f, 'guide/one.md'), await docid(f, 'guide/deep/two.md')];

      fs.renameSync(f.abs('guide'), f.abs('manual'));
      await waitFor('renamed folder indexed', async () => (await found(f.engine, 'lemur')).join() === 'manual/deep/two.md,manual/one.md');
      expect([await docid(f, 'manual/one.md'), await docid(f, 'manual/deep/two.md')]).toEqual(ids);

      fs.rmSync(f.abs('manual'), { recursive: true });
      await waitFor('removed folder leaves the index', async () => (await found(f.engine, 'lemur')).length === 0);
      expect((await f.engine.status()).totals.documents).toBe(1);
    });

    test('a removed folder\'s files wait out the grace (a rename\'s other half may come); an explicit run drains them at once', async () => {
      // the removal asks for a rescan, which finds the files missing: they wait as a watcher's own
      // "gone" does, so a renamed folder's new half, read by another batch, still finds their rows
      const f = await folder({ 'top.md': 'top level', 'old/a.md': '# A\n\nokapi a' }, { indexing: { ...FAST, live: { ...FAST!.live!, goneGraceMs: 60_000 } } });
      f.remove('old');
      f.write('marker.md', 'zebra marker'); // seen after the removal: once it is in, the rescan has run
      await waitFor('marker indexed', async () => (await found(f.engine, 'zebra')).length === 1);
      expect(await found(f.engine, 'okapi')).toEqual(['old/a.md']);
      await f.engine.index();
      expect(await found(f.engine, 'okapi')).toEqual([]);
    });
  });

  describe('freshness on search results', () => {
    test('indexed_at and modified are set; stale when the file changed after indexing; pendingEmbedding from the probe', async () => {
      const root = tempDir('trove-fresh-');
      writeTree(root, { 'a.md': 'the narwhal tusk', 'b.md': 'another narwhal' });
      const engine = await b.open({ indexing: FAST });
      await engine.addCollection({ root, name: 'notes' });
      const before = Date.now();
      await engine.index();
      const hits = (await engine.search({ query: 'narwhal' })).results;
      expect(hits).toHaveLength(2);
      for (const h of hits) {
        expect(Date.parse(h.indexed_at!)).toBeGreaterThanOrEqual(before - 1000);
        expect(h.modified).toBe(new Date(Math.trunc(fs.statSync(path.join(root, h.path)).mtimeMs)).toISOString());
        expect(h.stale).toBe(false);
        expect(typeof h.pendingEmbedding).toBe('boolean');
      }
      // not watching: the edit is not indexed, but search says the result is stale
      fs.writeFileSync(path.join(root, 'a.md'), 'the narwhal tusk, now longer');
      const after = (await engine.search({ query: 'narwhal' })).results;
      expect(after.find((h) => h.path === 'a.md')!.stale).toBe(true);
      expect(after.find((h) => h.path === 'b.md')!.stale).toBe(false);

      const aId = after.find((h) => h.path === 'a.md')!;
      // no embedding has started for this collection: nothing is said to wait (test/embed/engine-vectors.test.ts covers true)
      expect(after.map((h) => h.pendingEmbedding)).toEqual([false, false]);

      await engine.index();
      const fresh = (await engine.search({ query: 'narwhal' })).results;
      expect(fresh.every((h) => h.stale === false)).toBe(true);
      // a caller that does not show freshness can skip its cost: the fields are left out
      const bare = (await engine.search({ query: 'narwhal', freshness: false })).results;
      expect(bare.map((h) => h.path).sort()).toEqual(['a.md', 'b.md']);
      for (const h of bare) expect(['indexed_at', 'stale', 'pendingEmbedding'].filter((k) => k in h)).toEqual([]);
      expect(Date.parse(fresh.find((h) => h.path === 'a.md')!.indexed_at!)).toBeGreaterThanOrEqual(Date.parse(aId.indexed_at!));
    });
  });

  describe('polling fallback', () => {
    test('with polling configured, changes are still picked up', async () => {
      const root = tempDir('trove-poll-');
      writeTree(root, { 'a.md': 'start' });
      const engine = await b.open({ indexing: { ...FAST, live: { ...FAST!.live, usePolling: true, pollIntervalMs: 100 } } });
      await engine.addCollection({ root, name: 'polled' });
      await engine.startWatching();
      try {
        expect((await engine.status()).indexing.watchers).toEqual([{ collection: 'polled', polling: true }]);
        await waitFor('start-up reconcile indexed the existing file', async () => (await found(engine, 'start')).length === 1);
        writeTree(root, { 'b.md': 'the okapi' });
        await waitFor('polled change indexed', async () => (await found(engine, 'okapi')).includes('b.md'));
        fs.rmSync(path.join(root, 'a.md'));
        await waitFor('polled delete applied', async () => (await found(engine, 'start')).length === 0);
      } finally {
        await engine.stopWatching();
      }
    });
  });
});
