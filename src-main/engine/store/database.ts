// Opens the profile's SQLite database and brings its schema up to date.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { TroveError } from '../errors.js';
import { createPrivateFile, ensurePrivateDir, tightenFile } from '../profile.js';
import { packText, packWhole, recodeBrotliBlock, registerBlockFunctions } from './content-blocks.js';
import { ensureDeletedCounts, registerFtsFunctions } from './fts-totals.js';
import { migrations } from './migrations.js';
import { loadRankExtension, type RankExtensionOptions } from './rank-extension.js';

export type Db = Database.Database;

/** The writer's own checkpoint threshold, in pages of WAL; where a checkpoint thread runs (store/wal-checkpointer.ts) it is the safety net. */
export const INLINE_CHECKPOINT_PAGES = 4000;

export function openDatabase(file: string, opts: { nativeRank?: RankExtensionOptions } = {}): Db {
  if (file !== ':memory:') {
    // the index holds every document's text: owner-only at rest, the WAL and shm files included
    // (SQLite creates them with the database file's mode; older profiles are tightened here)
    ensurePrivateDir(path.dirname(file));
    createPrivateFile(file);
    for (const extra of ['-wal', '-shm']) tightenFile(file + extra);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable across app crashes, fast commits
  // Checkpoint every ~16 MB of WAL rather than SQLite's 4 MB: each checkpoint syncs the WAL and the
  // database file, and a writer waits for both. With memory batches the 4 MB checkpoint was a third
  // of the wall time under disk contention (bench:memory-engine --anatomy: CPU the same, fewer waits).
  db.pragma(`wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536'); // 64 MB: FTS5 segment merges thrash the default 2 MB cache
  db.pragma('temp_store = MEMORY');
  loadRankExtension(db, opts.nativeRank); // optional: keyword search falls back to bm25()
  registerFtsFunctions(db);
  registerBlockFunctions(db);
  registerMigrationFunctions(db);
  migrate(db);
  ensureDeletedCounts(db);
  return db;
}

/** What migrations written in SQL call on JavaScript for: the conversion of texts to compressed blocks, and of blocks to the current codec. */
export function registerMigrationFunctions(db: Db): void {
  db.function('trove_recode_block', { deterministic: true }, (v: unknown) => (v instanceof Uint8Array ? recodeBrotliBlock(v) : v));
  db.table('trove_blocks', {
    columns: ['start', 'data'],
    parameters: ['text', 'whole'],
    *rows(text: unknown, whole: unknown) {
      if (typeof text !== 'string') return;
      yield* whole ? packWhole(text) : packText(text);
    },
  });
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new TroveError(
      'INTERNAL',
      `index database was written by a newer Trove (schema ${current}, this build knows ${migrations.length})`,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/**
 * A write that failed because the disk holding the index is full (or the file-size limit or the
 * device failed) as a clear IO error; null for any other error. Transactions roll back, so the
 * index stays as it was before the batch and the work stays queued.
 */
export function storageError(err: unknown): TroveError | null {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  if (!/^(SQLITE_FULL|SQLITE_IOERR|ENOSPC|EFBIG|EDQUOT)/.test(code) && !/database or disk is full|disk I\/O error/i.test(message)) return null;
  return new TroveError(
    'IO',
    `the disk holding the index is full or failing (${message}); indexing stopped and nothing indexed so far is lost — free some space and run it again, it resumes where it stopped`,
  );
}

/** A SQLite index file and its WAL, in bytes. */
export function databaseFileBytes(file: string): number {
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += fs.statSync(file + suffix).size;
    } catch {
      /* no WAL yet (or an in-memory database) */
    }
  }
  return bytes;
}
