// The ranking expression of keyword search: BM25 over title/headings/body with column weights
// 4/2/1. Spelled out rather than ORDER BY the configured `rank`: FTS5's sorted-rank path was
// ~30% slower than SQLite's top-N sort here (measured). With the native extension
// (store/rank-extension.ts) it is trove_bm25(), which takes each phrase's row count from the
// planner instead of walking the phrase's whole doclist on every query, and skips the length
// lookup of rows that cannot make the LIMIT; same scores, same top rows.
import type { Db } from '../database.js';
import type { FtsTotals } from '../fts-totals.js';
import type { KeywordIndex } from '../keyword-index.js';

const WEIGHTS = '4.0, 2.0, 1.0';

/** Whether this connection has trove_bm25() (an FTS5 function: it only exists once loaded). */
export function hasRankFunction(db: Db): boolean {
  try {
    db.prepare("SELECT trove_bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH 'x'");
    return true;
  } catch {
    return false;
  }
}

/**
 * SQL for the rank of a row. With the native function, leading parameters: the query's LIMIT
 * (rows that cannot make it are not fully scored), the index's true row and token totals (see
 * store/fts-totals.ts) and then `phrases` phrase counts. bm25() takes no totals: it reads FTS5's
 * totals record, which still counts contentless-deleted rows, so without the native extension
 * BM25's N and average length (and so the scores, and rarely the order) stay approximate after
 * edits and deletes until the index is built anew; the document frequencies are right either way.
 */
export function rankSql(native: boolean, phrases: number, index: KeywordIndex = 'chunks_fts'): string {
  if (!native) return `bm25(${index}, ${WEIGHTS})`;
  return `trove_bm25(${index}, ${WEIGHTS}, ?, ?, ?${', ?'.repeat(phrases)})`;
}

/** The parameters rankSql's SQL takes before the MATCH expression (totals null: FTS5's own). */
export function rankParams(native: boolean, limit: number, totals: FtsTotals | null, hits: readonly (number | null)[]): unknown[] {
  return native ? [limit, totals?.rows ?? null, totals?.tokens ?? null, ...hits] : [];
}
