// WAL checkpoints on a thread of their own (store/wal-checkpointer.ts): with it running, the
// pages a writer commits reach the database file while the writer goes on, long before the writer's
// own threshold would have copied them, the WAL starts over instead of growing, the engine closes
// with every page in the database file, and a thread that cannot run leaves the writer as it was.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { openDatabase, type Db } from '../../src-main/engine/store/database.js';
import { WalCheckpointer } from '../../src-main/engine/store/wal-checkpointer.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

afterAll(removeTempDirs);

const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const MB = 1024 * 1024;

/** ~`mb` MB of rows in transactions of ~100 KB, as a busy writer commits them. */
function write(db: Db, mb: number, seed: number): void {
  const insert = db.prepare('INSERT INTO notes (body) VALUES (?)');
  const commit = db.transaction((rows: string[]) => rows.forEach((r) => insert.run(r)));
  for (let t = 0; t < mb * 10; t++) commit(Array.from({ length: 25 }, (_, i) => `${seed}-${t}-${i} `.repeat(600).slice(0, 4000)));
}

describe('the WAL checkpoint thread', () => {
  it('copies committed pages into the database file while the writer goes on, and the WAL starts over', async () => {
    const file = path.join(tempDir(), 'trove.db');
    const db = openDatabase(file);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const checkpointer = WalCheckpointer.start(file);
    try {
      const before = size(file);
      write(db, 8, 1); // 8 MB: half the writer's own threshold (16 MB), so only the thread can move it now
      await until(async () => size(file) - before, (grown) => grown > 7 * MB, 30_000, 'the pages copied into the database file');
      // the next writes start the WAL over from its beginning instead of appending to 8 MB of copied pages
      await until(() => checkpointer.stats(), (s) => s.lastLog > 0 && s.lastCheckpointed === s.lastLog, 30_000, 'the whole WAL copied');
      const wal = size(`${file}-wal`);
      write(db, 2, 2);
      expect(size(`${file}-wal`)).toBeLessThanOrEqual(wal);
      expect((await checkpointer.stats()).lastError).toBeNull();
    } finally {
      db.close(); // the writer first (as Engine.close does): the thread's connection closes last
      await checkpointer.close();
    }
    expect(fs.existsSync(`${file}-wal`)).toBe(false); // the thread's connection, the last, took the final checkpoint
    const again = openDatabase(file);
    expect(again.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 10 * 10 * 25 });
    again.close();
  });

  it('says so when it cannot run, and answers nothing once closed', async () => {
    const file = path.join(tempDir(), 'trove.db');
    openDatabase(file).close();
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const broken = WalCheckpointer.start(path.join(path.dirname(file), 'missing', 'trove.db'));
      await expect(broken.stats()).rejects.toThrow(/not running/);
      await broken.close();
      expect(said).toHaveBeenCalledWith(expect.stringMatching(/the WAL checkpoint thread stopped .*checkpoints run inside writes again/));
    } finally {
      said.mockRestore();
    }
    const working = WalCheckpointer.start(file);
    expect((await working.stats()).lastError).toBeNull();
    await working.close();
    await expect(working.stats()).rejects.toThrow(/not running/);
  });

  it('runs under an engine that asks for it: memory written reaches the database file while the engine is open, and all of it after close', async () => {
    const profile = tempDir();
    const engine = await Engine.open({ profileDir: profile, backgroundCheckpoints: true });
    const file = engine.location;
    const before = size(file);
    const text = (b: number, i: number) => `note ${b}.${i}: the checkpoint thread copies pages. `.repeat(40);
    for (let b = 0; b < 30; b++) {
      const stored = await engine.memory.storeBatch(Array.from({ length: 100 }, (_, i) => ({ threadId: 'wal', source: 'agent' as const, text: text(b, i) })));
      expect(stored.succeeded).toBe(100);
    }
    // far under the writer's own threshold: only the engine's thread copies it, once the writes pause
    await until(async () => size(file) - before, (grown) => grown > 2 * MB, 30_000, 'the pages copied into the database file');
    await engine.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const reopened = await Engine.open({ profileDir: profile });
    try {
      expect((await reopened.memory.statistics()).entries).toBe(3000);
    } finally {
      await reopened.close();
    }
  });
});
