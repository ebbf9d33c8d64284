// Admission control for tool calls: a bounded number in flight and a short queue with a deadline.
// Every call runs on the host's one JavaScript thread, so letting 32 clients' calls in at once does
// not serve them sooner — it interleaves them, stretching each one's time, growing the heap with
// their intermediate results and starving the indexing loop of turns. Here at most `maxInFlight`
// calls run; the next ones wait in arrival order; a call that has waited `maxWaitMs` (or that is
// estimated on arrival, from the recent service time, to wait more than twice that) is answered
// with a retryable `busy` error and a retry-after hint, never left to stall for seconds.
// docs/mcp-tools.md ("Busy") documents the error.

/** The JSON-RPC error code of a `busy` answer (in the range JSON-RPC leaves to the server). */
export const BUSY_ERROR_CODE = -32029;

export interface AdmissionOptions {
  /** Calls running at once (default 6). */
  maxInFlight?: number;
  /** The longest a call waits for its turn before it is answered busy (default 1 s). */
  maxWaitMs?: number;
  /** Calls waiting at once (default 128); one more is answered busy at once. */
  maxQueue?: number;
}

export const DEFAULT_ADMISSION: Required<AdmissionOptions> = { maxInFlight: 6, maxWaitMs: 1000, maxQueue: 128 };

/** A call let in: `release()` (idempotent) frees its slot for the next one. */
export interface Admitted {
  ok: true;
  release(): void;
}

/** A call turned away: why, and when to try again. */
export interface Refused {
  ok: false;
  retryAfterMs: number;
  reason: 'queue-full' | 'wait-too-long';
}

interface Waiter {
  resolve(a: Admitted | Refused): void;
  timer: NodeJS.Timeout;
}

/** What status and tests read. */
export interface AdmissionStats {
  inFlight: number;
  waiting: number;
  admitted: number;
  busy: number;
  /** The recent service time of one call (exponentially weighted), ms. */
  serviceMs: number;
}

const MIN_RETRY_MS = 50;
const MAX_RETRY_MS = 5_000;

export class Admission {
  private readonly limits: Required<AdmissionOptions>;
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  private admitted = 0;
  private busy = 0;
  private serviceMs = 20;

  constructor(opts: AdmissionOptions = {}) {
    this.limits = { ...DEFAULT_ADMISSION, ...definedOnly(opts) };
    if (!(this.limits.maxInFlight >= 1)) throw new RangeError('admission: maxInFlight must be at least 1');
  }

  /** Resolves when the call may run (then `release()` it when its answer is written), or with a refusal. */
  admit(): Promise<Admitted | Refused> {
    if (this.inFlight < this.limits.maxInFlight && this.queue.length === 0) return Promise.resolve(this.start());
    const expected = this.expectedWaitMs(this.queue.length + 1);
    if (this.queue.length >= this.limits.maxQueue) return Promise.resolve(this.refuse('queue-full', expected));
    // refused on arrival only when the estimate is well past the bound: the estimate is rough (calls
    // vary), and a client told to come back sleeps through time the queue might have served it in
    if (expected > 2 * this.limits.maxWaitMs) return Promise.resolve(this.refuse('wait-too-long', expected));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          resolve(this.refuse('wait-too-long', this.expectedWaitMs(this.queue.length + 1)));
        }, this.limits.maxWaitMs),
      };
      waiter.timer.unref();
      this.queue.push(waiter);
    });
  }

  stats(): AdmissionStats {
    return { inFlight: this.inFlight, waiting: this.queue.length, admitted: this.admitted, busy: this.busy, serviceMs: Math.round(this.serviceMs * 10) / 10 };
  }

  /** Turns every waiting call away (the endpoint is closing). */
  close(): void {
    for (const w of this.queue.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(this.refuse('queue-full', MIN_RETRY_MS));
    }
  }

  private start(): Admitted {
    this.inFlight++;
    this.admitted++;
    const started = performance.now();
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
        // how long a call holds its slot: what a newcomer's wait is estimated from
        this.serviceMs = 0.9 * this.serviceMs + 0.1 * (performance.now() - started);
        this.next();
      },
    };
  }

  private next(): void {
    while (this.inFlight < this.limits.maxInFlight && this.queue.length) {
      const w = this.queue.shift()!;
      clearTimeout(w.timer);
      w.resolve(this.start());
    }
  }

  /** How long the call at `position` in the queue would wait: the calls ahead of it, served `maxInFlight` at a time. */
  private expectedWaitMs(position: number): number {
    return Math.ceil(position / this.limits.maxInFlight) * this.serviceMs;
  }

  /** The hint: when the wait should fit in the bound again (the expected wait beyond it). */
  private refuse(reason: Refused['reason'], expectedMs: number): Refused {
    this.busy++;
    return { ok: false, reason, retryAfterMs: Math.round(Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, expectedMs - this.limits.maxWaitMs))) };
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
