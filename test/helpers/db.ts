// Read-only look at a profile's index database, for tests that must prove what the engine did
// (e.g. that an unchanged file was not parsed again: its indexed_at did not move).
import Database from 'better-sqlite3';
import { databasePath } from '../../src-main/engine/profile.js';

export interface DocRecord {
  path: string;
  docid: string;
  status: string;
  error: string | null;
  indexed_at: number;
  mtime_ms: number;
  hash: string | null;
}

export function documentRecords(profileDir: string): Map<string, DocRecord> {
  const db = new Database(databasePath(profileDir), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT path, docid, status, error, indexed_at, mtime_ms, hash FROM documents ORDER BY path').all() as DocRecord[];
    return new Map(rows.map((r) => [r.path, r]));
  } finally {
    db.close();
  }
}

export function chunkCount(profileDir: string, path: string): number {
  const db = new Database(databasePath(profileDir), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?').get(path) as { n: number }).n;
  } finally {
    db.close();
  }
}
