// Upgrading an index written before agent memory: the memory tables appear, and existing tokens
// get a memory grant that keeps what they meant — a token of every collection keeps seeing
// everything (write), a token scoped to some collections sees no memory (none). SQLite only: the
// schema migrations of a profile's file written by an older Trove (PostgreSQL's schema starts
// with memory and grants in it).
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { migrations } from '../../src-main/engine/store/migrations.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

it('gives tokens written before memory a grant that matches their scope, and adds the memory tables', async () => {
  const profile = tempDir('trove-profile-');
  const file = path.join(profile, 'index.sqlite');
  const memoryTables = migrations.findIndex((m) => m.includes('CREATE TABLE memory_entries'));
  const grants = migrations.findIndex((m) => m.includes('ALTER TABLE access_tokens ADD COLUMN memory'));
  expect(memoryTables).toBeGreaterThan(0);
  expect(grants).toBeGreaterThan(0);
  // the schema as it was before both (other migrations may be appended after them on main)
  const db = new Database(file);
  const before = Math.min(memoryTables, grants);
  for (let v = 0; v < before; v++) db.exec(migrations[v]!);
  db.pragma(`user_version = ${before}`);
  db.prepare("INSERT INTO collections (name, root, include_globs, exclude_globs, created_at, updated_at) VALUES ('notes', ?, '[]', '[]', 0, 0)").run(profile);
  const insert = db.prepare('INSERT INTO access_tokens (name, hash, hint, scoped, tools, created_at) VALUES (?, ?, ?, ?, NULL, 0)');
  insert.run('everything', 'a'.repeat(64), 'trove_aaaa', 0);
  const scoped = Number(insert.run('notes-only', 'b'.repeat(64), 'trove_bbbb', 1).lastInsertRowid);
  db.prepare('INSERT INTO access_token_collections (token_id, collection_id) VALUES (?, 1)').run(scoped);
  db.close();

  const engine = await Engine.open({ profileDir: profile });
  try {
    expect((await engine.listTokens()).map((t) => [t.name, t.memory])).toEqual([
      ['everything', 'write'],
      ['notes-only', 'none'],
    ]);
    expect((await engine.memory.store({ threadId: 't', source: 'user', text: 'After the upgrade.' })).id).toBe(1);
    expect((await engine.memory.statistics()).entries).toBe(1);
  } finally {
    await engine.close();
  }
});
