import { defineConfig } from 'vitest/config';

/**
 * Files that measure the machine itself (a background worker's priority, the load a host stands,
 * 10,000 files at once, Chromium with a host behind it): they run after the rest, one at a time,
 * so a neighbour's work is not read as theirs.
 */
const ALONE = ['test/embed/low-priority.test.ts', 'test/embed/models.test.ts', 'test/embed/background.test.ts', 'test/reliability/load.test.ts', 'test/live/burst.test.ts', 'test/e2e/**/*.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    // one PostgreSQL with pgvector for the run (storage tests on the second backend; see the file)
    globalSetup: ['test/setup/postgres.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      // every other file, two at a time: a 2-core machine's both cores (most files wait on I/O, a child or PostgreSQL)
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ALONE, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
