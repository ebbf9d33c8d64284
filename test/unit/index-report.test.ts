import { describe, expect, test } from 'vitest';
import type { ReconcilePlan } from '../../src-main/engine/ingest/indexer.js';
import { ReportCollector } from '../../src-main/engine/indexing/report.js';

const plan = (scanned: number, changed: string[], notices: ReconcilePlan['notices'] = []): ReconcilePlan => ({
  scanned,
  notices,
  changed: changed.map((path) => ({ path, mtimeMs: 1 })),
  vanished: [],
});

describe('the report of one index() call', () => {
  test('a folder scanned twice while the call waits (watcher reconcile + its own scan) counts its files once', () => {
    const c = new ReportCollector('notes');
    const files = ['a.md', 'b.md', 'c.md', 'big.bin'];
    const note = { path: 'link', reason: 'symlink outside the folder' };
    c.scanned(plan(4, files, [note]));
    c.scanned(plan(4, files, [note]));
    c.file({ path: 'a.md', result: 'added', chunks: 2, bytes: 10 });
    c.file({ path: 'b.md', result: 'added', chunks: 1, bytes: 5 });
    c.file({ path: 'c.md', result: 'unchanged', bytes: 5 });
    c.file({ path: 'big.bin', result: 'skipped', reason: 'too big' });
    const r = c.finish();
    expect(r).toMatchObject({ scanned: 4, added: 2, unchanged: 1, chunks: 3, bytesRead: 20, notices: [note] });
    expect(r.skipped).toEqual([{ path: 'big.bin', reason: 'too big' }]);
  });

  test('files the scan found unchanged, and those that vanished before being read, add up with the rest', () => {
    const c = new ReportCollector('notes');
    c.scanned(plan(10, ['new.md', 'gone.md']));
    c.file({ path: 'new.md', result: 'added', chunks: 1, bytes: 3 });
    c.file({ path: 'gone.md', result: 'ignored', reason: 'deleted before it could be read' });
    c.file({ path: 'old.md', result: 'removed' });
    expect(c.finish()).toMatchObject({ scanned: 10, added: 1, removed: 1, unchanged: 8, notices: [{ path: 'gone.md', reason: 'deleted before it could be read' }] });
  });
});
