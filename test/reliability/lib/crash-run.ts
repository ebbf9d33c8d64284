// The crash suites' machinery: run crash-child.ts, SIGKILL it at a chosen step (or cap the files
// it may write, so the disk is "full" for it), and snapshot an index — rows, FTS and vectors — so a
// resumed index can be compared with one built without interruption.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { snapshot, type IndexSnapshot } from '../../live/crash-helpers.js';

const CHILD = path.join(import.meta.dirname, 'crash-child.ts');
const REPO = path.resolve(import.meta.dirname, '..', '..', '..');

export type CrashMode = 'index' | 'embed' | 'switch' | 'memory';

export interface CrashRun {
  lines: number;
  killed: boolean;
  finished: boolean;
  code: number | null;
  stderr: string;
}

export interface CrashRunOptions {
  mode: CrashMode;
  profileDir: string;
  root: string;
  model?: string;
  /** SIGKILL once this many step lines were printed (after extraMs); < 0: let it run. */
  killAtLine?: number;
  extraMs?: number;
  /** The largest file the child may write, in KB (RLIMIT_FSIZE): past it every write fails, like a full disk. */
  fileSizeLimitKb?: number;
}

export function runCrashChild(o: CrashRunOptions): Promise<CrashRun> {
  const node = [process.execPath, '--import', 'tsx', CHILD, o.mode, o.profileDir, o.root, ...(o.model ? [o.model] : [])];
  const [command, args] = o.fileSizeLimitKb
    ? ['sh', ['-c', `ulimit -f ${Math.ceil(o.fileSizeLimitKb)} && exec "$@"`, 'sh', ...node]]
    : [node[0]!, node.slice(1)];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, args as string[], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let finished = false;
    let killing = false;
    let stderr = '';
    let pending = '';
    const killAt = o.killAtLine ?? -1;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts) {
        if (line === 'done') finished = true;
        if (!line.startsWith('progress') && line !== 'ready') continue;
        lines++;
        if (!killing && killAt >= 0 && lines >= killAt) {
          killing = true;
          setTimeout(() => child.kill('SIGKILL'), o.extraMs ?? 0);
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ lines, killed: signal === 'SIGKILL', finished, code, stderr }));
  });
}

export interface FullSnapshot extends IndexSnapshot {
  /** Per collection: active model, whether a switch is still building, vector count and a digest of every vector by (path, chunk). */
  vectors: string[];
  /** Agent memory: every entry (id, thread, source, tags; not its times), its keyword rows, and memory_fts's integrity-check. */
  memory: { entries: string[]; ftsRows: number; ftsIntegrity: string };
}

export function snapshotWithVectors(databaseFile: string): FullSnapshot {
  const base = snapshot(databaseFile);
  const db = new Database(databaseFile, { readonly: true });
  try {
    sqliteVec.load(db);
    const rows = db
      .prepare(
        `SELECT cv.collection_id AS cid, s.id AS space, s.model_id AS model, cv.building_space_id AS building
           FROM collection_vectors cv LEFT JOIN vector_spaces s ON s.id = cv.active_space_id ORDER BY cv.collection_id`,
      )
      .all() as { cid: number; space: number | null; model: string | null; building: number | null }[];
    const vectors = rows.map((r) => {
      if (r.space === null) return `${r.cid}: no active space, building ${r.building ?? '-'}`;
      const vecs = db
        .prepare(
          `SELECT d.path, c.ordinal, v.embedding FROM vec_space_${Math.trunc(r.space)} v
             JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
            WHERE v.collection_id = ? ORDER BY d.path, c.ordinal`,
        )
        .all(r.cid) as { path: string; ordinal: number; embedding: Buffer }[];
      const h = crypto.createHash('sha256');
      for (const v of vecs) h.update(`${v.path}\0${v.ordinal}\0`).update(v.embedding);
      return `${r.cid}: ${r.model} ${vecs.length} vectors ${h.digest('hex').slice(0, 16)}, building ${r.building === null ? 'none' : 'yes'}`;
    });
    return { ...base, vectors, memory: memorySnapshot(databaseFile) };
  } finally {
    db.close();
  }
}

function memorySnapshot(databaseFile: string): FullSnapshot['memory'] {
  const db = new Database(databaseFile); // FTS5's integrity-check is an INSERT (it writes nothing)
  try {
    return memoryRows(db);
  } finally {
    db.close();
  }
}

function memoryRows(db: Database.Database): FullSnapshot['memory'] {
  const entries = db
    .prepare(
      `SELECT e.id, e.thread_id, e.source, d.path, (SELECT group_concat(tag, ',') FROM (SELECT tag FROM memory_tags t WHERE t.entry_id = e.id ORDER BY tag)) AS tags
         FROM memory_entries e JOIN documents d ON d.id = e.document_id ORDER BY e.id`,
    )
    .all() as Record<string, unknown>[];
  let ftsIntegrity = 'ok';
  try {
    db.prepare("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')").run();
  } catch (err) {
    ftsIntegrity = (err as Error).message;
  }
  return { entries: entries.map((e) => Object.values(e).join('|')), ftsRows: (db.prepare('SELECT count(*) AS n FROM memory_fts').get() as { n: number }).n, ftsIntegrity };
}
