// An Engine on a temp profile over a temp folder of real files; closed and removed after each test file.
import { afterAll } from 'vitest';
import { Engine, type EngineOptions } from '../../src-main/engine/index.js';
import { TroveError } from '../../src-main/engine/errors.js';
import { removeTempDirs, tempDir, writeTree } from './tmp.js';

export interface TestIndex {
  engine: Engine;
  root: string;
  profile: string;
}

const engines: Engine[] = [];

afterAll(() => {
  while (engines.length) void engines.pop()!.close();
  removeTempDirs();
});

export async function openEngine(opts: Partial<EngineOptions> = {}): Promise<Engine> {
  const engine = await Engine.open({ profileDir: tempDir('trove-profile-'), ...opts });
  engines.push(engine);
  return engine;
}

/** Writes `files` into a new folder, adds it as collection `name` and indexes it. */
export async function indexedFolder(files: Record<string, string | Buffer>, name = 'notes', opts: Partial<EngineOptions> = {}): Promise<TestIndex> {
  const root = tempDir('trove-root-');
  writeTree(root, files);
  const engine = await openEngine(opts);
  await engine.addCollection({ root, name });
  await engine.index();
  return { engine, root, profile: engine.profileDir };
}

/** 'results' when fn's promise resolves, else the code of the TroveError it rejects with (anything else fails the test). */
export async function outcome(fn: () => Promise<unknown>): Promise<'results' | string> {
  try {
    await fn();
    return 'results';
  } catch (err) {
    if (err instanceof TroveError) return err.code;
    throw err;
  }
}

/** Runs fn and returns the TroveError it throws (fails the test if it throws anything else or nothing); for a promise, troveErrorAsync. */
export function troveError(fn: () => unknown): TroveError {
  try {
    const r = fn();
    if (r instanceof Promise) {
      r.catch(() => undefined);
      throw new Error('troveError: fn returned a promise: use troveErrorAsync');
    }
  } catch (err) {
    if (err instanceof TroveError) return err;
    throw new Error(`expected a TroveError, got ${String(err)}`);
  }
  throw new Error('expected a TroveError, but nothing was thrown');
}

/** Awaits fn and returns the TroveError it rejects (or throws) with; fails the test on anything else or nothing. */
export async function troveErrorAsync(fn: () => Promise<unknown>): Promise<TroveError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof TroveError) return err;
    throw new Error(`expected a TroveError, got ${String(err)}`);
  }
  throw new Error('expected a TroveError, but nothing was thrown');
}
