// The PostgreSQL backend's connection: a node-postgres pool opened from a URL (TCP, or a unix
// socket as `postgresql://user@/db?host=/run/postgresql`), with bigint ids read as numbers, the
// schema brought up to date (postgres/migrations.ts) and transactions that stay inside the backend.
// Nothing outside engine/store/postgres/ sees a pg client.
import pg from 'pg';
import { TroveError } from '../../errors.js';
import { migratePostgres } from './migrate.js';
import { redactPostgresUrl, validatePostgresUrl } from './url.js';

export { redactPostgresUrl, validatePostgresUrl };

export type Queryable = pg.Pool | pg.PoolClient;

/** int8 (bigint ids, ms timestamps, counts) as numbers: every value Trove stores is below 2^53. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /** Connections in the pool (default 8: searches, the runner's batch and the embedding stage at once). */
  max?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

/**
 * Connects once and checks the server can hold a Trove index (pgvector installable), changing
 * nothing: what Settings does before it saves a database URL. INVALID_INPUT for a bad URL,
 * UNAVAILABLE with the server's reason otherwise; the password is never in the message.
 */
export async function checkPostgres(url: string): Promise<void> {
  validatePostgresUrl(url, 'the database');
  const client = new pg.Client({ connectionString: url, application_name: 'trove-check', connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const vector = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    if (!vector.rowCount) throw new Error('pgvector is not installed on that server (Trove needs the vector extension)');
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `cannot use PostgreSQL at ${redactPostgresUrl(url)}: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class PostgresDatabase {
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    readonly url: string,
  ) {}

  /** Connects, checks pgvector, applies migrations. Throws UNAVAILABLE with the server's reason. */
  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresDatabase> {
    validatePostgresUrl(url);
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 8,
      application_name: opts.applicationName ?? 'trove',
      types,
      // pgvector 0.8: filtered kNN keeps walking the HNSW graph until the LIMIT is met (relaxed order,
      // re-sorted by postgres/vectors.ts); a wider beam than the default 40 for recall close to exact
      options: '-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=100',
    });
    // an idle client's error (the server restarted) must not crash the host: the pool drops it
    pool.on('error', () => undefined);
    const db = new PostgresDatabase(pool, url);
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new TroveError('UNAVAILABLE', `cannot reach PostgreSQL at ${redactPostgresUrl(url)}: ${(err as Error).message}`);
    }
    try {
      await migratePostgres(pool);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return db;
  }

  async query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<R[]> {
    return (await on.query<R>(sql, params)).rows;
  }

  async one<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<R | undefined> {
    return (await on.query<R>(sql, params)).rows[0];
  }

  /** Runs fn in one transaction on one connection; rolls back when it throws. */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** A connection held by the caller (a claimed batch keeps its transaction open on it). */
  connect(): Promise<pg.PoolClient> {
    return this.pool.connect();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
