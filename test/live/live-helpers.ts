// Shared by the live-folder tests: an engine with short debounce and backoff (so tests run in
// seconds, with the same code paths), and polling helpers that wait for real file events.
import fs from 'node:fs';
import path from 'node:path';
import type { Engine, EngineOptions } from '../../src-main/engine/index.js';
import type { TestBackend } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

export const FAST: EngineOptions['indexing'] = {
  live: { debounceMs: 40, maxWaitMs: 200, goneGraceMs: 150, reconcileIntervalMs: 10 * 60_000 },
  retry: { baseMs: 100, factor: 2, maxDelayMs: 1000, maxAttempts: 3 },
};

export interface LiveFolder {
  engine: Engine;
  root: string;
  write(rel: string, text: string | Buffer): void;
  remove(rel: string): void;
  abs(rel: string): string;
}

/** A collection over a new temp folder holding `files`, indexed on backend `b`, with the watcher running. */
export async function watchedFolder(b: TestBackend, files: Record<string, string>, name = 'notes', opts: Partial<EngineOptions> = {}): Promise<LiveFolder> {
  const root = tempDir('trove-live-');
  writeTree(root, files);
  const engine = await b.open({ indexing: FAST, ...opts });
  await engine.addCollection({ root, name });
  await engine.index();
  await engine.startWatching();
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  return {
    engine,
    root,
    abs,
    write: (rel, text) => writeTree(root, { [rel]: text }),
    remove: (rel) => fs.rmSync(abs(rel), { recursive: true, force: true }),
  };
}

/** Polls `probe` until it returns something truthy; fails with `what` after the timeout. */
export async function waitFor<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Paths that a keyword search finds (up to 1000). */
export async function found(engine: Engine, query: string, collection?: string): Promise<string[]> {
  const r = await engine.search({ query, limit: 1000, ...(collection ? { collections: [collection] } : {}) });
  return r.results.map((h) => h.path).sort();
}

/** Has every queued job of every collection run? */
export async function settled(engine: Engine): Promise<boolean> {
  return (await engine.status()).indexing.collections.every((c) => c.queued === 0 || c.queued === c.gaveUp + c.retrying);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
