// How a read's rows come back, the same on a reader thread (reader-worker.ts) and on the engine's
// connection (reader-pool.ts run): a module of its own, as the worker's module opens its
// connection when loaded.
import type { Statement } from 'better-sqlite3';
import { windowsFromBlocks, type PackedBlockRow } from '../content-blocks.js';

/**
 * `all`: every row as an object; `get`: the first row or undefined; `windows`: rows of compressed
 * text blocks, inflated and joined into a window per key (a Map; content-blocks.ts
 * windowsFromBlocks) where the statement ran, so a thread that reads the blocks inflates them too.
 */
export type ReadMode = 'all' | 'get' | 'windows';

export function runStatement(stmt: Statement, params: readonly unknown[], mode: ReadMode): unknown {
  if (mode === 'get') return stmt.get(...params);
  const rows = stmt.all(...params);
  return mode === 'windows' ? windowsFromBlocks(rows as PackedBlockRow[]) : rows;
}
