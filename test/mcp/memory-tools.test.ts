// Every memory tool through every kind of client: the v2 SDK over HTTP in both protocol
// generations, the v1 SDK over HTTP, and both SDKs over stdio through `trove mcp` (a relay to
// the same host). Each client stores, searches (keyword, semantic, hybrid, filters), reads,
// updates and deletes its own thread, and gets the context server's and the persistence server's
// result shapes. Needs a fresh `npx tsc -p tsconfig.node.json` for the stdio relay. On both
// backends: every kind of client on SQLite, the stateless HTTP client on PostgreSQL (what the tools
// answer comes from the index; the transports do not depend on which one holds it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_READ_TOOL_NAMES, MEMORY_WRITE_TOOL_NAMES } from '../../src-main/mcp/tools/index.js';
import { describeBackends } from '../helpers/backends.js';
import { CLIENT_KINDS, connectClient, json, memoryFixture, text, type MemoryFixture, type ToolClient } from './memory-helpers.js';

type Entry = { id: number; thread_id: string; source: string; content_type: string; text_content: string; summary: string; is_text_content_truncated: boolean; metadata: Record<string, unknown>; tags: string[]; created_at: string; updated_at: string; images?: { mime_type: string; size_bytes: number; data?: string }[] };
type Scored = Entry & { scores: Record<string, number | null>; highlighted?: string };

const PIXEL = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

describeBackends('memory tools', (b) => {
  let f: MemoryFixture;
  beforeAll(async () => {
    f = await memoryFixture(b);
  }, 60_000);
  afterAll(async () => {
    await f?.cleanup();
  });

  describe.each(b.name === 'sqlite' ? CLIENT_KINDS : (['v2 http 2026-07-28'] as const))('every memory tool over %s', (kind) => {
    let c: ToolClient;
    const thread = `t-${kind.replace(/\W+/g, '-')}`;
    const other = `${thread}-other`;
    const ids: number[] = [];
    beforeAll(async () => {
      c = await connectClient(kind, f);
    }, 60_000);
    afterAll(async () => {
      await c?.close();
    });

    it('lists the fifteen memory tools beside the document tools', async () => {
      const names = await c.listTools();
      for (const t of [...MEMORY_WRITE_TOOL_NAMES, ...MEMORY_READ_TOOL_NAMES]) expect(names, t).toContain(t);
    });

    it('store_context and store_context_batch', async () => {
      const one = await c.callTool('store_context', { thread_id: thread, source: 'agent', text: 'The deploy pipeline retries flaky integration tests with exponential backoff.', metadata: { status: 'active', priority: 3, team: { name: 'Infra' } }, tags: ['CI', 'retry'] });
      expect(one.isError).toBeFalsy();
      const stored = json<{ success: boolean; context_id: number; thread_id: string; message: string }>(one);
      expect(stored).toMatchObject({ success: true, thread_id: thread });
      expect(one.structuredContent).toEqual(stored);
      ids.push(stored.context_id);
      const batch = await c.callTool('store_context_batch', {
        entries: [
          { thread_id: thread, source: 'user', text: 'Remember that the staging database is refreshed every Sunday night.', metadata: { status: 'done', priority: 1 }, tags: ['db'] },
          { thread_id: thread, source: 'agent', text: 'Screenshot of the dashboard.', images: [{ data: PIXEL, mime_type: 'image/png' }] },
          { thread_id: other, source: 'user', text: 'Pack an umbrella; showers all afternoon.', metadata: { status: 'active', priority: 7 } },
        ],
      });
      const b = json<{ success: boolean; total: number; succeeded: number; failed: number; results: { index: number; success: boolean; context_id: number }[] }>(batch);
      expect(b).toMatchObject({ success: true, total: 3, succeeded: 3, failed: 0 });
      ids.push(...b.results.map((r) => r.context_id));
    });

    it('get_context_by_ids: full text, images with their data by default', async () => {
      const r = await c.callTool('get_context_by_ids', { context_ids: [ids[2]!, ids[0]!] });
      const entries = json<Entry[]>(r);
      expect(entries.map((e) => e.id)).toEqual([ids[2], ids[0]]);
      expect(entries[0]).toMatchObject({ content_type: 'multimodal', images: [{ mime_type: 'image/png', data: PIXEL }], summary: '', is_text_content_truncated: false });
      expect(entries[1]).toMatchObject({ thread_id: thread, source: 'agent', tags: ['ci', 'retry'], metadata: { status: 'active', priority: 3, team: { name: 'Infra' } } });
      expect(r.structuredContent).toMatchObject({ result: entries, not_found: [] });
    });

    it('search_context: filters only, newest first', async () => {
      const r = json<{ results: Entry[]; count: number; total: number }>(await c.callTool('search_context', { thread_id: thread, metadata_filters: [{ key: 'priority', operator: 'lte', value: 3 }], explain_query: true }));
      expect(r.results.map((e) => e.id)).toEqual([ids[1], ids[0]]);
      expect(r.count).toBe(2);
      const tagged = json<{ results: Entry[] }>(await c.callTool('search_context', { tags: ['DB', 'nope'], source: 'user', thread_id: thread }));
      expect(tagged.results.map((e) => e.id)).toEqual([ids[1]]);
    });

    it('fts_search_context: natural language, highlights, scores', async () => {
      const r = await c.callTool('fts_search_context', { query: "what's our retry policy for flaky tests?", highlight: true, thread_id: thread });
      expect(r.isError).toBeFalsy();
      const body = json<{ query: string; mode: string; language: string; results: Scored[]; count: number }>(r);
      expect(body.mode).toBe('match');
      expect(body.results[0]!.id).toBe(ids[0]);
      expect(body.results[0]!.scores).toEqual({ fts_score: expect.any(Number), fts_rank: null, rerank_score: null });
      expect(body.results[0]!.highlighted).toMatch(/<mark>retries<\/mark> <mark>flaky<\/mark>/);
    });

    it('semantic_search_context and hybrid_search_context once the entries are embedded', { timeout: 120_000 }, async () => {
      await f.engine.embed();
      const s = json<{ query: string; model: string; results: Scored[] }>(await c.callTool('semantic_search_context', { query: 'will it rain this afternoon?', limit: 2 }));
      expect(s.model).toBe('all-MiniLM-L6-v2');
      expect(s.results[0]!.id).toBe(ids[3]);
      expect(s.results[0]!.scores.semantic_distance).toBeGreaterThan(0);
      const h = json<{ fusion_method: string; search_modes_used: string[]; fts_count: number; semantic_count: number; results: Scored[] }>(
        await c.callTool('hybrid_search_context', { query: 'staging database refresh', thread_id: thread, limit: 3 }),
      );
      expect(h.fusion_method).toBe('rrf');
      expect(h.search_modes_used).toEqual(['fts', 'semantic']);
      expect(h.results[0]!.id).toBe(ids[1]);
      expect(h.results[0]!.scores).toMatchObject({ fts_rank: 1, semantic_rank: 1, rrf: expect.any(Number), rerank_score: null });
      expect(h.results.every((e) => e.thread_id === thread)).toBe(true);
    });

    it('semantic_search and hybrid_search (the persistence server): conversations, threshold, weights', { timeout: 60_000 }, async () => {
      const s = json<{ results: { messageId: string; conversationId: string; content: string; similarity: number; preview: string }[]; totalCount: number; hasMore: boolean; metadata: { model: string; threshold: number } }>(
        await c.callTool('semantic_search', { query: 'umbrella and rain showers', threshold: 0.3, conversationId: other }),
      );
      expect(s.results.map((r) => r.messageId)).toEqual([String(ids[3])]);
      expect(s.results[0]).toMatchObject({ conversationId: other, content: 'Pack an umbrella; showers all afternoon.' });
      expect(s.metadata).toMatchObject({ model: 'all-MiniLM-L6-v2', threshold: 0.3 });
      const none = json<{ results: unknown[]; totalCount: number }>(await c.callTool('semantic_search', { query: 'umbrella and rain showers', threshold: 0.99, conversationId: other }));
      expect(none).toMatchObject({ results: [], totalCount: 0 });
      const h = json<{ results: { messageId: string; score: number; highlights: string[]; matchType: string; subScores: { fts?: number; semantic?: number } }[]; metadata: { weights: unknown }; pagination: unknown }>(
        await c.callTool('hybrid_search', { query: 'staging database', conversationId: thread, weights: { semantic: 0.5, fts: 0.5 }, limit: 2 }),
      );
      expect(h.results[0]).toMatchObject({ messageId: String(ids[1]), matchType: 'hybrid', subScores: { fts: expect.any(Number), semantic: expect.any(Number) } });
      expect(h.results[0]!.highlights.join(' ')).toMatch(/<mark>staging<\/mark> <mark>database<\/mark>/);
      expect(h.metadata.weights).toEqual({ semantic: 0.5, fts: 0.5 });
      expect(h.pagination).toEqual({ offset: 0, limit: 2 });
    });

    it('update_context and update_context_batch', async () => {
      const u = json<{ success: boolean; context_id: number; updated_fields: string[] }>(await c.callTool('update_context', { context_id: ids[0]!, metadata_patch: { status: 'done', team: null } }));
      expect(u).toMatchObject({ success: true, context_id: ids[0], updated_fields: ['metadata'] });
      const b = json<{ succeeded: number; results: { updated_fields: string[] | null }[] }>(
        await c.callTool('update_context_batch', { updates: [{ context_id: ids[1]!, tags: ['db', 'weekly'] }, { context_id: ids[2]!, images: [] }] }),
      );
      expect(b.succeeded).toBe(2);
      expect(b.results.map((r) => r.updated_fields)).toEqual([['tags'], ['images', 'content_type']]);
      const [e0, e1, e2] = json<Entry[]>(await c.callTool('get_context_by_ids', { context_ids: ids.slice(0, 3) }));
      expect(e0!.metadata).toEqual({ status: 'done', priority: 3 });
      expect(e1!.tags).toEqual(['db', 'weekly']);
      expect(e2!.content_type).toBe('text');
    });

    it('list_threads and get_statistics', async () => {
      const t = json<{ threads: { thread_id: string; entry_count: number; source_types: number }[]; total_threads: number }>(await c.callTool('list_threads', {}));
      expect(t.threads.find((x) => x.thread_id === thread)).toMatchObject({ entry_count: 3, source_types: 2 });
      const s = json<{ total_entries: number; fts: { indexed_entries: number }; semantic_search: { model: string }; search_metrics: { query_type: string; count: number }[] }>(await c.callTool('get_statistics', {}));
      expect(s.total_entries).toBeGreaterThanOrEqual(4);
      expect(s.fts.indexed_entries).toBe(s.total_entries);
      expect(s.search_metrics.map((m) => m.query_type).sort()).toEqual(['fts', 'hybrid', 'semantic']);
    });

    it('delete_context and delete_context_batch', async () => {
      const d = json<{ success: boolean; deleted_count: number }>(await c.callTool('delete_context', { context_ids: [ids[2]!] }));
      expect(d).toMatchObject({ success: true, deleted_count: 1 });
      const b = json<{ deleted_count: number; criteria_used: string[] }>(await c.callTool('delete_context_batch', { thread_ids: [thread, other], source: 'user' }));
      expect(b).toEqual(expect.objectContaining({ deleted_count: 2, criteria_used: ['thread_ids', 'source'] }));
      const left = json<{ results: Entry[] }>(await c.callTool('search_context', { thread_id: thread }));
      expect(left.results.map((e) => e.id)).toEqual([ids[0]]);
      const gone = await c.callTool('get_context_by_ids', { context_ids: [ids[2]!] });
      expect(gone.isError).toBe(true);
      expect(text(gone)).toMatch(/no context entries with id/);
    });
  });
});
