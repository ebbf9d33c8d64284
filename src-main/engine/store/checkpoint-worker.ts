// The WAL checkpointer's thread (store/wal-checkpointer.ts): its own connection to the index,
// which copies committed WAL frames into the database file while the engine's connection goes on
// writing. A PASSIVE checkpoint never waits for the writer nor for readers: it copies what no
// reader still needs and leaves the rest for the next round.
//
// When: it reads how far the WAL runs (mxFrame) and how much of it is already in the database file
// (nBackfill) from the wal-index header in the -shm file (https://www.sqlite.org/walformat.html,
// "The WAL-Index Format": mxFrame at byte 16, nBackfill at byte 96, in the machine's byte order),
// and checkpoints once a batch of frames has piled up, or once writes pause with any frames left.
// Each checkpoint syncs both files, so one per written frame would cost more than it saves.
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
}

/** What the thread reports when asked (tests, benches) and when it closes. */
export interface CheckpointerStats {
  /** Checkpoints run. */
  runs: number;
  /** Frames in the WAL and frames in the database file after the last one. */
  lastLog: number;
  lastCheckpointed: number;
  /** The last checkpoint's error, if it failed (it is tried again at the next poll). */
  lastError: string | null;
}

export type CheckpointerRequest = { type: 'stats' } | { type: 'close' };
export type CheckpointerReply = { type: 'stats' | 'closed'; stats: CheckpointerStats };

const init = workerData as CheckpointerInit;
const port = parentPort!;
const db = new Database(init.file, { fileMustExist: true });
db.pragma('busy_timeout = 0'); // never wait: a busy round is tried again at the next poll
const stats: CheckpointerStats = { runs: 0, lastLog: 0, lastCheckpointed: 0, lastError: null };
const header = Buffer.alloc(100);
const readU32 = os.endianness() === 'LE' ? (at: number) => header.readUInt32LE(at) : (at: number) => header.readUInt32BE(at);
let shm: number | null = null;
let lastMxFrame = -1;

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
  const pending = wal.mxFrame - wal.backfilled;
  const paused = wal.mxFrame === lastMxFrame;
  lastMxFrame = wal.mxFrame;
  if (pending <= 0 || (pending < init.batchFrames && !paused)) return;
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
  if (shm !== null) fs.closeSync(shm);
  db.close();
  port.postMessage({ type: 'closed', stats } satisfies CheckpointerReply);
  port.close();
});
