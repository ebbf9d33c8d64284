// A token bucket per access token: bursts are fine, sustained floods are refused with 429.
// The host's own runtime token is not limited (it is the user's own app and shim).
export interface RateLimitOptions {
  /** Sustained requests per second per token. */
  perSecond: number;
  /** Requests allowed in a burst. */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { perSecond: 20, burst: 120 };

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly opts: RateLimitOptions = DEFAULT_RATE_LIMIT) {}

  /** 0 when the request may go ahead, else the seconds to wait. */
  take(key: string, now = Date.now()): number {
    const b = this.buckets.get(key) ?? { tokens: this.opts.burst, at: now };
    b.tokens = Math.min(this.opts.burst, b.tokens + ((now - b.at) / 1000) * this.opts.perSecond);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / this.opts.perSecond);
  }
}
