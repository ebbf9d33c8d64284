// kill -9 at random points while indexing: every time, the database reopens cleanly (integrity
// ok, no duplicate rows), the queue resumes where it stopped, and the index ends identical to
// one built without interruption -- from scratch, and when updating an index after edits,
// deletions and renames (renamed files keep their docids).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { tempDir } from '../helpers/tmp.js';
import { writeNotes } from '../reliability/lib/generated-corpus.js';
import { killPoints } from '../helpers/kill-points.js';
import { runChild, snapshot, type IndexSnapshot } from './crash-helpers.js';

const FILES = 120;
const BATCH = 8;
const ITERATIONS = 10; // per scenario: 20 kills in all

/** A corpus of ordinary notes, written at run time (a fresh clone has nothing beside it). */
function corpusCopy(): string {
  const root = tempDir('trove-crash-root-');
  writeNotes(root, FILES);
  return root;
}

/** Edits 10 files, deletes 10, renames 10 (into a new folder), adds 5. Deterministic. */
function mutate(root: string): Map<string, string> {
  const files = (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
  const renames = new Map<string, string>();
  files.slice(0, 10).forEach((f) => fs.appendFileSync(path.join(root, f), '\n\nAn added paragraph about crash safety.\n'));
  files.slice(10, 20).forEach((f) => fs.rmSync(path.join(root, f)));
  fs.mkdirSync(path.join(root, 'moved'), { recursive: true });
  files.slice(20, 30).forEach((f, i) => {
    const to = `moved/renamed-${i}.md`;
    fs.renameSync(path.join(root, f), path.join(root, to));
    renames.set(f, to);
  });
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `new-${i}.md`), `# New ${i}\n\nFresh text number ${i}.\n`);
  return renames;
}

async function indexInProcess(profileDir: string, root: string): Promise<void> {
  const engine = await Engine.open({ profileDir, indexing: { batchFiles: BATCH } });
  try {
    if (!(await engine.listCollections()).length) await engine.addCollection({ root, name: 'corpus' });
    await engine.index();
  } finally {
    await engine.close();
  }
}

async function docids(databaseFile: string, paths: string[]): Promise<string[]> {
  const engine = await Engine.open({ profileDir: path.dirname(databaseFile) });
  try {
    return await Promise.all(paths.map(async (p) => (await engine.get(`corpus/${p}`)).docid));
  } finally {
    await engine.close();
  }
}

function expectSame(actual: IndexSnapshot, baseline: IndexSnapshot, where: string): void {
  expect(actual.integrity, where).toBe('ok');
  expect(actual.ftsIntegrity, where).toBe('ok');
  expect(actual.duplicatePaths, where).toBe(0);
  expect(actual.jobs, where).toBe(0);
  expect(actual.chunks, where).toBe(baseline.chunks);
  expect(actual.ftsRows, where).toBe(baseline.chunks);
  expect(actual.documents, where).toEqual(baseline.documents);
}

describe('SIGKILL during indexing', () => {
  test(`from scratch: ${ITERATIONS} kills at seeded random points`, { timeout: 180_000 }, async () => {
    const root = corpusCopy();
    const baseProfile = tempDir('trove-crash-base-');
    await indexInProcess(baseProfile, root);
    const baseline = snapshot(path.join(baseProfile, 'index.sqlite'));
    expect(baseline.documents.length).toBe(FILES);
    const batches = Math.ceil(FILES / BATCH);

    const points = killPoints(20261127);
    let killedMidway = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const profile = tempDir('trove-crash-');
      // line 1 is "ready"; then scanning, then one line per batch: kill anywhere in between
      const at = points.next(batches + 2, 15);
      const where = points.describe(i, at);
      const run = await runChild(profile, root, BATCH, at.line, at.extraMs);
      if (run.killed && !run.finished) killedMidway++;
      const db = path.join(profile, 'index.sqlite');
      if (fs.existsSync(db)) {
        const after = snapshot(db); // reopens cleanly
        expect(after.integrity, where).toBe('ok');
        expect(after.ftsIntegrity, where).toBe('ok');
        expect(after.duplicatePaths, where).toBe(0);
      }
      await indexInProcess(profile, root);
      expectSame(snapshot(db), baseline, where);
    }
    expect(killedMidway).toBeGreaterThanOrEqual(ITERATIONS / 2);
  });

  test(`updating after edits, deletions and renames: ${ITERATIONS} kills at seeded random points`, { timeout: 180_000 }, async () => {
    const template = corpusCopy();
    const base = tempDir('trove-crash-upd-');
    fs.cpSync(template, base, { recursive: true });
    const baseProfile = tempDir('trove-crash-base-');
    await indexInProcess(baseProfile, base);
    mutate(base);
    await indexInProcess(baseProfile, base);
    const baseline = snapshot(path.join(baseProfile, 'index.sqlite'));
    // how many lines an update run reports when nothing stops it: the kills land among them (an
    // update is a few batches; kill points past its end made too few kills land midway, at random)
    const measured = tempDir('trove-crash-upd-');
    fs.cpSync(template, measured, { recursive: true });
    const measuredProfile = tempDir('trove-crash-');
    await indexInProcess(measuredProfile, measured);
    mutate(measured);
    const { lines } = await runChild(measuredProfile, measured, BATCH, -1);
    expect(lines).toBeGreaterThanOrEqual(4);

    const points = killPoints(20261128);
    let killedMidway = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const root = tempDir('trove-crash-upd-');
      fs.cpSync(template, root, { recursive: true });
      const profile = tempDir('trove-crash-');
      const db = path.join(profile, 'index.sqlite');
      await indexInProcess(profile, root);
      const renames = mutate(root);
      const before = await docids(db, [...renames.keys()]);
      const at = points.next(lines - 1, 5);
      const where = points.describe(i, at);
      const run = await runChild(profile, root, BATCH, at.line, at.extraMs);
      if (run.killed && !run.finished) killedMidway++;
      const after = snapshot(db);
      expect(after.integrity, where).toBe('ok');
      expect(after.duplicatePaths, where).toBe(0);
      await indexInProcess(profile, root);
      expectSame(snapshot(db), baseline, where);
      expect(await docids(db, [...renames.values()]), where).toEqual(before); // renames kept their docids
    }
    expect(killedMidway).toBeGreaterThanOrEqual(ITERATIONS / 2);
  });
});
