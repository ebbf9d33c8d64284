// A PostgreSQL database of its own for a test file, on the run's test server (test/setup/postgres.ts),
// created from the template that has pgvector and pg_trgm, dropped after the file. Fails with one
// line saying how to get PostgreSQL when there is none: never a skip.
import { afterAll, inject } from 'vitest';
import pg from 'pg';
import { postgresMigrations as PG_MIGRATIONS } from '../../src-main/engine/store/postgres/migrations.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';

const created: { admin: string; name: string }[] = [];

afterAll(async () => {
  while (created.length) {
    const { admin, name } = created.pop()!;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  }
});

/** The URL of the run's test server (its `trove` database). */
export function postgresServerUrl(): string {
  const problem = inject('postgresProblem');
  if (problem) throw new Error(problem);
  return inject('postgresUrl');
}

/**
 * A new, empty database (pgvector and pg_trgm created) for this test file; dropped in afterAll.
 * `migrated`: with Trove's schema already in it (copied from a template migrated once per run), so
 * an engine opens on it without running the migrations (~0.2 s each).
 */
export async function freshDatabase(label = 'test', opts: { migrated?: boolean } = {}): Promise<string> {
  const admin = postgresServerUrl();
  const name = `trove_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  if (opts.migrated) await migratedTemplate(admin);
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    const base = opts.migrated ? MIGRATED_TEMPLATE : 'trove_template';
    const template = (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [base])).rowCount ? ` TEMPLATE ${base}` : '';
    await c.query(`CREATE DATABASE ${name}${template}`);
    if (!template) {
      const d = new pg.Client({ connectionString: withDatabase(admin, name) });
      await d.connect();
      try {
        await d.query('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm');
      } finally {
        await d.end();
      }
    }
  } finally {
    await c.end();
  }
  created.push({ admin, name });
  return withDatabase(admin, name);
}

/** The same server URL with another database name (TCP and socket URLs alike). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The migrated template of this build's schema: named by its migration count, so a server kept between runs never hands out an old schema. */
const MIGRATED_TEMPLATE = `trove_template_migrated_${PG_MIGRATIONS.length}`;
let migrating: Promise<void> | null = null;

/** The template with Trove's current schema, made once (test files in parallel take turns on an advisory lock) and never opened again. */
function migratedTemplate(admin: string): Promise<void> {
  return (migrating ??= (async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query('SELECT pg_advisory_lock(7077)');
      if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [MIGRATED_TEMPLATE])).rowCount) return;
      const building = `${MIGRATED_TEMPLATE}_building`;
      await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${building} TEMPLATE trove_template`);
      const storage = await PostgresStorage.open(withDatabase(admin, building)); // migrates it
      await storage.close();
      await c.query(`ALTER DATABASE ${building} RENAME TO ${MIGRATED_TEMPLATE}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(7077)').catch(() => undefined);
      await c.end();
    }
  })());
}
