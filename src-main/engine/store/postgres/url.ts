// PostgreSQL URLs as Trove takes them (TROVE_DATABASE_URL, --database, migrate --to): checked
// before anything connects, and shown with the password hidden. No pg import: engine/config.ts
// checks the variable for every command.
import { TroveError } from '../../errors.js';

/** A database URL Trove accepts: postgres:// or postgresql://, a database name, host or socket. */
export function validatePostgresUrl(url: string, what = 'database URL'): string {
  let u: URL;
  try {
    u = parse(url);
  } catch {
    throw new TroveError('INVALID_INPUT', `${what} is not a URL (expected postgresql://user@host:5432/db or postgresql://user@/db?host=/socket/dir)`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new TroveError('INVALID_INPUT', `${what} must start with postgresql:// or postgres:// (got ${u.protocol}//)`);
  }
  if (!u.pathname || u.pathname === '/') throw new TroveError('INVALID_INPUT', `${what} names no database (…/dbname)`);
  if ((!u.hostname || u.hostname === NO_HOST) && !u.searchParams.get('host')) {
    throw new TroveError('INVALID_INPUT', `${what} names no host: give host:port, or a socket folder as ?host=/path`);
  }
  return url;
}

/** The URL with its password replaced, for status and logs. */
export function redactPostgresUrl(url: string): string {
  try {
    const u = parse(url);
    if (u.password) u.password = '***';
    // node-postgres takes these from the query string too (pg-connection-string), so they are as secret
    for (const key of ['password', 'sslpassword']) if (u.searchParams.has(key)) u.searchParams.set(key, '***');
    return u.toString().replace(`@${NO_HOST}`, '@');
  } catch {
    return 'postgresql://(unparsable URL)';
  }
}

/** Stands in for the empty host of a socket URL (`postgresql://user@/db?host=/dir`), which WHATWG URLs refuse and libpq and node-postgres take. */
const NO_HOST = 'trove-no-host.invalid';

function parse(url: string): URL {
  return new URL(/^postgres(ql)?:\/\/[^/?#]*@\//.test(url) ? url.replace('@/', `@${NO_HOST}/`) : url);
}
