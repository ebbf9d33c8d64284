// The crash scenarios as functions the test and the bench share: SIGKILL a child at random steps
// of one kind of work and resume it, or cap what it may write (a full disk) and give the space
// back; each returns what went wrong (nothing, when crash-safe) instead of asserting.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../../../src-main/engine/index.js';
import { killPoints } from '../../helpers/kill-points.js';
import { runCrashChild, snapshotWithVectors, type CrashMode, type FullSnapshot } from './crash-run.js';

export interface CrashOutcome {
  scenario: string;
  kills: number;
  /** Kills that landed before the work was done (the rest hit its very end). */
  midway: number;
  problems: string[];
}

const db = (profile: string) => path.join(profile, 'index.sqlite');

function temp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

function copy(profile: string): string {
  const to = temp('trove-crash-copy-');
  fs.cpSync(profile, to, { recursive: true });
  return to;
}

/** How a snapshot differs from the baseline, or []. */
export function differences(actual: FullSnapshot, baseline: FullSnapshot, when: string): string[] {
  const out: string[] = [];
  if (actual.integrity !== 'ok') out.push(`${when}: integrity_check says ${actual.integrity}`);
  if (actual.ftsIntegrity !== 'ok') out.push(`${when}: FTS integrity-check says ${actual.ftsIntegrity}`);
  if (actual.duplicatePaths) out.push(`${when}: ${actual.duplicatePaths} duplicate paths`);
  if (actual.jobs) out.push(`${when}: ${actual.jobs} jobs left`);
  if (actual.chunks !== baseline.chunks || actual.ftsRows !== baseline.ftsRows) out.push(`${when}: ${actual.chunks} chunks / ${actual.ftsRows} FTS rows, expected ${baseline.chunks}`);
  if (JSON.stringify(actual.documents) !== JSON.stringify(baseline.documents)) out.push(`${when}: documents differ from the uninterrupted run`);
  if (actual.memory.ftsIntegrity !== 'ok') out.push(`${when}: memory FTS integrity-check says ${actual.memory.ftsIntegrity}`);
  if (JSON.stringify(actual.memory) !== JSON.stringify(baseline.memory)) out.push(`${when}: memory ${actual.memory.entries.length} entries / ${actual.memory.ftsRows} FTS rows, expected ${baseline.memory.entries.length} / ${baseline.memory.ftsRows}`);
  if (JSON.stringify(actual.vectors) !== JSON.stringify(baseline.vectors)) out.push(`${when}: vectors ${JSON.stringify(actual.vectors)}, expected ${JSON.stringify(baseline.vectors)}`);
  return out;
}

/** An uninterrupted run of `mode` on a fresh copy of `from` (or a new profile), and how many steps it printed. */
export async function uninterrupted(mode: CrashMode, root: string, from?: string): Promise<{ profile: string; steps: number }> {
  const profile = from ? copy(from) : temp('trove-crash-base-');
  const run = await runCrashChild({ mode, profileDir: profile, root, model: 'test-tiny-embedder' });
  if (run.code !== 0) throw new Error(`the uninterrupted ${mode} run failed: ${run.stderr}`);
  return { profile, steps: run.lines };
}

/** `kills` times: SIGKILL `mode` at a random step, check the database at once, resume, compare with an uninterrupted run. */
/** Seeds of the kill points, one per mode: the same points on every run (TROVE_CRASH_SEED explores others). */
const SEEDS: Record<CrashMode, number> = { index: 101, embed: 202, switch: 303, memory: 404 };

export async function killAndResume(mode: CrashMode, root: string, kills: number, from?: string): Promise<CrashOutcome> {
  const seed = SEEDS[mode];
  const base = await uninterrupted(mode, root, from);
  const baseline = snapshotWithVectors(db(base.profile));
  const problems: string[] = [];
  let midway = 0;
  const points = killPoints(seed);
  for (let i = 0; i < kills; i++) {
    const profile = from ? copy(from) : temp('trove-crash-');
    const at = points.next(base.steps, 20);
    const run = await runCrashChild({ mode, profileDir: profile, root, model: 'test-tiny-embedder', killAtLine: at.line, extraMs: at.extraMs });
    if (run.killed && !run.finished) midway++;
    if (fs.existsSync(db(profile))) {
      const after = snapshotWithVectors(db(profile));
      if (after.integrity !== 'ok' || after.ftsIntegrity !== 'ok' || after.memory.ftsIntegrity !== 'ok') problems.push(`${points.describe(i, at)}: the database did not reopen cleanly (${after.integrity}, ${after.ftsIntegrity})`);
    }
    const resumed = await runCrashChild({ mode, profileDir: profile, root, model: 'test-tiny-embedder' });
    if (resumed.code !== 0) problems.push(`${points.describe(i, at)}: resuming failed: ${resumed.stderr.slice(0, 300)}`);
    else problems.push(...differences(snapshotWithVectors(db(profile)), baseline, `${points.describe(i, at)} (step ${run.lines} of ${base.steps})`));
    fs.rmSync(profile, { recursive: true, force: true });
  }
  fs.rmSync(base.profile, { recursive: true, force: true });
  const doing = { index: 'indexing', embed: 'embedding', switch: 'switching models', memory: 'writing memory batches' }[mode];
  return { scenario: `SIGKILL while ${doing}`, kills, midway, problems };
}

/** Indexing with the files capped at the schema's size + headroomKb: a clear IO error, a consistent index, and a full resume once the cap is gone. */
export async function fullDisk(root: string, headroomKb: number): Promise<CrashOutcome & { message: string }> {
  const base = await uninterrupted('index', root);
  const baseline = snapshotWithVectors(db(base.profile));
  const profile = temp('trove-crash-full-');
  const engine = await Engine.open({ profileDir: profile });
  await engine.addCollection({ root, name: 'corpus' });
  await engine.close();
  const largest = Math.max(...fs.readdirSync(profile).map((f) => fs.statSync(path.join(profile, f)).size));
  const full = await runCrashChild({ mode: 'index', profileDir: profile, root, fileSizeLimitKb: largest / 1024 + headroomKb });
  const problems: string[] = [];
  if (full.code !== 3) problems.push(`with the disk full the child exited ${full.code}, not 3: ${full.stderr.slice(0, 300)}`);
  if (!/the disk holding the index is full or failing/.test(full.stderr)) problems.push(`no clear message: ${full.stderr.slice(0, 300)}`);
  const during = snapshotWithVectors(db(profile));
  if (during.integrity !== 'ok' || during.ftsIntegrity !== 'ok') problems.push(`the index is inconsistent after the full disk (${during.integrity}, ${during.ftsIntegrity})`);
  const stoppedPartWay = during.documents.length < baseline.documents.length;
  const resumed = await runCrashChild({ mode: 'index', profileDir: profile, root });
  if (resumed.code !== 0) problems.push(`resuming with space again failed: ${resumed.stderr.slice(0, 300)}`);
  else problems.push(...differences(snapshotWithVectors(db(profile)), baseline, 'after the disk had space again'));
  fs.rmSync(profile, { recursive: true, force: true });
  fs.rmSync(base.profile, { recursive: true, force: true });
  return { scenario: `full disk (${headroomKb} KB of room)`, kills: 1, midway: stoppedPartWay ? 1 : 0, problems, message: full.stderr.trim().split('\n')[0] ?? '' };
}
