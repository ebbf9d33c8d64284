// Shared by the crash test and the soak bench: run the indexing child and SIGKILL it at a chosen
// progress line, and take a snapshot of an index that two runs can be compared by.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { registerBlockFunctions, wholeTextSql } from '../../src-main/engine/store/content-blocks.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'index-child.ts');

export interface ChildRun {
  /** Progress lines seen before the end (or the kill). */
  lines: number;
  killed: boolean;
  finished: boolean;
}

/**
 * Runs the child; when it has printed `killAtLine` progress lines it waits `extraMs` (so the
 * kill can land inside a transaction) and sends SIGKILL. killAtLine < 0: let it finish.
 */
export function runChild(profileDir: string, root: string, batchFiles: number, killAtLine: number, extraMs = 0): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, profileDir, root, String(batchFiles)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: path.resolve(path.dirname(CHILD), '..', '..'),
    });
    let lines = 0;
    let finished = false;
    let killing = false;
    let stderr = '';
    let pending = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts) {
        if (line === 'done') finished = true;
        if (!line.startsWith('progress') && line !== 'ready') continue;
        lines++;
        if (!killing && killAtLine >= 0 && lines >= killAtLine) {
          killing = true;
          setTimeout(() => child.kill('SIGKILL'), extraMs);
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ lines, killed: true, finished });
      else if (code === 0) resolve({ lines, killed: false, finished });
      else reject(new Error(`index child exited with ${code}: ${stderr}`));
    });
  });
}

export interface IndexSnapshot {
  documents: string[];
  chunks: number;
  ftsRows: number;
  jobs: number;
  integrity: string;
  ftsIntegrity: string;
  duplicatePaths: number;
}

/** Everything two runs must agree on (docids are random per run, so they are left out). The engine must be closed. */
export function snapshot(databaseFile: string): IndexSnapshot {
  const db = new Database(databaseFile); // the engine is closed; FTS5's integrity-check is an INSERT
  registerBlockFunctions(db);
  try {
    const docs = db
      .prepare(
        `SELECT d.path, d.hash, d.status, d.title, d.kind, d.size, coalesce(d.error, '') AS error,
                (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunks,
                length(${wholeTextSql('d.id')}) AS chars
           FROM documents d ORDER BY d.path`,
      )
      .all() as Record<string, unknown>[];
    let ftsIntegrity = 'ok';
    try {
      db.prepare("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')").run(); // writes nothing; throws on corruption
    } catch (err) {
      ftsIntegrity = (err as Error).message;
    }
    return {
      documents: docs.map((d) => Object.values(d).join('|')),
      chunks: (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n,
      ftsRows: (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n,
      jobs: (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n,
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      ftsIntegrity,
      duplicatePaths: (db.prepare('SELECT count(*) - count(DISTINCT collection_id || path) AS n FROM documents').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}
