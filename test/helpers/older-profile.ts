// A profile as an older Trove left it, for the migration tests: the SQLite migrations before the
// first one whose SQL contains a marker applied by hand, with a folder collection and a memory
// collection to put documents in. The test adds its older rows, closes `db`, and opens an engine.
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { registerMigrationFunctions } from '../../src-main/engine/store/database.js';
import { migrations } from '../../src-main/engine/store/migrations.js';
import { tempDir } from './tmp.js';

export function profileBefore(marker: string) {
  const profile = tempDir('trove-profile-');
  const file = path.join(profile, 'index.sqlite');
  const before = migrations.findIndex((m) => m.includes(marker));
  expect(before).toBeGreaterThan(0);
  const db = new Database(file);
  registerMigrationFunctions(db);
  for (const sql of migrations.slice(0, before)) db.exec(sql);
  db.pragma(`user_version = ${before}`);
  const folder = Number(db.prepare("INSERT INTO collections (name, root, include_globs, exclude_globs, created_at, updated_at) VALUES ('notes', ?, '[]', '[]', 0, 0)").run(profile).lastInsertRowid);
  const memory = Number(db.prepare("INSERT INTO collections (name, kind, root, include_globs, exclude_globs, created_at, updated_at) VALUES ('memory', 'memory', '', '[]', '[]', 0, 0)").run().lastInsertRowid);
  const documentStmt = db.prepare("INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, indexed_at, status, tags, metadata) VALUES (?, ?, ?, '', ?, 1, 1, 1, 'indexed', '[]', ?)");
  /** Adds a document row; its id. */
  const addDocument = (collection: number, relPath: string, docid: string, fields: { kind?: string; metadata?: unknown } = {}): number =>
    Number(documentStmt.run(collection, relPath, docid, fields.kind ?? 'text', JSON.stringify(fields.metadata ?? {})).lastInsertRowid);
  return { profile, file, db, folder, memory, addDocument };
}
