// Memory's keyword ranking after edits and deletes: BM25's row count and average length follow the
// entries the store holds, so an edited or deleted entry's old text no longer counts and the scores
// are those of a fresh store holding the same entries (on SQLite, FTS5's own totals would still
// count them: store/fts-totals.ts). On both backends.
import { expect, it } from 'vitest';
import type { Engine, MemoryEntryInput } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';

const words = ['retry', 'backoff', 'jitter', 'timeout', 'socket', 'cache', 'deploy', 'query', 'merge', 'segment', 'token', 'stream'];
/** Entries of deterministic words and lengths (no two of the same length: few ties). */
function entries(n: number, salt: number): MemoryEntryInput[] {
  let seed = 11 + salt;
  const pick = () => words[Math.floor((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 * words.length)]!;
  return Array.from({ length: n }, (_, i) => ({
    threadId: `t${i % 4}`,
    source: 'agent' as const,
    text: `Note ${salt}-${i}: ${Array.from({ length: 4 + i }, pick).join(' ')}.`,
  }));
}

const queries = ['retry backoff', 'jitter', 'socket timeout cache', 'merge segment token stream'];

/** Every keyword hit as text and score, in a stable order (equal scores may tie in any order). */
async function ranked(engine: Engine, query: string): Promise<string[]> {
  const r = await engine.memory.search({ query, mode: 'keyword', limit: 100 });
  return r.hits.map((h) => `${h.keyword!.bm25.toFixed(9)} ${h.entry.text}`).sort();
}

describeBackends('memory keyword ranking after edits and deletes', (b) => {
  it('scores as a fresh store holding the same entries', async () => {
    const engine = await b.open();
    const stored = await engine.memory.storeBatch(entries(60, 1));
    const ids = stored.results.map((r) => r.id!);
    expect(ids).toHaveLength(60);
    // edit 20 entries (shorter texts), delete 20 others
    const edits = entries(20, 2);
    for (let i = 0; i < 20; i++) await engine.memory.update({ id: ids[i]!, text: edits[i]!.text });
    expect((await engine.memory.delete({ ids: ids.slice(20, 40) })).deleted).toBe(20);
    const kept = (await engine.memory.list({ limit: 100 })).entries.sort((a, b) => a.id - b.id);
    expect(kept).toHaveLength(40);

    const fresh = await b.open();
    await fresh.memory.storeBatch(kept.map((e) => ({ threadId: e.threadId, source: e.source, text: e.text })));
    let hits = 0;
    for (const query of queries) {
      const got = await ranked(engine, query);
      hits += got.length;
      expect(got, query).toEqual(await ranked(fresh, query));
    }
    expect(hits).toBeGreaterThan(40);
  });
});
