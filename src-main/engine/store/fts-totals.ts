// The true row and token totals of a keyword index, for BM25's N and average length.
//
// Trove's FTS5 tables are contentless with contentless_delete = 1. FTS5 keeps N and the column
// token totals in its "averages" record (%_data id 1), which xRowCount/xColumnTotalSize (and so
// bm25() and trove_bm25()) read; an insert adds to it, but a contentless delete only writes a
// tombstone and never subtracts. Every edited or removed chunk would stay counted forever, and
// after edits SQLite would rank differently from a fresh index of the same files (and from
// PostgreSQL). The record cannot be repaired in place: FTS5 rewrites it from its own per-transaction
// copy, and the shadow tables are read-only on a defensive connection.
//
// So the writer (store/chunks.ts) counts what FTS5 keeps counting: before it deletes FTS rows it adds
// their number and token count (their %_docsize sizes) to fts_deleted, in the same transaction. The
// true totals are FTS5's minus that, read in one row per query (no cache to invalidate, right for
// every connection). fts5vocab's document counts do follow deletes (it skips tombstoned rows), so
// the planner's term counts need no correction.
import type { Db } from './database.js';
import { KEYWORD_INDEXES, type KeywordIndex } from './keyword-index.js';

/** The unsigned SQLite varints a blob holds (FTS5's averages record, a %_docsize size), in order. */
export function varints(blob: Uint8Array | null | undefined): number[] {
  const out: number[] = [];
  if (!blob) return out;
  let i = 0;
  while (i < blob.length) {
    let v = 0;
    let n = 0;
    for (;;) {
      const byte = blob[i++]!;
      if (n === 8) {
        v = v * 256 + byte; // the ninth byte carries 8 bits
        break;
      }
      v = v * 128 + (byte & 0x7f);
      n++;
      if (!(byte & 0x80) || i >= blob.length) break;
    }
    out.push(v);
  }
  return out;
}

/** A row's token count: the sum of its %_docsize column sizes. */
export function docsizeTokens(sz: unknown): number {
  if (!(sz instanceof Uint8Array)) return 0;
  return varints(sz).reduce((a, b) => a + b, 0);
}

/**
 * Registers trove_docsize_tokens(sz) on a connection: the writer's delete statements sum the
 * deleted rows' sizes with it. In JavaScript rather than the native extension, which is optional.
 */
export function registerFtsFunctions(db: Db): void {
  db.function('trove_docsize_tokens', { deterministic: true }, (sz: unknown) => docsizeTokens(sz));
}

/**
 * Counts FTS rows into the index's fts_deleted row just before a delete statement drops them:
 * `ids` is the delete's subquery of their rowids, taking one parameter. A sum read then an update
 * only when rows go: ~18 µs a document (cpp-docs, 3 chunks a document), against ~30 µs for one
 * UPDATE … FROM (measured; the FTS delete itself ~35 µs).
 */
export class DeletedRows {
  private readonly sumStmt;
  private readonly addStmt;

  constructor(db: Db, index: KeywordIndex, ids: string) {
    this.sumStmt = db
      .prepare<[number], [number, number]>(`SELECT count(*), coalesce(sum(trove_docsize_tokens(sz)), 0) FROM ${index}_docsize WHERE id IN (${ids})`)
      .raw();
    this.addStmt = db.prepare(`UPDATE fts_deleted SET rows = rows + ?, tokens = tokens + ? WHERE idx = '${index}'`);
  }

  count(param: number): void {
    const [rows, tokens] = this.sumStmt.get(param)!;
    if (rows) this.addStmt.run(rows, tokens);
  }
}

export interface FtsTotals {
  /** Rows in the index. */
  rows: number;
  /** Tokens over all rows and columns. */
  tokens: number;
}

/** FTS5's averages record as totals (0 rows when the index was never written). */
function recorded(block: Uint8Array | null | undefined): FtsTotals {
  const [rows = 0, ...columns] = varints(block);
  return { rows, tokens: columns.reduce((a, b) => a + b, 0) };
}

/** Reads one index's true totals. */
export class FtsTotalsReader {
  private readonly stmt;

  constructor(db: Db, index: KeywordIndex) {
    this.stmt = db.prepare<[], { block: Uint8Array | null; rows: number | null; tokens: number | null }>(
      `SELECT (SELECT block FROM ${index}_data WHERE id = 1) AS block,
              (SELECT rows FROM fts_deleted WHERE idx = '${index}') AS rows,
              (SELECT tokens FROM fts_deleted WHERE idx = '${index}') AS tokens`,
    );
  }

  read(): FtsTotals {
    const r = this.stmt.get()!;
    const t = recorded(r.block);
    return { rows: Math.max(0, t.rows - (r.rows ?? 0)), tokens: Math.max(0, t.tokens - (r.tokens ?? 0)) };
  }
}

/**
 * Gives every index without one its fts_deleted row: what FTS5's record overstates, measured once
 * from %_docsize (one pass over it: a database written before this was kept, or a new one, where
 * it is 0). Call after the migrations, before any write.
 */
export function ensureDeletedCounts(db: Db): void {
  const has = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM fts_deleted WHERE idx = ?');
  const insert = db.prepare('INSERT INTO fts_deleted (idx, rows, tokens) VALUES (?, ?, ?)');
  for (const index of KEYWORD_INDEXES) {
    if (has.get(index)!.n) continue;
    db.transaction(() => {
      const block = db.prepare<[], { block: Uint8Array }>(`SELECT block FROM ${index}_data WHERE id = 1`).get()?.block;
      const t = recorded(block);
      const live = db
        .prepare<[], { n: number; t: number }>(`SELECT count(*) AS n, coalesce(sum(trove_docsize_tokens(sz)), 0) AS t FROM ${index}_docsize`)
        .get()!;
      insert.run(index, Math.max(0, t.rows - live.n), Math.max(0, t.tokens - live.t));
    })();
  }
}
