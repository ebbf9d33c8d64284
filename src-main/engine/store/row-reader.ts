// How a statement's rows are read: on the calling connection, or on a reader thread (the SQLite
// storage's reader pool: sqlite/reader-pool.ts). A store whose reads are heavy (the counts walk
// every chunk; a kNN compares every vector of a collection) takes one, so a host runs them off its
// engine thread.
import type { Statement } from 'better-sqlite3';

export type RowReader = <T>(stmt: Statement, params: unknown[]) => Promise<T>;

/** Every row, on the statement's own connection. */
export const readHere: RowReader = async <T>(stmt: Statement, params: unknown[]) => stmt.all(...params) as T;
