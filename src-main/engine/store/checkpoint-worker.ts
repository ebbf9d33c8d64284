// The WAL checkpointer's thread (store/wal-checkpointer.ts): its own connection to the index,
// which copies committed WAL frames into the database file while the engine's connection goes on
// writing. A PASSIVE checkpoint never waits for the writer nor for readers: it copies what no
// reader still needs and leaves the rest for the next round.
//
// When: it reads how far the WAL runs (mxFrame) and how much of it is already in the database file
// (nBackfill) from the wal-index header in the -shm file (https://www.sqlite.org/walformat.html,
// "The WAL-Index Format": mxFrame at byte 16, nBackfill at byte 96, in the machine's byte order),
// and checkpoints once a batch of frames has piled up, or once writes have paused for a second
// with any frames left. Each checkpoint syncs both files: one after every small write would cost
// more than it saves, where SQLite's own threshold syncs nothing until 16 MB have piled up.
//
// The -shm descriptor is closed only after this thread's connection, and the thread is closed
// after the writer's (Engine.close): closing any descriptor of a file releases every POSIX lock the
// process holds on it, SQLite's own included.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface CheckpointerInit {
  file: string;
  /** How often the wal-index header is read. */
  pollMs: number;
  /** Frames not yet in the database file that start a checkpoint even while writes go on. */
  batchFrames: number;
  /** How long the WAL must stay unchanged before the frames left in it are copied. */
  quietMs: number;
}

/** What the thread reports when asked (tests, benches). */
export interface CheckpointerStats {
  /** Checkpoints run (a checkpoint may copy only part of the WAL: what no reader still needs). */
  runs: number;
  /** Frames in the WAL and frames in the database file after the last one. */
  lastLog: number;
  lastCheckpointed: number;
  /** The last checkpoint's error, if it failed (it is tried again at the next poll). */
  lastError: string | null;
}

export type CheckpointerRequest = { type: 'stats' } | { type: 'close' };
export type CheckpointerReply = { type: 'stats'; stats: CheckpointerStats } | { type: 'closed' };

const init = workerData as CheckpointerInit;
const port = parentPort!;
const db = new Database(init.file, { fileMustExist: true });
db.pragma('busy_timeout = 0'); // never wait: a busy round is tried again at the next poll
const stats: CheckpointerStats = { runs: 0, lastLog: 0, lastCheckpointed: 0, lastError: null };
const header = Buffer.alloc(100);
const readU32 = os.endianness() === 'LE' ? (at: number) => header.readUInt32LE(at) : (at: number) => header.readUInt32BE(at);
let shm: number | null = null;
let lastMxFrame = -1;
let changedAt = performance.now();

/** The WAL's frame count and how many of them the database file holds, or null before there is a WAL. */
function walState(): { mxFrame: number; backfilled: number } | null {
  try {
    shm ??= fs.openSync(`${init.file}-shm`, 'r');
    if (fs.readSync(shm, header, 0, header.length, 0) < header.length || header[12] === 0) return null; // not initialised yet
    return { mxFrame: readU32(16), backfilled: readU32(96) };
  } catch {
    return null; // no -shm yet (no WAL): looked for again at the next poll
  }
}

function poll(): void {
  const wal = walState();
  if (!wal) return;
  const now = performance.now();
  if (wal.mxFrame !== lastMxFrame) {
    lastMxFrame = wal.mxFrame;
    changedAt = now;
  }
  const pending = wal.mxFrame - wal.backfilled;
  if (pending <= 0 || (pending < init.batchFrames && now - changedAt < init.quietMs)) return;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    stats.runs++;
    stats.lastLog = r?.log ?? 0;
    stats.lastCheckpointed = r?.checkpointed ?? 0;
    stats.lastError = null;
  } catch (err) {
    stats.lastError = err instanceof Error ? err.message : String(err);
  }
}

const timer = setInterval(poll, init.pollMs);
port.on('message', (m: CheckpointerRequest) => {
  if (m.type === 'stats') return port.postMessage({ type: 'stats', stats } satisfies CheckpointerReply);
  clearInterval(timer);
  db.close();
  if (shm !== null) fs.closeSync(shm); // after the connection: see the top of this file
  port.postMessage({ type: 'closed' } satisfies CheckpointerReply);
  port.close();
});
