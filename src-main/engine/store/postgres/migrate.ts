// Brings a PostgreSQL database's schema up to date (postgres/migrations.ts), each step in its own
// transaction, under an advisory lock so that hosts starting at once do not race; a database
// written by a newer Trove is refused, as SQLite's is.
import { TroveError } from '../../errors.js';
import type pg from 'pg';
import { postgresMigrations } from './migrations.js';

/** pg_advisory_lock key of schema changes ("trove" in ASCII). */
const MIGRATION_LOCK = 0x74726f7665;

/** Brings the schema up to date on the pool's database (connection.ts calls this when it opens). */
export async function migratePostgres(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await ensureExtension(client);
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`,
      );
      const current = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0);
      if (current > postgresMigrations.length) {
        throw new TroveError(
          'INTERNAL',
          `index database was written by a newer Trove (schema ${current}, this build knows ${postgresMigrations.length})`,
        );
      }
      for (let v = current; v < postgresMigrations.length; v++) {
        const m = postgresMigrations[v]!;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [v + 1, m.name, Date.now()]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new TroveError('INTERNAL', `PostgreSQL schema step ${v + 1} (${m.name}) failed: ${(err as Error).message}`);
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/** pgvector must be there: created when this role may, else a clear reason. */
async function ensureExtension(client: { query: (sql: string) => Promise<{ rows: { ok?: boolean }[] }> }): Promise<void> {
  const has = await client.query(`SELECT true AS ok FROM pg_extension WHERE extname = 'vector'`);
  if (has.rows.length) return;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (err) {
    throw new TroveError(
      'UNAVAILABLE',
      `the database has no pgvector and this role cannot create it (${(err as Error).message}): run CREATE EXTENSION vector as its owner (pgvector 0.8 or newer)`,
    );
  }
}
