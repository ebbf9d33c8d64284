// Keeps the engine host alive: the Electron main process starts it in a utilityProcess, relays
// app API calls to it, and restarts it with exponential backoff when it dies. The process is
// behind `HostProcess` (and time behind `Clock`) so this logic is tested without Electron.
import type { ApiReply } from '../api/bridge.js';
import { fromHostSchema, type ToHost } from '../api/host-protocol.js';
import type { ApiEvent } from '../api/results.js';

export interface HostProcess {
  postMessage(message: ToHost): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Fires once when the process is gone, whatever the reason. */
  onExit(listener: (code: number) => void): void;
  kill(): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export type HostState = 'starting' | 'ready' | 'restarting' | 'failed' | 'stopped';

export interface SupervisorStatus {
  state: HostState;
  /** Restarts since the app started. */
  restarts: number;
  lastExitCode: number | null;
  /** When the next start is due (restarting only). */
  nextStartAt: number | null;
  endpoint: string | null;
  uiUrl: string | null;
  message: string | null;
}

export interface SupervisorOptions {
  launch: () => HostProcess;
  clock?: Clock;
  /** First restart delay; doubled for each crash in a row (default 500 ms). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A host that ran this long before dying is not "crashing in a row": backoff starts over. */
  stableAfterMs?: number;
  /** Give up (state failed) after this many crashes in a row; `restart()` tries again. */
  maxCrashesInARow?: number;
  /** How long `stop()` waits for a clean exit before killing. */
  stopTimeoutMs?: number;
  log?: (line: string) => void;
}

interface Pending {
  id: number;
  method: string;
  params: unknown;
  resolve: (r: ApiReply) => void;
  sent: boolean;
}

export class HostSupervisor {
  private readonly opts: Required<Omit<SupervisorOptions, 'launch' | 'clock' | 'log'>>;
  private readonly clock: Clock;
  private readonly log: (line: string) => void;
  private child: HostProcess | null = null;
  private startedAt = 0;
  private crashesInARow = 0;
  private restartTimer: unknown = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly eventListeners = new Set<(e: ApiEvent) => void>();
  private readonly statusListeners = new Set<(s: SupervisorStatus) => void>();
  private st: SupervisorStatus = { state: 'stopped', restarts: 0, lastExitCode: null, nextStartAt: null, endpoint: null, uiUrl: null, message: null };
  private stopping: Promise<void> | null = null;

  constructor(private readonly launchOpts: SupervisorOptions) {
    this.clock = launchOpts.clock ?? systemClock;
    this.log = launchOpts.log ?? ((l) => process.stderr.write(`trove app: ${l}\n`));
    this.opts = {
      initialBackoffMs: launchOpts.initialBackoffMs ?? 500,
      maxBackoffMs: launchOpts.maxBackoffMs ?? 30_000,
      stableAfterMs: launchOpts.stableAfterMs ?? 60_000,
      maxCrashesInARow: launchOpts.maxCrashesInARow ?? 8,
      stopTimeoutMs: launchOpts.stopTimeoutMs ?? 5_000,
    };
  }

  status(): SupervisorStatus {
    return { ...this.st };
  }

  onStatus(listener: (s: SupervisorStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onEvent(listener: (e: ApiEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  start(): void {
    if (this.child || this.stopping) return;
    this.spawn();
  }

  /** "Restart engine": a fresh host now (or after the shortest backoff), crash count reset. */
  restart(): void {
    if (this.stopping) return;
    this.crashesInARow = 0;
    if (this.restartTimer !== null) this.clock.clearTimeout(this.restartTimer);
    this.restartTimer = null;
    // a running host is killed; its exit handler starts the next one after the shortest backoff
    if (this.child) this.child.kill();
    else this.spawn();
  }

  /** Relays one app API call. Calls made while the host (re)starts wait for it to be ready. */
  call(method: string, params: unknown): Promise<ApiReply> {
    if (this.stopping || this.st.state === 'stopped' || this.st.state === 'failed') {
      return Promise.resolve(unavailable(this.st.state === 'failed' ? `the engine host keeps crashing (${this.st.message ?? 'no reason given'}); use Restart engine` : 'the engine host is not running'));
    }
    return new Promise((resolve) => {
      const p: Pending = { id: this.nextId++, method, params, resolve, sent: false };
      this.pending.set(p.id, p);
      if (this.st.state === 'ready') this.send(p);
    });
  }

  /** Asks the host to shut down cleanly; kills it if it does not exit in time. */
  stop(): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      if (this.restartTimer !== null) this.clock.clearTimeout(this.restartTimer);
      this.restartTimer = null;
      const child = this.child;
      if (!child) {
        this.setStatus({ state: 'stopped', nextStartAt: null });
        this.failPending('the app is quitting');
        resolve();
        return;
      }
      const killTimer = this.clock.setTimeout(() => child.kill(), this.opts.stopTimeoutMs);
      child.onExit(() => {
        this.clock.clearTimeout(killTimer);
        resolve();
      });
      child.postMessage({ kind: 'shutdown' });
    });
    return this.stopping;
  }

  private spawn(): void {
    this.restartTimer = null;
    this.setStatus({ state: 'starting', nextStartAt: null });
    const child = this.launchOpts.launch();
    this.child = child;
    this.startedAt = this.clock.now();
    child.onMessage((m) => {
      if (this.child === child) this.onHostMessage(m);
    });
    let exited = false;
    child.onExit((code) => {
      if (exited) return;
      exited = true;
      if (this.child === child) this.onHostExit(code);
    });
  }

  private onHostMessage(raw: unknown): void {
    const parsed = fromHostSchema.safeParse(raw);
    if (!parsed.success) {
      this.log('dropped a malformed message from the engine host');
      return;
    }
    const msg = parsed.data;
    if (msg.kind === 'ready') {
      this.setStatus({ state: 'ready', endpoint: msg.endpoint, uiUrl: msg.uiUrl, message: null });
      for (const p of this.pending.values()) if (!p.sent) this.send(p);
    } else if (msg.kind === 'reply') {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      p.resolve(msg.reply as ApiReply);
    } else if (msg.kind === 'event') {
      for (const l of this.eventListeners) l(msg.event as ApiEvent);
    } else {
      this.setStatus({ message: msg.message });
      this.log(`engine host reported a fatal error: ${msg.message}`);
    }
  }

  private onHostExit(code: number): void {
    this.child = null;
    const ranMs = this.clock.now() - this.startedAt;
    // calls already sent died with the host; calls not yet sent wait for the next one
    for (const p of [...this.pending.values()]) {
      if (!p.sent) continue;
      this.pending.delete(p.id);
      p.resolve(unavailable(`the engine host stopped (exit code ${code}) while answering ${p.method}; it is restarting, try again`));
    }
    if (this.stopping) {
      this.setStatus({ state: 'stopped', lastExitCode: code, nextStartAt: null });
      this.failPending('the app is quitting');
      return;
    }
    this.crashesInARow = ranMs >= this.opts.stableAfterMs ? 1 : this.crashesInARow + 1;
    this.log(`engine host exited with code ${code} after ${ranMs} ms (crash ${this.crashesInARow} in a row)`);
    if (this.crashesInARow > this.opts.maxCrashesInARow) {
      this.setStatus({ state: 'failed', lastExitCode: code, nextStartAt: null, message: this.st.message ?? `exit code ${code}` });
      this.failPending(`the engine host keeps crashing (exit code ${code}); use Restart engine`);
      return;
    }
    const delay = Math.min(this.opts.maxBackoffMs, this.opts.initialBackoffMs * 2 ** (this.crashesInARow - 1));
    this.setStatus({ state: 'restarting', lastExitCode: code, restarts: this.st.restarts + 1, nextStartAt: this.clock.now() + delay });
    this.restartTimer = this.clock.setTimeout(() => this.spawn(), delay);
  }

  private send(p: Pending): void {
    p.sent = true;
    this.child?.postMessage({ kind: 'call', id: p.id, method: p.method, params: p.params });
  }

  private failPending(message: string): void {
    for (const p of this.pending.values()) p.resolve(unavailable(message));
    this.pending.clear();
  }

  private setStatus(patch: Partial<SupervisorStatus>): void {
    this.st = { ...this.st, ...patch };
    const snap = this.status();
    for (const l of this.statusListeners) l(snap);
  }
}

function unavailable(message: string): ApiReply {
  return { ok: false, error: { code: 'UNAVAILABLE', message } };
}
