// Crash safety beyond indexing (test/live/crash.test.ts kills indexing 20 times): SIGKILL while
// embedding, in the middle of a model switch and during agent memory's batch writes, and a full disk. Every time the database reopens
// with integrity_check ok, the work resumes, and the index — rows, FTS and every vector — ends
// identical to a run that was never interrupted. The disk is "full" through RLIMIT_FSIZE on the
// child (the kernel fails its writes past the cap; no root or mount needed). Long run with 50+
// kills: `npm run reliability:crash`.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testModelsDir } from '../helpers/test-models.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { fullDisk, killAndResume, uninterrupted } from './lib/crash-suite.js';
import { writeNotes } from './lib/generated-corpus.js';

process.env.TROVE_MODELS_DIR = testModelsDir(); // the children read it
let root: string;
afterAll(removeTempDirs);
beforeAll(() => {
  root = tempDir('trove-crash2-root-');
  writeNotes(root, 10);
});

describe('SIGKILL beyond indexing', () => {
  test('while embedding: 3 kills at random points, each resumed to the same vectors', { timeout: 300_000 }, async () => {
    const out = await killAndResume('embed', root, 3);
    expect(out.problems).toEqual([]);
    expect(out.midway).toBeGreaterThanOrEqual(2);
  });

  test('in the middle of a model switch: 2 kills, each resumed to the same swapped-in space', { timeout: 300_000 }, async () => {
    const embedded = await uninterrupted('embed', root);
    const out = await killAndResume('switch', root, 2, embedded.profile);
    fs.rmSync(embedded.profile, { recursive: true, force: true });
    expect(out.problems).toEqual([]);
    expect(out.midway).toBeGreaterThanOrEqual(1);
  });

  test('during memory batch writes and their embedding: 3 kills, each batch all or nothing, resumed to the same entries and vectors', { timeout: 300_000 }, async () => {
    const out = await killAndResume('memory', root, 3);
    expect(out.problems).toEqual([]);
    expect(out.midway).toBeGreaterThanOrEqual(1);
  });
});

describe('a full disk', () => {
  test('indexing stops with a clear error, the index stays consistent, and it resumes once space returns', { timeout: 300_000 }, async () => {
    const out = await fullDisk(root, 24);
    expect(out.problems).toEqual([]);
    expect(out.message).toMatch(/^IO: the disk holding the index is full or failing \(.*\); indexing stopped and nothing indexed so far is lost/);
    expect(out.midway).toBe(1); // it really stopped part-way
  });
});
