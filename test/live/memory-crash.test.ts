// kill -9 while memory batches are being written: every time, the database reopens cleanly
// (SQLite and FTS5 integrity checks), each atomic batch of 100 is there whole or not at all (its
// entries, tags, images, contents, chunks and keyword rows alike), and writing goes on afterwards.
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { killPoints } from '../helpers/kill-points.js';
import { tempDir } from '../helpers/tmp.js';

const CHILD = path.join(import.meta.dirname, 'memory-child.ts');
const KILLS = 8;

/** Runs the child until it has written `batches` batches, then waits `extraMs` and SIGKILLs it. */
function writeAndKill(profileDir: string, first: number, batches: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, profileDir, String(first)], { stdio: ['ignore', 'pipe', 'pipe'], cwd: path.resolve(import.meta.dirname, '..', '..') });
    let seen = 0;
    let killing = false;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      seen += (d.toString().match(/^batch /gm) ?? []).length;
      if (!killing && seen >= batches) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(seen) : reject(new Error(`memory child exited by itself: ${stderr}`))));
  });
}

interface Check {
  integrity: string;
  fts: string;
  /** thread → entries, for every thread with any */
  perThread: Map<string, number>;
  /** rows that do not add up: documents, keyword rows and contents must be one per entry */
  mismatches: number;
  /** the same for what every batch entry has: two tags each, one image per hundred */
  batchMismatches: number;
}

function check(file: string): Check {
  const db = new Database(file);
  try {
    let fts = 'ok';
    try {
      db.prepare("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')").run();
    } catch (err) {
      fts = (err as Error).message;
    }
    const rows = db.prepare('SELECT thread_id AS t, count(*) AS n FROM memory_entries GROUP BY thread_id').all() as { t: string; n: number }[];
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const entries = one('SELECT count(*) AS n FROM memory_entries');
    const mismatches =
      Math.abs(one("SELECT count(*) AS n FROM documents d JOIN collections c ON c.id = d.collection_id WHERE c.kind = 'memory'") - entries) +
      Math.abs(one('SELECT count(*) AS n FROM memory_fts') - entries) +
      Math.abs(one("SELECT count(*) AS n FROM content_blocks t JOIN documents d ON d.id = t.document_id WHERE d.kind = 'memory' AND t.start = 0") - entries);
    const batchMismatches = Math.abs(one('SELECT count(*) AS n FROM memory_tags') - 2 * entries) + Math.abs(one('SELECT count(*) AS n FROM memory_images') * 100 - entries);
    return { integrity: db.pragma('integrity_check', { simple: true }) as string, fts, perThread: new Map(rows.map((r) => [r.t, r.n])), mismatches, batchMismatches };
  } finally {
    db.close();
  }
}

describe('SIGKILL during memory batches', () => {
  test(`${KILLS} kills at seeded random points: every atomic batch is all there or not at all`, { timeout: 240_000 }, async () => {
    const profile = tempDir('trove-memory-crash-');
    const file = path.join(profile, 'index.sqlite');
    let next = 0;
    let partialBefore = 0;
    const points = killPoints(20261127);
    for (let i = 0; i < KILLS; i++) {
      const at = points.next(3, 12);
      const where = points.describe(i, at);
      const seen = await writeAndKill(profile, next, at.line, at.extraMs);
      next += seen + 5; // thread names never repeat, whatever the last one that made it
      const c = check(file);
      expect(c.integrity, where).toBe('ok');
      expect(c.fts, where).toBe('ok');
      expect(c.mismatches, where).toBe(0);
      expect(c.batchMismatches, where).toBe(0);
      for (const [thread, n] of c.perThread) expect(n, `${where}: ${thread}`).toBe(100);
      partialBefore += seen;
    }
    expect(partialBefore).toBeGreaterThan(0);
    // the store is usable afterwards: writes, keyword search and deletes still agree
    const engine = await Engine.open({ profileDir: profile });
    try {
      await engine.memory.store({ threadId: 'after', source: 'agent', text: 'Written after the crashes.' });
      const r = await engine.memory.search({ query: 'written after the crashes' });
      expect(r.hits.map((h) => h.entry.threadId)).toEqual(['after']);
      const batches = (await engine.memory.threads()).filter((t) => t.threadId.startsWith('b'));
      expect((await engine.memory.delete({ threadIds: batches.map((t) => t.threadId) })).deleted).toBe(batches.length * 100);
    } finally {
      await engine.close();
    }
    const c = check(file);
    expect([...c.perThread.keys()]).toEqual(['after']);
    expect(c.mismatches).toBe(0);
  });
});
