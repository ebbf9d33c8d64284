// PostgreSQL URLs at the edges (store/postgres/url.ts): what is accepted, and what a URL looks like
// where a person or a log can see it — never with its password, wherever node-postgres would read
// one from (the user-info part, or the password / sslpassword query parameters).
import { describe, expect, it } from 'vitest';
import { redactPostgresUrl, validatePostgresUrl } from '../../src-main/engine/store/postgres/url.js';

describe('PostgreSQL URLs', () => {
  it('hides every password node-postgres would use', () => {
    expect(redactPostgresUrl('postgresql://trove:hunter2@db.example:5432/team')).toBe('postgresql://trove:***@db.example:5432/team');
    expect(redactPostgresUrl('postgresql://trove@db.example/team?password=hunter2&sslmode=require')).toBe('postgresql://trove@db.example/team?password=***&sslmode=require');
    expect(redactPostgresUrl('postgres://u@h/db?sslpassword=keypass')).toBe('postgres://u@h/db?sslpassword=***');
    expect(redactPostgresUrl('postgresql://trove@/team?host=%2Fvar%2Frun%2Fpostgresql')).toBe('postgresql://trove@/team?host=%2Fvar%2Frun%2Fpostgresql');
    expect(redactPostgresUrl('not a url at all')).toBe('postgresql://(unparsable URL)');
  });

  it('accepts TCP and socket URLs and names what is missing', () => {
    expect(validatePostgresUrl('postgresql://trove@127.0.0.1:5432/trove', '--database')).toBe('postgresql://trove@127.0.0.1:5432/trove');
    expect(validatePostgresUrl('postgresql://trove@/trove?host=/tmp/pg', '--database')).toBe('postgresql://trove@/trove?host=/tmp/pg');
    expect(() => validatePostgresUrl('mysql://x/y', '--database')).toThrow(/--database must start with postgresql:\/\//);
    expect(() => validatePostgresUrl('postgresql://trove@127.0.0.1:5432/', '--database')).toThrow(/names no database/);
    expect(() => validatePostgresUrl('postgresql://trove@/trove', '--database')).toThrow(/names no host/);
  });
});
