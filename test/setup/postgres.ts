// vitest globalSetup: one PostgreSQL (with pgvector) for the whole run, shared by every test file
// that needs one (test/helpers/postgres.ts gives each file its own database). TROVE_TEST_DATABASE_URL
// names an existing server (.ci/run starts one with scripts/pg-test-server.mjs); otherwise the
// server is started here and stopped at the end. When it cannot start, the reason is handed to
// the tests that need it, which fail with it: no test skips for want of PostgreSQL, and a run of
// tests that do not need it is not held up.
import type { TestProject } from 'vitest/node';
import { HOW_TO_GET_POSTGRES, startServer, stopServer } from '../../scripts/pg-test-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database URL on the test server (its `trove` database: tests make their own from the template). */
    postgresUrl: string;
    /** Why there is no server ('' when there is one). */
    postgresProblem: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.TROVE_TEST_DATABASE_URL;
  if (given) {
    project.provide('postgresUrl', given);
    project.provide('postgresProblem', '');
    return () => undefined;
  }
  try {
    const server = await startServer();
    project.provide('postgresUrl', server.url);
    project.provide('postgresProblem', '');
    return () => stopServer(server.dataDir);
  } catch (err) {
    project.provide('postgresUrl', '');
    project.provide('postgresProblem', `no PostgreSQL for the storage tests (${(err as Error).message.split(': run ')[0]}): ${HOW_TO_GET_POSTGRES}`);
    return () => undefined;
  }
}
