import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
    // one PostgreSQL with pgvector for the run (storage tests on the second backend; see the file)
    globalSetup: ['test/setup/postgres.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // a 2-core machine: model sessions, Chromium and child processes should not fight for it
    fileParallelism: false,
  },
});
