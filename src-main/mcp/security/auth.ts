// Bearer tokens on the HTTP endpoint. The host's runtime token (written to runtime.json, used by
// the stdio shim and the desktop app) gives full access; named tokens from `trove token create`
// give what they were scoped to. Comparison of the runtime token is constant-time; named tokens
// are looked up by their SHA-256, so their secrets are never compared byte by byte either. A named
// token is looked up in the index (on PostgreSQL a round trip: one set of tokens for every host on
// the database).
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ServedIndex } from '../../engine/index.js';
import { accessFromToken, FULL_ACCESS, type Access } from './access.js';

export type Authenticator = (req: IncomingMessage) => Promise<Access | null>;

export function bearerToken(req: IncomingMessage): string | null {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

export function createAuthenticator(index: Pick<ServedIndex, 'verifyToken'>, runtimeToken: string): Authenticator {
  const runtimeDigest = digest(runtimeToken);
  return async (req) => {
    const token = bearerToken(req);
    if (!token) return null;
    if (timingSafeEqual(digest(token), runtimeDigest)) return FULL_ACCESS;
    const named = await index.verifyToken(token);
    return named ? accessFromToken(named) : null;
  };
}

/** One-shot hashing: a Hash object per request cost ~60 µs, more than the rest of the check. */
function digest(s: string): Buffer {
  return hash('sha256', s, 'buffer');
}
