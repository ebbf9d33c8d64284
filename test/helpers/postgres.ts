// A PostgreSQL database of its own for a test file, on the run's test server (test/setup/postgres.ts),
// created from the template that has pgvector and pg_trgm, dropped after the file. Fails with one
// line saying how to get PostgreSQL when there is none: never a skip.
import { afterAll, inject } from 'vitest';
import pg from 'pg';

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

/** A new, empty database (pgvector and pg_trgm created) for this test file; dropped in afterAll. */
export async function freshDatabase(label = 'test'): Promise<string> {
  const admin = postgresServerUrl();
  const name = `trove_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    const template = (await c.query("SELECT 1 FROM pg_database WHERE datname = 'trove_template'")).rowCount ? ' TEMPLATE trove_template' : '';
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
