// A filtered keyword search over a store where the filter is selective: a busy thread whose
// entries outrank everything, and a quiet one whose entries each hold only some of the words.
// The filter is applied inside every plan step (per matching row, or as the thread's set of
// documents for an OR over many postings), never to a page cut from the unfiltered ranking — so
// the quiet thread's entries are all found, counted and paged. On SQLite and on PostgreSQL, which
// render the filter into their own candidate queries.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, MemorySearchRequest, MemorySearchResponse } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';

/** Filler words, none of the query's. */
const filler = (i: number) => `note ${i} about shipping schedules, invoices and the weekly review of open tickets`;

describeBackends('a filtered memory search', (b) => {
  let engine: Engine;
  const quiet: Record<string, number> = {};

  beforeAll(async () => {
    engine = await b.open();
    // 1,000 busy entries: 150 hold all three query words (each word in 15% of rows: not too common for the OR step)
    for (let b = 0; b < 1000; b += 100) {
      await engine.memory.storeBatch(
        Array.from({ length: 100 }, (_, k) => {
          const i = b + k;
          return { threadId: 'busy', source: 'agent' as const, text: i % 1000 < 150 ? `alpha beta gamma ${filler(i)} alpha beta gamma` : filler(i) };
        }),
      );
    }
    // three quiet entries, each with only some of the words (no entry of the thread has all three)
    const texts = { q1: `alpha ${filler(1)}`, q2: `beta ${filler(2)}`, q3: `gamma beta ${filler(3)}` };
    for (const [key, text] of Object.entries(texts)) quiet[key] = (await engine.memory.store({ threadId: 'quiet', source: 'user', text })).id;
  });

  function keyword(req: Omit<MemorySearchRequest, 'query'>): Promise<MemorySearchResponse> {
    return engine.memory.search({ query: 'alpha beta gamma', snippets: false, ...req });
  }

  describe('a selective filter inside the keyword plan', () => {
    it('finds every entry of the quiet thread though 150 busy entries outrank them all', async () => {
      expect((await keyword({ limit: 10 })).hits.every((h) => h.entry.threadId === 'busy')).toBe(true); // unfiltered: the busy thread fills the page
      const r = await keyword({ threadId: 'quiet', limit: 10 });
      expect(r.hits.map((h) => h.entry.id).sort()).toEqual(Object.values(quiet).sort());
      expect(r.total).toBe(3);
      expect(r.hasMore).toBe(false);
      expect(r.hits[0]!.entry.id).toBe(quiet.q3); // two of the words rank above one
    });

    it('pages the quiet thread without losing or repeating an entry', async () => {
      const first = await keyword({ threadId: 'quiet', limit: 2 });
      expect(first.hits).toHaveLength(2);
      expect(first.hasMore).toBe(true);
      const second = await keyword({ threadId: 'quiet', limit: 2, offset: 2 });
      expect(second.hits).toHaveLength(1);
      expect(second.hasMore).toBe(false);
      expect([...first.hits, ...second.hits].map((h) => h.entry.id).sort()).toEqual(Object.values(quiet).sort());
    });

    it('answers the same whether the thread is checked per row or listed as a set (same entries, same scores)', async () => {
      // source 'user' selects the same three entries but has no index to list them by: checked per row
      const perRow = await keyword({ source: 'user', limit: 10 });
      const bySet = await keyword({ threadId: 'quiet', limit: 10 });
      expect(bySet.hits.map((h) => [h.entry.id, h.score, h.keyword?.bm25])).toEqual(perRow.hits.map((h) => [h.entry.id, h.score, h.keyword?.bm25]));
      // a filter as wide as the busy thread: the same ranking as no filter, over that thread
      const busy = await keyword({ threadId: 'busy', limit: 20 });
      expect(busy.hits.map((h) => h.entry.id)).toEqual((await keyword({ source: 'agent', limit: 20 })).hits.map((h) => h.entry.id));
    });

    it('combines the thread with metadata and date conditions', async () => {
      const later = (await engine.memory.store({ threadId: 'quiet', source: 'agent', text: `gamma ${filler(4)}`, metadata: { status: 'open' } })).id;
      try {
        expect((await keyword({ threadId: 'quiet', metadata: { status: 'open' } })).hits.map((h) => h.entry.id)).toEqual([later]);
        expect((await keyword({ threadId: 'quiet', endDate: '2000-01-01' })).hits).toEqual([]);
        expect((await keyword({ threadId: 'quiet', startDate: '2000-01-01', limit: 10 })).total).toBe(4);
      } finally {
        await engine.memory.delete({ ids: [later] });
      }
    });
  });
});
