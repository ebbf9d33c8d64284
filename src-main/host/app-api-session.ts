// Who may use the web UI's API: a browser that signed in with a one-time code (printed by
// `trove serve --ui` and written to runtime.json as uiUrl) holds an HttpOnly, SameSite=Strict
// session cookie. Codes and sessions live in memory: a restarted host asks for a new sign-in.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'trove_session';
/** An unused sign-in code expires; a session lasts until the host stops. */
const CODE_TTL_MS = 24 * 60 * 60 * 1000;

export class UiSessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Set<string>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Called after a code is spent (the host then publishes a fresh sign-in link). */
    private readonly onRedeemed: () => void = () => undefined,
  ) {}

  issueCode(): string {
    const code = randomToken();
    this.codes.set(code, this.now() + CODE_TTL_MS);
    return code;
  }

  /** Spends a code; returns a new session id, or null when the code is unknown, used or expired. */
  redeem(code: string): string | null {
    const expires = this.codes.get(code);
    if (expires === undefined) return null;
    this.codes.delete(code);
    if (expires < this.now()) return null;
    const session = randomToken();
    this.sessions.add(session);
    this.onRedeemed();
    return session;
  }

  isSignedIn(req: IncomingMessage): boolean {
    const id = readCookie(req.headers.cookie, SESSION_COOKIE);
    return id !== null && this.sessions.has(id);
  }

  cookieFor(session: string): string {
    return `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Constant-time comparison for secrets of possibly different lengths. */
export function sameSecret(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

function randomToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}
