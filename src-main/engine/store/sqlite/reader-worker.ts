// One reader thread of the SQLite storage's reader pool (reader-pool.ts): its own read-only
// connection to the index file, with what the engine's connection loads for the statements sent
// here — the native BM25 function (trove_bm25), the path-glob filter (trove_path_matches), the
// Unicode case fold of memory filters (trove_fold), the FTS totals helper, the inflate of
// compressed text blocks (trove_inflate) and sqlite-vec (the kNN of a vector search). It runs the
// SQL it is sent ({sql, params}) and sends the rows back; statements are prepared once per SQL text.
//
// What it sees: WAL gives each statement a snapshot of the last committed transaction when the
// statement starts, never a half-written batch (the writer's transactions are synchronous on the
// engine's thread, so a read sent after a commit sees it). See reader-pool.ts for why that is
// enough for the engine's caches.
import { parentPort, workerData } from 'node:worker_threads';
import Database, { type Statement } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { registerBlockFunctions } from '../content-blocks.js';
import { registerFtsFunctions } from '../fts-totals.js';
import { fold } from '../memory-conditions.js';
import { loadRankExtension, type RankExtensionOptions } from '../rank-extension.js';
import { registerFilterFunctions } from './filters.js';
import { runStatement, type ReadMode } from './read-mode.js';

export type { ReadMode };

export interface ReaderInit {
  file: string;
  nativeRank?: RankExtensionOptions;
}

export interface ReadRequest {
  id: number;
  sql: string;
  params: unknown[];
  mode: ReadMode;
}

export type ReadReply = { id: number; rows: unknown } | { id: number; error: { message: string; code?: string } };

/** Statements kept per SQL text: keyword search writes a few dozen shapes (filters, phrase counts). */
const MAX_STATEMENTS = 256;

const init = workerData as ReaderInit;
const port = parentPort!;
const db = new Database(init.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000'); // a WAL reader waits only while a connection is opening or recovering the WAL
db.pragma('cache_size = -8192'); // 8 MB per reader: FTS5 doclists and b-tree pages of the hot terms (the OS page cache holds the rest)
loadRankExtension(db, init.nativeRank);
registerFilterFunctions(db);
registerFtsFunctions(db);
registerBlockFunctions(db);
sqliteVec.load(db);
db.function('trove_fold', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v));

const statements = new Map<string, Statement>();

function statement(sql: string): Statement {
  let stmt = statements.get(sql);
  if (stmt) {
    statements.delete(sql); // least recently used goes first
    statements.set(sql, stmt);
    return stmt;
  }
  stmt = db.prepare(sql);
  if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
  statements.set(sql, stmt);
  return stmt;
}

function run(m: ReadRequest): unknown {
  return runStatement(statement(m.sql), m.params, m.mode);
}

function answer(m: ReadRequest): ReadReply {
  try {
    return { id: m.id, rows: run(m) };
  } catch (err) {
    const e = err as { message?: string; code?: unknown };
    return { id: m.id, error: { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) } };
  }
}

// reads come in batches (those the engine asked for in one turn: reader-pool.ts) and go back so
port.on('message', (m: ReadRequest[] | { type: 'close' }) => {
  if (Array.isArray(m)) return port.postMessage(m.map(answer));
  db.close();
  port.close();
});
