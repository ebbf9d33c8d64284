// Every request the host refuses at the door — a bad Host or Origin (DNS rebinding), no or a bad
// token, too large, too many, malformed — is logged on stderr (the host log): method, path, status
// and reason, never a token, a header value or any body. A flood is summarised instead of logged
// line by line, and each reason is counted (status, tests and the attack bench read the counts).
import type { IncomingMessage } from 'node:http';

export class RefusalLog {
  private readonly counts = new Map<string, number>();
  private windowStart = 0;
  private inWindow = 0;
  private suppressed = 0;

  constructor(
    private readonly write: (line: string) => void = (l) => void process.stderr.write(l),
    private readonly perWindow = 20,
    private readonly windowMs = 10_000,
  ) {}

  refused(req: Pick<IncomingMessage, 'method' | 'url'> | null, status: number, reason: string): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed) this.write(`[trove host] ${this.suppressed} more requests refused in the last ${Math.round(this.windowMs / 1000)} s\n`);
      this.windowStart = now;
      this.inWindow = 0;
      this.suppressed = 0;
    }
    if (++this.inWindow > this.perWindow) {
      this.suppressed++;
      return;
    }
    const what = req ? `${req.method ?? '?'} ${(req.url ?? '').split('?')[0]!.slice(0, 200)}` : 'a connection';
    this.write(`[trove host] refused ${what}: ${status} ${reason}\n`);
  }

  /** Refusals so far, by reason. */
  totals(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
