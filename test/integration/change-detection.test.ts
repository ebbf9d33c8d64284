// Change detection: unchanged files are not read or parsed again (size+mtime fast path, hash to
// confirm), modified files are re-indexed, deleted files leave the index, renamed files keep their docid.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { DocumentRow } from '../../src-main/engine/store/documents.js';
import { describeBackends } from '../helpers/backends.js';
import { documentRecords } from '../helpers/index-rows.js';
import { setMtime } from '../helpers/tmp.js';

const files = {
  'keep.md': '# Keep\n\nthis file never changes',
  'edit.md': '# Edit\n\noriginal wording about zebras',
  'touch.md': '# Touch\n\nsame bytes, new mtime',
  'delete.md': '# Delete\n\nsoon gone: platypus',
  'old-name.md': '# Rename\n\nrenamed content about narwhals',
};

/** Waits until the clock is past every row's indexedAt, so a file parsed again would show a later one. */
async function clockPast(rows: Map<string, DocumentRow>): Promise<void> {
  const last = Math.max(...[...rows.values()].map((r) => r.indexedAt));
  while (Date.now() <= last) await new Promise((r) => setTimeout(r, 1));
}

describeBackends('change detection', (b) => {
  it('a second index with no changes reads nothing and writes nothing', async () => {
    const { engine } = await b.indexedFolder(files);
    const rows = await b.peek(engine);
    const before = await documentRecords(rows);
    await clockPast(before);
    const [report] = await engine.index();
    expect(report).toMatchObject({ scanned: 5, unchanged: 5, added: 0, updated: 0, renamed: 0, removed: 0, chunks: 0, bytesRead: 0 });
    expect(await documentRecords(rows)).toEqual(before);
  });

  it('updates modified files, confirms touched files by hash, drops deleted ones and keeps the docid of renamed ones', async () => {
    const { engine, root } = await b.indexedFolder(files);
    const rows = await b.peek(engine);
    const before = await documentRecords(rows);
    await clockPast(before);

    fs.writeFileSync(path.join(root, 'edit.md'), '# Edit\n\nnew wording about giraffes, longer than before');
    setMtime(path.join(root, 'touch.md'), new Date(Date.now() + 60_000)); // same bytes, new mtime
    fs.rmSync(path.join(root, 'delete.md'));
    fs.renameSync(path.join(root, 'old-name.md'), path.join(root, 'new-name.md'));

    const [report] = await engine.index();
    expect(report).toMatchObject({ scanned: 4, added: 0, updated: 1, renamed: 1, removed: 1 });
    expect(report!.unchanged).toBe(2); // keep.md by stat, touch.md by hash
    expect(report!.notices).toEqual([]); // the renamed file's old path is not "deleted before it could be read"
    const after = await documentRecords(rows);

    // unchanged: not parsed again
    expect(after.get('keep.md')).toEqual(before.get('keep.md'));
    // touched: the stat is refreshed, the parse is not redone
    expect(after.get('touch.md')!.indexedAt).toBe(before.get('touch.md')!.indexedAt);
    expect(after.get('touch.md')!.mtimeMs).not.toBe(before.get('touch.md')!.mtimeMs);
    // modified: same docid, new content
    expect(after.get('edit.md')!.docid).toBe(before.get('edit.md')!.docid);
    expect(after.get('edit.md')!.indexedAt).toBeGreaterThan(before.get('edit.md')!.indexedAt);
    expect((await engine.search({ query: 'giraffes' })).results.map((r) => r.path)).toEqual(['edit.md']);
    expect((await engine.search({ query: 'zebras' })).results).toEqual([]);
    // deleted: gone from documents, chunks and the keyword index
    expect(after.has('delete.md')).toBe(false);
    expect(await rows.chunks.forDocument(before.get('delete.md')!.id)).toEqual([]);
    expect((await rows.chunks.forDocument(before.get('keep.md')!.id)).length).toBeGreaterThan(0);
    expect((await engine.search({ query: 'platypus' })).results).toEqual([]);
    // renamed: same docid at the new path, searchable there, not at the old one
    expect(after.has('old-name.md')).toBe(false);
    expect(after.get('new-name.md')!.docid).toBe(before.get('old-name.md')!.docid);
    expect((await engine.get(`#${before.get('old-name.md')!.docid}`)).path).toBe('new-name.md');
    expect((await engine.search({ query: 'narwhals' })).results.map((r) => r.path)).toEqual(['new-name.md']);
    expect((await engine.status()).totals.documents).toBe(4);
  });

  it('a file moved into a sub-folder keeps its docid too', async () => {
    const { engine, root } = await b.indexedFolder({ 'a.md': 'unique words: quokka wallaby' });
    const docid = (await documentRecords(await b.peek(engine))).get('a.md')!.docid;
    fs.mkdirSync(path.join(root, 'archive'));
    fs.renameSync(path.join(root, 'a.md'), path.join(root, 'archive/a.md'));
    const [report] = await engine.index();
    expect(report).toMatchObject({ renamed: 1, added: 0, removed: 0 });
    expect((await engine.get('archive/a.md')).docid).toBe(docid);
  });

  it('a skipped file is indexed once it changes', async () => {
    const { engine, root } = await b.indexedFolder({ 'bin.md': Buffer.from([0, 1, 2, 3, 0, 0]), 'ok.md': 'fine' });
    const rows = await b.peek(engine);
    expect((await documentRecords(rows)).get('bin.md')!.status).toBe('skipped');
    fs.writeFileSync(path.join(root, 'bin.md'), '# Now text\n\nrecovered file');
    await engine.index();
    expect((await documentRecords(rows)).get('bin.md')!.status).toBe('indexed');
    expect((await engine.search({ query: 'recovered' })).results.map((r) => r.path)).toEqual(['bin.md']);
  });
});
