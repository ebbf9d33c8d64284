// memory_fts gets a segment per write transaction. A watching host merges it once memory has been
// quiet for a while — never in the middle of a stream of writes, which it would only slow down —
// and compactIndex merges it at once, answering exactly as before. SQLite only: FTS5 segments and
// their merge policy are the SQLite storage's own mechanics (PostgreSQL's keyword index has none).
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Engine, MemorySearchResponse } from '../../src-main/engine/index.js';
import { openDatabase } from '../../src-main/engine/store/database.js';
import { FtsMerge, FtsMerges, MERGE_QUIET_MS } from '../../src-main/engine/store/fts-merge.js';
import { openEngine } from '../helpers/engine.js';

async function fill(engine: Engine, batches: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    await engine.memory.storeBatch(Array.from({ length: 20 }, (_, i) => ({ threadId: `t${b % 3}`, source: 'agent' as const, text: `Batch ${b} note ${i}: retries, backoff and jitter for service ${i % 7}.` })));
  }
}

const hits = (r: MemorySearchResponse) => r.hits.map((h) => [h.entry.id, h.score]);

it('merges memory only once writes have paused, and compacts it on request with the same answers', async () => {
  const engine = await openEngine();
  await fill(engine, 12);
  const db = openDatabase(path.join(engine.profileDir, 'index.sqlite'));
  const shape = new FtsMerge(db, 'memory_fts');
  expect(shape.shape().segments).toBeGreaterThan(1);
  const merges = new FtsMerges(db);
  const now = Date.now();
  merges.written('memory_fts', now);
  expect(merges.step(false, now + MERGE_QUIET_MS - 1)).toBe(false); // still being written
  expect(merges.step(false, now + MERGE_QUIET_MS)).toBe(true); // quiet: a slice of merge work
  const answer = hits(await engine.memory.search({ query: 'retries backoff service 3', limit: 20 }));
  await engine.compactIndex();
  expect(shape.shape().segments).toBe(1);
  expect(hits(await engine.memory.search({ query: 'retries backoff service 3', limit: 20 }))).toEqual(answer);
  db.close();
});

it('a watching host merges memory by itself after the writes stop', async () => {
  const engine = await openEngine();
  await engine.startWatching();
  try {
    await fill(engine, 12);
    const db = openDatabase(path.join(engine.profileDir, 'index.sqlite'));
    const shape = new FtsMerge(db, 'memory_fts');
    expect(shape.shape().segments).toBeGreaterThan(1);
    const deadline = Date.now() + 30_000;
    while (shape.shape().segments > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(shape.shape().segments).toBe(1);
    db.close();
  } finally {
    await engine.stopWatching();
  }
});
