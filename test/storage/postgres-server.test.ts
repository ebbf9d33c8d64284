// The test PostgreSQL itself (scripts/pg-test-server.mjs): reachable over TCP and over its unix
// socket with the URL forms Trove accepts, with the extensions the PostgreSQL backend needs.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startServer, stopServer } from '../../scripts/pg-test-server.mjs';
import { freshDatabase } from '../helpers/postgres.js';

async function one<T>(url: string, sql: string): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows[0] as T;
  } finally {
    await c.end();
  }
}

describe('test PostgreSQL', () => {
  it('has pgvector 0.8 and pg_trgm in a fresh database', async () => {
    const url = await freshDatabase('server');
    const r = await one<{ vector: string; trgm: string; server: number }>(
      url,
      `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector,
              (SELECT extversion FROM pg_extension WHERE extname = 'pg_trgm') AS trgm,
              current_setting('server_version_num')::int AS server`,
    );
    expect(r.vector).toMatch(/^0\.(8|9|\d\d)\./);
    expect(r.trgm).toBeTruthy();
    expect(r.server).toBeGreaterThanOrEqual(150000);
    const d = await one<{ d: number }>(url, `SELECT '[1,0,0]'::vector <=> '[0,1,0]'::vector AS d`);
    expect(d.d).toBeCloseTo(1, 6);
  });

  it('is reachable over a unix socket URL as well as TCP', async () => {
    const server = await startServer();
    try {
      const plain = `postgresql://trove@/trove?host=${server.socketDir}&port=${server.port}`;
      for (const url of [server.url, server.socketUrl, plain]) {
        const r = await one<{ db: string; socket: boolean }>(url, `SELECT current_database() AS db, inet_server_addr() IS NULL AS socket`);
        expect(r.db).toBe('trove');
        expect(r.socket).toBe(url !== server.url);
      }
    } finally {
      stopServer(server.dataDir);
    }
  });
});
