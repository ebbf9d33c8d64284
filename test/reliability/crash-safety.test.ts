// Crash safety beyond indexing (test/live/crash.test.ts kills indexing 20 times): SIGKILL while
// embedding and in the middle of a model switch, and a full disk. Every time the database reopens
// with integrity_check ok, the work resumes, and the index — rows, FTS and every vector — ends
// identical to a run that was never interrupted. The disk is "full" through RLIMIT_FSIZE on the
// child (the kernel fails its writes past the cap; no root or mount needed). Long run with 50+
// kills: `npm run reliability:crash`.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { testModelsDir } from '../helpers/test-models.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { runCrashChild, snapshotWithVectors, type CrashMode, type FullSnapshot } from './lib/crash-run.js';
import { writeNotes } from './lib/generated-corpus.js';

const MODELS = testModelsDir();
process.env.TROVE_MODELS_DIR = MODELS; // the children read it
let root: string;
afterAll(removeTempDirs);
beforeAll(() => {
  root = tempDir('trove-crash2-root-');
  writeNotes(root, 10);
});

const db = (profile: string) => path.join(profile, 'index.sqlite');

function expectIdentical(actual: FullSnapshot, baseline: FullSnapshot): void {
  expect(actual.integrity).toBe('ok');
  expect(actual.ftsIntegrity).toBe('ok');
  expect(actual.duplicatePaths).toBe(0);
  expect(actual.jobs).toBe(0);
  expect({ documents: actual.documents, chunks: actual.chunks, fts: actual.ftsRows, vectors: actual.vectors }).toEqual({
    documents: baseline.documents,
    chunks: baseline.chunks,
    fts: baseline.ftsRows,
    vectors: baseline.vectors,
  });
}

/** A profile after an uninterrupted run of `mode` (from `from`, a profile to start from, or nothing), and how many steps it printed. */
async function uninterrupted(mode: CrashMode, from?: string): Promise<{ profile: string; steps: number }> {
  const profile = tempDir('trove-crash2-base-');
  if (from) fs.cpSync(from, profile, { recursive: true });
  const run = await runCrashChild({ mode, profileDir: profile, root, model: 'multilingual-e5-small' });
  expect(run.code, run.stderr).toBe(0);
  return { profile, steps: run.lines };
}

async function killAndResume(mode: CrashMode, kills: number, from?: string): Promise<void> {
  const base = await uninterrupted(mode, from);
  const baseline = snapshotWithVectors(db(base.profile));
  const steps = base.steps;
  let midway = 0;
  for (let i = 0; i < kills; i++) {
    const profile = from ? copy(from) : tempDir('trove-crash2-');
    const run = await runCrashChild({ mode, profileDir: profile, root, model: 'multilingual-e5-small', killAtLine: 1 + Math.floor(Math.random() * steps), extraMs: Math.floor(Math.random() * 20) });
    if (run.killed && !run.finished) midway++;
    expect(snapshotWithVectors(db(profile)).integrity).toBe('ok'); // reopens cleanly right after the kill
    const resumed = await runCrashChild({ mode, profileDir: profile, root, model: 'multilingual-e5-small' });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectIdentical(snapshotWithVectors(db(profile)), baseline);
  }
  expect(midway).toBeGreaterThanOrEqual(Math.ceil(kills / 2));
}

function copy(profile: string): string {
  const to = tempDir('trove-crash2-');
  fs.cpSync(profile, to, { recursive: true });
  return to;
}

describe('SIGKILL beyond indexing', () => {
  test('while embedding: 3 kills at random points, each resumed to the same vectors', { timeout: 300_000 }, async () => {
    await killAndResume('embed', 3);
  });

  test('in the middle of a model switch: 2 kills, each resumed to the same swapped-in space', { timeout: 300_000 }, async () => {
    const embedded = await uninterrupted('embed');
    await killAndResume('switch', 2, embedded.profile);
  });
});

describe('a full disk', () => {
  test('indexing stops with a clear error, the index stays consistent, and it resumes once space returns', { timeout: 300_000 }, async () => {
    const baseline = snapshotWithVectors(db((await uninterrupted('index')).profile));
    // the schema is in place first; then the cap leaves room for a batch or two of the index
    const profile = tempDir('trove-crash2-full-');
    const engine = Engine.open({ profileDir: profile });
    engine.addCollection({ root, name: 'corpus' });
    await engine.close();
    const largest = Math.max(...fs.readdirSync(profile).map((f) => fs.statSync(path.join(profile, f)).size));
    const full = await runCrashChild({ mode: 'index', profileDir: profile, root, fileSizeLimitKb: largest / 1024 + 24 });
    expect(full.code, full.stderr).toBe(3);
    expect(full.stderr).toMatch(/^IO: the disk holding the index is full or failing \(.*\); indexing stopped and nothing indexed so far is lost/m);
    const during = snapshotWithVectors(db(profile));
    expect(during.integrity).toBe('ok');
    expect(during.ftsIntegrity).toBe('ok');
    expect(during.documents.length).toBeLessThan(baseline.documents.length); // it really stopped part-way
    const resumed = await runCrashChild({ mode: 'index', profileDir: profile, root });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectIdentical(snapshotWithVectors(db(profile)), baseline);
  });
});
