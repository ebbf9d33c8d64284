// Bad input to the memory tools, over real HTTP in both protocol generations: an unknown
// operator, a value of the wrong type for an operator, a bad date, a patch of a missing entry,
// an oversized image, a batch over 100 — each an isError result naming the problem, and nothing
// written (the store's counts and keyword rows are unchanged). A batch that is not atomic
// reports per entry instead. On both backends (what is refused must leave the index as it was).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackends } from '../helpers/backends.js';
import { connectClient, json, memoryFixture, text, type MemoryFixture, type ToolClient } from './memory-helpers.js';

const entry = { thread_id: 'bad', source: 'agent', text: 'A perfectly good entry.' };

describeBackends('bad input to the memory tools', (b) => {
  let f: MemoryFixture;
  beforeAll(async () => {
    f = await memoryFixture(b);
    await f.engine.memory.store({ threadId: 'base', source: 'agent', text: 'A note that is already there.', metadata: { priority: 2 } });
  }, 60_000);
  afterAll(async () => {
    await f?.cleanup();
  });

  describe.each(['v2 http 2026-07-28', 'v2 http 2025-11-25'] as const)('bad input over %s', (kind) => {
    let c: ToolClient;
    beforeAll(async () => {
      c = await connectClient(kind, f);
    });
    afterAll(async () => {
      await c?.close();
    });

    /** Calls a tool that must fail, checks its message and that memory did not change. */
    async function refused(tool: string, args: Record<string, unknown>, message: RegExp): Promise<void> {
      const before = { stats: await f.engine.memory.statistics(), entries: (await f.engine.memory.list({ limit: 100 })).entries };
      const r = await c.callTool(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(text(r)).toMatch(message);
      const after = { stats: await f.engine.memory.statistics(), entries: (await f.engine.memory.list({ limit: 100 })).entries };
      expect({ entries: after.stats.entries, fts: after.stats.keyword.chunks, images: after.stats.images, tags: after.stats.uniqueTags }).toEqual({
        entries: before.stats.entries,
        fts: before.stats.keyword.chunks,
        images: before.stats.images,
        tags: before.stats.uniqueTags,
      });
      expect(after.entries).toEqual(before.entries);
    }

    it('an unknown operator or a value of the wrong type for its operator', async () => {
      await refused('search_context', { metadata_filters: [{ key: 'priority', operator: 'between', value: [1, 3] }] }, /metadata_filters.0.operator.*expected one of/);
      await refused('fts_search_context', { query: 'note', metadata_filters: [{ key: 'priority', operator: 'gt', value: [1] }] }, /metadata_filters\[0\]: operator gt compares a number or a string, not a list/);
      await refused('hybrid_search_context', { query: 'note', metadata_filters: [{ key: 'status', operator: 'in', value: 'active' }] }, /operator in needs a non-empty list/);
      await refused('semantic_search_context', { query: 'note', metadata_filters: [{ key: 'status', operator: 'contains', value: 3 }] }, /operator contains needs a non-empty string/);
      await refused('search_context', { metadata_filters: [{ key: 'bad key!', operator: 'exists' }] }, /"bad key!" is not a metadata key/);
    });

    it('a bad date', async () => {
      await refused('search_context', { start_date: '2025-02-30' }, /start_date is not a real date/);
      await refused('fts_search_context', { query: 'note', end_date: 'last tuesday' }, /end_date is not an ISO 8601 date/);
      await refused('semantic_search', { query: 'note', startDate: '2025/01/01' }, /start_date is not an ISO 8601 date/);
    });

    it('a patch of a missing entry, an update without fields, metadata and metadata_patch together', async () => {
      await refused('update_context', { context_id: 999_999, metadata_patch: { a: 1 } }, /Not found: context entry 999999 not found/);
      await refused('update_context', { context_id: 1 }, /at least one field/);
      await refused('update_context', { context_id: 1, metadata: { a: 1 }, metadata_patch: { b: 2 } }, /cannot be used together/);
      await refused('update_context_batch', { updates: [{ context_id: 1, text: 'Changed' }, { context_id: 999_999, text: 'x' }] }, /nothing was updated .*updates\[1\]: context entry 999999 not found/);
    });

    it('an oversized image, an image that is not base64 or not an image', async () => {
      const big = Buffer.alloc(2 * 1024 * 1024 + 10).toString('base64');
      await refused('store_context', { ...entry, images: [{ data: big, mime_type: 'image/png' }] }, /images\[0\] is larger than the 2 MB/);
      await refused('store_context', { ...entry, images: [{ data: '%%%not-base64%%%' }] }, /images\[0\]\.data is not valid base64/);
      await refused('store_context', { ...entry, images: [{ data: 'aGVsbG8=', mime_type: 'application/pdf' }] }, /images\[0\]\.mime_type must be an image type/);
    });

    it('a batch over 100, and an atomic batch with one bad entry', async () => {
      await refused('store_context_batch', { entries: Array.from({ length: 101 }, () => entry) }, /entries.*(100|too_big)/i);
      await refused('store_context_batch', { entries: [entry, { ...entry, text: '  ' }, entry] }, /nothing was stored \(the batch is atomic\): entries\[1\]\.text is required/);
      await refused('store_context_batch', { entries: [entry, { ...entry, source: 'robot' }] }, /entries.1.source/);
      await refused('update_context_batch', { updates: Array.from({ length: 101 }, () => ({ context_id: 1, text: 'x' })) }, /updates.*(100|too_big)/i);
    });

    it('text that is only whitespace, deleting by both ids and thread, source alone, weights that do not add up', async () => {
      await refused('store_context', { ...entry, text: ' \n\t ' }, /text is required and cannot be empty/);
      await refused('delete_context', { context_ids: [1], thread_id: 'base' }, /either context_ids or thread_id/);
      await refused('delete_context', {}, /either context_ids or thread_id/);
      await refused('delete_context_batch', { source: 'agent' }, /source must be combined with another criterion/);
      await refused('hybrid_search', { query: 'note', weights: { semantic: 0.9, fts: 0.9 } }, /Weights must sum to 1/);
      await refused('hybrid_search_context', { query: 'note', fusion_method: 'weighted', weights: { fts: 0.1, semantic: 0.1 } }, /weights must add up to 1/);
      await refused('get_context_by_ids', { context_ids: [424_242] }, /no context entries with id 424242/);
    });

    it('a batch that is not atomic stores the good entries and reports the bad one', async () => {
      const r = await c.callTool('store_context_batch', { entries: [entry, { ...entry, images: [{ data: 'nope!' }] }], atomic: false });
      expect(r.isError).toBeFalsy();
      const b = json<{ success: boolean; succeeded: number; failed: number; results: { index: number; success: boolean; context_id: number | null; error: string | null }[] }>(r);
      expect(b).toMatchObject({ success: false, succeeded: 1, failed: 1 });
      expect(b.results[1]).toEqual({ index: 1, success: false, context_id: null, error: 'entries[1].images[0].data is not valid base64' });
      expect((await f.engine.memory.get([b.results[0]!.context_id!]))[0]!.text).toBe('A perfectly good entry.');
    });
  });
});
