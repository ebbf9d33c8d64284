// The folder watcher's own cost: with native events it holds one watch per folder, not one per file
// (chokidar's default), so a tree of a hundred thousand files stays within the kernel's inotify
// limit and its memory; a file's changes, creation and removal still arrive, heard through its
// folder, and so do the files of a folder that appears after the watch started.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../../src-main/engine/ingest/defaults.js';
import { PathFilter } from '../../src-main/engine/ingest/path-filter.js';
import { FolderWatcher, type PathChange } from '../../src-main/engine/indexing/folder-watcher.js';
import { DEFAULT_LIVE } from '../../src-main/engine/indexing/live-folders.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { waitFor } from './live-helpers.js';

const watches = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;

let watcher: FolderWatcher | null = null;
const noWatches = watches();
afterEach(async () => {
  await watcher?.close();
  watcher = null;
  await waitFor('every watch released', () => watches() === noWatches); // handles close on the next turns of the loop: the next test counts from here
});

function watch(root: string): { changes: PathChange[]; rescans: string[]; start: Promise<void> } {
  const changes: PathChange[] = [];
  const rescans: string[] = [];
  watcher = new FolderWatcher(new PathFilter(root, DEFAULT_INCLUDE, DEFAULT_EXCLUDE), {
    changes: (batch) => changes.push(...batch),
    rescan: (reason) => rescans.push(reason),
    error: (message) => rescans.push(`error: ${message}`),
  }, { ...DEFAULT_LIVE, debounceMs: 20, maxWaitMs: 100 });
  return { changes, rescans, start: watcher.start() };
}

describe('folder watcher', () => {
  test('one native watch per folder, not per file; a file is heard through its folder', async () => {
    const root = tempDir('trove-watcher-');
    const files: Record<string, string> = {};
    for (let d = 0; d < 4; d++) for (let i = 0; i < 50; i++) files[`d${d}/n${i}.md`] = `note ${d}-${i}`;
    writeTree(root, files);
    const before = watches();
    const w = watch(root);
    await w.start;
    expect(watches() - before).toBe(5); // the root and its four folders, for 200 files

    writeTree(root, { 'd3/n7.md': 'changed', 'd0/new.md': 'created' });
    fs.rmSync(path.join(root, 'd1/n2.md'));
    fs.writeFileSync(path.join(root, 'd2/skip.exe'), 'not a kind Trove indexes');
    await waitFor('three changes heard', () => w.changes.length >= 3);
    const seen = (rel: string) => w.changes.filter((c) => c.path === rel).at(-1);
    expect(seen('d3/n7.md')?.gone).toBe(false);
    expect(seen('d0/new.md')?.gone).toBe(false);
    expect(seen('d1/n2.md')?.gone).toBe(true);
    expect(seen('d2/skip.exe')).toBeUndefined();

    await watcher!.close();
    watcher = null;
    await waitFor('every watch released', () => watches() === before); // handles close on the next turns of the loop
  });

  test('a folder moved in after the start: its files arrive as changes, and it is watched from then on', async () => {
    const root = tempDir('trove-watcher-');
    writeTree(root, { 'a.md': 'a' });
    const w = watch(root);
    await w.start;
    const outside = tempDir('trove-watcher-outside-');
    writeTree(outside, { 'trip/day1.md': 'one', 'trip/photos/notes.txt': 'two', 'trip/node_modules/x.md': 'tooling' });
    fs.renameSync(path.join(outside, 'trip'), path.join(root, 'trip'));
    await waitFor('the moved folder\'s files', () => ['trip/day1.md', 'trip/photos/notes.txt'].every((p) => w.changes.some((c) => c.path === p)));
    expect(w.changes.some((c) => c.path.includes('node_modules'))).toBe(false);
    writeTree(root, { 'trip/photos/later.md': 'three' });
    await waitFor('a file written into it later', () => w.changes.some((c) => c.path === 'trip/photos/later.md'));
  });

  test('a removed folder asks for a reconcile and lets go of its watches; made again under the same name, it is watched again', async () => {
    const root = tempDir('trove-watcher-');
    writeTree(root, { 'a.md': 'a', 'trip/day1.md': 'one', 'trip/photos/p.md': 'two' });
    const before = watches();
    const w = watch(root);
    await w.start;
    expect(watches() - before).toBe(3);
    fs.rmSync(path.join(root, 'trip'), { recursive: true });
    await waitFor('the removal reported', () => w.rescans.some((r) => r.includes('trip')));
    await waitFor('its two watches released', () => watches() - before === 1);
    writeTree(root, { 'trip/day2.md': 'again' }); // a new folder under the old name
    await waitFor('a file of the new folder', () => w.changes.some((c) => c.path === 'trip/day2.md' && !c.gone));
    fs.writeFileSync(path.join(root, 'trip/day3.md'), 'later');
    await waitFor('a file written into it later', () => w.changes.some((c) => c.path === 'trip/day3.md'));
    expect(watches() - before).toBe(2);
  });

  test('the collection folder itself removed: a reconcile is asked', async () => {
    const parent = tempDir('trove-watcher-');
    const root = path.join(parent, 'notes');
    writeTree(root, { 'a.md': 'a', 'sub/b.md': 'b' });
    const w = watch(root);
    await w.start;
    fs.rmSync(root, { recursive: true });
    await waitFor('the root\'s removal reported', () => w.rescans.includes('the collection folder was removed'));
  });
});
