// Collections on a real profile: add, list, rename, remove, context note, name validation,
// missing or unreadable roots; on SQLite and on PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { redactPostgresUrl } from '../../src-main/engine/store/postgres/url.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

describeBackends('collections', (b) => {
  it('adds, lists, renames and removes a collection; removal drops index rows, never files', async () => {
    const root = tempDir();
    writeTree(root, { 'a.md': '# Alpha\n\nalpha words', 'sub/b.txt': 'beta words' });
    const engine = await b.open();
    const added = await engine.addCollection({ root, name: 'work', context: 'my work notes' });
    expect(added).toMatchObject({ name: 'work', root: fs.realpathSync(root), context: 'my work notes', documents: 0, lastIndexedAt: null });
    expect(added.include.length).toBeGreaterThan(0);
    expect(added.exclude).toContain('**/*.min.js');

    await engine.index();
    const [listed] = await engine.listCollections();
    expect(listed).toMatchObject({ name: 'work', documents: 2 });
    expect(listed!.chunks).toBeGreaterThanOrEqual(2);
    expect(listed!.lastIndexedAt).not.toBeNull();

    const renamed = await engine.renameCollection('work', 'job');
    expect(renamed.name).toBe('job');
    expect((await engine.listCollections()).map((c) => c.name)).toEqual(['job']);
    expect((await engine.search({ query: 'alpha' })).results[0]).toMatchObject({ collection: 'job', path: 'a.md' });
    expect((await engine.get('job/a.md')).text).toContain('alpha words');

    await engine.removeCollection('job');
    expect(await engine.listCollections()).toEqual([]);
    expect((await engine.status()).totals).toMatchObject({ collections: 0, documents: 0, chunks: 0 });
    expect((await engine.search({ query: 'alpha' })).results).toEqual([]);
    expect((await troveErrorAsync(() => engine.get('job/a.md'))).code).toBe('NOT_FOUND');
    expect(fs.readFileSync(path.join(root, 'a.md'), 'utf8')).toContain('alpha words');
    expect(fs.existsSync(path.join(root, 'sub/b.txt'))).toBe(true);
  });

  it('sets and clears the context note, and limits its length', async () => {
    const engine = await b.open();
    await engine.addCollection({ root: tempDir(), name: 'ctx' });
    expect((await engine.setCollectionContext('ctx', 'Meeting notes 2024')).context).toBe('Meeting notes 2024');
    expect((await engine.listCollections())[0]!.context).toBe('Meeting notes 2024');
    expect((await engine.setCollectionContext('ctx', '')).context).toBe('');
    expect((await troveErrorAsync(() => engine.setCollectionContext('ctx', 'x'.repeat(4001)))).code).toBe('INVALID_INPUT');
    expect((await troveErrorAsync(() => engine.setCollectionContext('nope', 'x'))).code).toBe('NOT_FOUND');
  });

  it('defaults the name to the folder name', async () => {
    const parent = tempDir();
    const root = path.join(parent, 'my-notes');
    fs.mkdirSync(root);
    expect((await (await b.open()).addCollection({ root })).name).toBe('my-notes');
  });

  it('validates names', async () => {
    const engine = await b.open();
    const root = tempDir();
    for (const bad of ['', ' ', '-lead', '.hidden', 'has space', 'a/b', 'x'.repeat(65), 'semi;colon', '../up']) {
      const err = await troveErrorAsync(() => engine.addCollection({ root, name: bad }));
      expect(err.code, bad).toBe('INVALID_INPUT');
      expect(err.message).toMatch(/not a valid collection name/);
    }
    for (const good of ['notes', 'Notes_2024', 'a.b-c', '笔记', 'x'.repeat(64)]) {
      expect((await engine.addCollection({ root, name: good })).name).toBe(good);
    }
    expect((await troveErrorAsync(() => engine.addCollection({ root, name: 'notes' }))).code).toBe('CONFLICT');
    expect((await troveErrorAsync(() => engine.addCollection({ root, name: 'NOTES' }))).code).toBe('CONFLICT'); // names are case-insensitive
    expect((await troveErrorAsync(() => engine.renameCollection('notes', 'bad name'))).code).toBe('INVALID_INPUT');
    expect((await troveErrorAsync(() => engine.renameCollection('notes', 'a.b-c'))).code).toBe('CONFLICT');
    expect((await troveErrorAsync(() => engine.renameCollection('missing', 'x'))).code).toBe('NOT_FOUND');
    expect((await troveErrorAsync(() => engine.removeCollection('missing'))).code).toBe('NOT_FOUND');
  });

  it('refuses bad globs', async () => {
    const engine = await b.open();
    const root = tempDir();
    expect((await troveErrorAsync(() => engine.addCollection({ root, name: 'g1', include: ['../*.md'] }))).code).toBe('INVALID_INPUT');
    expect((await troveErrorAsync(() => engine.addCollection({ root, name: 'g2', exclude: ['/abs/**'] }))).code).toBe('INVALID_INPUT');
    expect((await troveErrorAsync(() => engine.addCollection({ root, name: 'g3', include: ['  '] }))).code).toBe('INVALID_INPUT');
  });

  it('refuses a missing root, a file as root, and reports a root that vanished later', async () => {
    const engine = await b.open();
    const parent = tempDir();
    const missing = await troveErrorAsync(() => engine.addCollection({ root: path.join(parent, 'nope'), name: 'm' }));
    expect(missing.code).toBe('IO');
    expect(missing.message).toMatch(/does not exist/);
    writeTree(parent, { 'file.md': 'x' });
    const file = await troveErrorAsync(() => engine.addCollection({ root: path.join(parent, 'file.md'), name: 'f' }));
    expect(file.code).toBe('IO');
    expect(file.message).toMatch(/not a folder/);

    const root = path.join(parent, 'later-gone');
    writeTree(root, { 'a.md': 'gone soon' });
    await engine.addCollection({ root, name: 'gone' });
    fs.rmSync(root, { recursive: true });
    const err = await troveErrorAsync(() => engine.index({ collection: 'gone' }));
    expect(err.code).toBe('IO');
    expect(err.message).toMatch(/gone/);
  });

  it('a vanished root fails the index run with IO, but the other collections are still indexed', async () => {
    const engine = await b.open();
    const parent = tempDir();
    writeTree(parent, { 'a-gone/a.md': 'soon gone', 'b-ok/b.md': 'first file' });
    await engine.addCollection({ root: path.join(parent, 'a-gone'), name: 'a-gone' });
    await engine.addCollection({ root: path.join(parent, 'b-ok'), name: 'b-ok' });
    await engine.index();
    fs.rmSync(path.join(parent, 'a-gone'), { recursive: true });
    writeTree(parent, { 'b-ok/c.md': 'second file about herons' });
    const err = await troveErrorAsync(() => engine.index());
    expect(err.code).toBe('IO');
    expect(err.message).toMatch(/a-gone/);
    expect((await engine.search({ query: 'herons' })).results.map((r) => `${r.collection}/${r.path}`)).toEqual(['b-ok/c.md']);
    // and the vanished folder's documents are kept (an unplugged drive must not empty the index)
    expect((await engine.get('a-gone/a.md')).text).toBe('soon gone');
  });

  // An unreadable root is tested in test/cli/unreadable.test.ts (as user nobody when tests run as root).

  it('status counts documents, chunks, skipped and failed files per collection, with reasons', async () => {
    const engine = await b.open();
    const a = tempDir();
    writeTree(a, { 'one.md': '# One\n\nfirst', 'two.md': '# Two\n\nsecond', 'empty.md': '', 'bin.txt': Buffer.from([0, 0, 1, 2]) });
    const other = tempDir();
    writeTree(other, { 'three.txt': 'third' });
    await engine.addCollection({ root: a, name: 'a' });
    await engine.addCollection({ root: other, name: 'b' });
    const before = await engine.status();
    expect(before.totals).toEqual({ collections: 2, documents: 0, chunks: 0, skipped: 0, failed: 0, kinds: {} });
    expect(before.collections.map((c) => c.lastIndexedAt)).toEqual([null, null]);
    await engine.index();
    const s = await engine.status();
    expect(s.profileDir).toBe(engine.profileDir);
    // the profile's file, or the server's URL (its password hidden) on PostgreSQL
    expect(s.database.path).toBe(b.name === 'sqlite' ? path.join(engine.profileDir, 'index.sqlite') : redactPostgresUrl(b.target(engine).database!));
    expect(s.database.bytes).toBeGreaterThan(0);
    expect(s.totals).toEqual({ collections: 2, documents: 3, chunks: 3, skipped: 2, failed: 0, kinds: { markdown: 2, text: 1 } });
    const [ca, cb] = s.collections;
    expect(ca).toMatchObject({ name: 'a', documents: 2, chunks: 2, skipped: 2, failed: 0 });
    expect(ca!.problems).toEqual([
      { path: 'bin.txt', status: 'skipped', reason: 'binary content (not text)' },
      { path: 'empty.md', status: 'skipped', reason: 'empty file' },
    ]);
    expect(cb).toMatchObject({ name: 'b', documents: 1, chunks: 1, skipped: 0, problems: [] });
    for (const c of s.collections) expect(Date.parse(c.lastIndexedAt!)).toBeGreaterThan(Date.parse(c.createdAt) - 1);
  });

  it('index of an unknown collection is NOT_FOUND and names the known ones', async () => {
    const engine = await b.open();
    await engine.addCollection({ root: tempDir(), name: 'known' });
    const err = await troveErrorAsync(() => engine.index({ collection: 'unknown' }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toMatch(/known/);
  });
});
