// The WAL checkpointer's thread (store/wal-checkpointer.ts): its own connection to the index,
// which copies committed WAL frames into the database file while the engine's connection goes on
// writing. A PASSIVE checkpoint never waits for the writer nor for readers: it copies what no
// reader still needs and leaves the rest for the next round. Once it has copied everything, the
// writer's next transaction starts the WAL over from its beginning, so the WAL stays about one
// round of writes long.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface CheckpointerInit {
  file: string;
  /** How often the WAL is looked at; a checkpoint runs when it changed since the last one. */
  periodMs: number;
}

/** What the thread reports when asked (tests, status) and when it closes. */
export interface CheckpointerStats {
  /** Checkpoints run. */
  runs: number;
  /** Frames in the WAL and frames copied into the database by the last one. */
  lastLog: number;
  lastCheckpointed: number;
  /** The last checkpoint's error, if it failed (it is tried again next round). */
  lastError: string | null;
}

export type CheckpointerRequest = { type: 'stats' } | { type: 'close' };
export type CheckpointerReply = { type: 'stats' | 'closed'; stats: CheckpointerStats };

const init = workerData as CheckpointerInit;
const port = parentPort!;
const db = new Database(init.file, { fileMustExist: true });
db.pragma('busy_timeout = 0'); // never wait for the writer: a busy round is tried again later
const stats: CheckpointerStats = { runs: 0, lastLog: 0, lastCheckpointed: 0, lastError: null };
let seen = '';

function walStamp(): string {
  try {
    const s = fs.statSync(`${init.file}-wal`);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return ''; // no WAL (yet)
  }
}

function round(): void {
  const stamp = walStamp();
  if (!stamp || stamp === seen) return;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    stats.runs++;
    stats.lastLog = r?.log ?? 0;
    stats.lastCheckpointed = r?.checkpointed ?? 0;
    stats.lastError = null;
    // what this round left behind (a reader's snapshot) is copied next time, even if nothing is written meanwhile
    seen = stats.lastCheckpointed < stats.lastLog ? '' : walStamp();
  } catch (err) {
    stats.lastError = err instanceof Error ? err.message : String(err);
  }
}

const timer = setInterval(round, init.periodMs);
port.on('message', (m: CheckpointerRequest) => {
  if (m.type === 'stats') return port.postMessage({ type: 'stats', stats } satisfies CheckpointerReply);
  clearInterval(timer);
  db.close();
  port.postMessage({ type: 'closed', stats } satisfies CheckpointerReply);
  port.close();
});
