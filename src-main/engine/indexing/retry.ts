// When a job that failed runs again: exponential backoff, then give up until the file changes.
export interface RetryPolicy {
  /** Delay before the second attempt. */
  baseMs: number;
  /** Each further attempt waits this many times longer. */
  factor: number;
  /** Longest wait between attempts. */
  maxDelayMs: number;
  /** After this many failed attempts the job waits for the file to change (or an explicit index). */
  maxAttempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 5_000, factor: 4, maxDelayMs: 60 * 60_000, maxAttempts: 6 };

/** When attempt number `attempts + 1` should run, or null to give up. */
export function nextAttemptAt(policy: RetryPolicy, attempts: number, now: number): number | null {
  if (attempts >= policy.maxAttempts) return null;
  const delay = Math.min(policy.maxDelayMs, policy.baseMs * policy.factor ** Math.max(0, attempts - 1));
  return now + Math.max(1, Math.round(delay));
}
