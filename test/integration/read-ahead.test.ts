// An explicit run on SQLite reads its next batches while one is written: the batch's write holds
// the engine's thread, so the parse workers must already have the documents of the batch behind it.
// Real files, the real parse workers and the real queue; the claims are only counted.
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { DEFAULT_INCLUDE } from '../../src-main/engine/ingest/defaults.js';
import { IndexingService } from '../../src-main/engine/indexing/indexing-service.js';
import type { ClaimedJobs, Storage } from '../../src-main/engine/store/storage.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import { fixtureFiles } from '../helpers/formats.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

/** Counts the claims a run holds; at each write, how many later claims were already held. */
function watchClaims(storage: Storage) {
  const held = new Set<ClaimedJobs>();
  const heldAtWrite: number[] = [];
  const jobs = storage.jobs;
  const claim = jobs.claim.bind(jobs);
  jobs.claim = async (...args) => {
    const c = await claim(...args);
    if (!c) return c;
    held.add(c);
    const complete = c.complete.bind(c);
    const release = c.release.bind(c);
    c.complete = (outcome) => {
      heldAtWrite.push(held.size - 1);
      held.delete(c);
      return complete(outcome);
    };
    c.release = () => {
      held.delete(c);
      return release();
    };
    return c;
  };
  return { held, heldAtWrite };
}

describe('reading ahead (SQLite)', () => {
  it('from the second batch on, every write finds the next batch claimed and its documents with the workers; each file is indexed once and nothing stays claimed', async () => {
    const pdf = fixtureFiles('good')['report.pdf']!;
    const root = tempDir('trove-root-');
    const files: Record<string, string | Buffer> = { 'a.md': '# A\n\nalpha\n', 'b.md': '# B\n\nbeta\n' };
    for (let i = 0; i < 8; i++) files[`docs/report-${i}.pdf`] = pdf;
    writeTree(root, files);
    const storage = SqliteStorage.open(`${tempDir('trove-profile-')}/index.sqlite`);
    const { held, heldAtWrite } = watchClaims(storage);
    const indexing = new IndexingService(storage, { chunking: DEFAULT_CHUNKING, maxFileBytes: 10_000_000, batchFiles: 1, batchDocuments: 1 }, () => undefined);
    try {
      const c = await storage.collections.insert({ name: 'docs', root, include: [...DEFAULT_INCLUDE], exclude: [], context: '' });
      const [report] = await indexing.index([c], {});
      expect(report).toMatchObject({ added: 10, failed: [] });
      expect(storage.jobs.claimsAhead).toBeGreaterThan(1);
      // the scan, then ten batches of one file: the first batch's write comes before any claim ahead
      const files = heldAtWrite.slice(2, -2);
      expect(files.length).toBeGreaterThan(4);
      expect(files.every((n) => n >= 1)).toBe(true);
      expect(Math.max(...heldAtWrite)).toBeLessThanOrEqual(storage.jobs.claimsAhead);
      expect(held.size).toBe(0);
      expect(await storage.jobs.dueCount(c.id, Date.now())).toBe(0);
      const [again] = await indexing.index([c], {});
      expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 10 });
    } finally {
      await indexing.close();
      await storage.close();
    }
  }, 60_000);
});
