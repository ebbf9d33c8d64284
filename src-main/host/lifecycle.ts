// When a host should stop by itself. Any host whose profile folder disappears (deleted, or
// replaced by another folder of the same name) shuts down cleanly: its index and runtime file are
// gone, and serving on would only confuse the clients that find a new one. A host the stdio shim
// started for a client also stops after a spell with no clients (no open request, stream or
// session) and no background work (indexing or embedding); the desktop app's and `trove serve`'s
// hosts are started by a person and stay.
import fs from 'node:fs';

export interface LifecycleOptions {
  profileDir: string;
  /** Stop after this long without clients or work; undefined: never (the person's own hosts). */
  idleExitMs?: number;
  /** How often to look (default 2 s, or a quarter of idleExitMs when that is shorter). */
  checkEveryMs?: number;
  /** Clients are connected or work is in hand right now. */
  busy(): boolean;
  /** When a client was last seen (a request started or ended), ms since the epoch. */
  lastActivityAt(): number;
  onStop(reason: string): void;
}

export interface LifecycleWatch {
  stop(): void;
}

export function watchLifecycle(opts: LifecycleOptions): LifecycleWatch {
  const identity = folderIdentity(opts.profileDir);
  let idleSince = Date.now();
  const every = opts.checkEveryMs ?? Math.max(50, Math.min(2000, (opts.idleExitMs ?? Infinity) / 4));
  const check = () => {
    const now = folderIdentity(opts.profileDir);
    if (!now || (identity && now !== identity)) return finish(`its profile folder ${opts.profileDir} is gone`);
    if (opts.idleExitMs === undefined) return;
    if (opts.busy()) idleSince = Date.now();
    const quietFor = Date.now() - Math.max(idleSince, opts.lastActivityAt());
    if (quietFor >= opts.idleExitMs) finish(`no clients and no indexing work for ${Math.round(quietFor / 1000)} s`);
  };
  const timer = setInterval(check, every);
  timer.unref();
  let done = false;
  function finish(reason: string): void {
    if (done) return;
    done = true;
    clearInterval(timer);
    opts.onStop(reason);
  }
  return { stop: () => ((done = true), clearInterval(timer)) };
}

/** device:inode of the folder, or null when it does not exist. */
function folderIdentity(dir: string): string | null {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}
