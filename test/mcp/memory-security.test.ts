// Who may see and write memory: a token's memory grant (none | read | write) decides which memory
// tools it is shown, a tool allow-list still applies, a token scoped to some collections sees no
// memory unless granted, and an unscoped token may write by default. A tool a token cannot use
// is as unknown to it as one that does not exist, and nothing is written through it. On both
// backends: tokens and memory live in the index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_READ_TOOL_NAMES, MEMORY_WRITE_TOOL_NAMES } from '../../src-main/mcp/tools/index.js';
import { describeBackends } from '../helpers/backends.js';
import { connectClient, json, memoryFixture, type MemoryFixture, type ToolClient } from './memory-helpers.js';

// QMD's six and the knowledge toolset (memory.search / memory.get are memory tools: a read grant shows them)
const DOCUMENT_TOOLS = [
  ...['search', 'vsearch', 'query', 'get', 'multi_get', 'status', 'knowledge.search', 'knowledge.get', 'knowledge.session', 'documents.search', 'documents.get', 'datasets.search', 'datasets.get'],
  ...['notes.search', 'notes.get', 'media.search', 'media.get'],
];

describeBackends('memory grants and redaction', (b) => {
  let f: MemoryFixture;
  beforeAll(async () => {
    f = await memoryFixture(b);
    await f.engine.memory.store({ threadId: 'private', source: 'user', text: 'My bank PIN hint is the dog’s birthday.' });
  }, 60_000);
  afterAll(async () => {
    await f?.cleanup();
  });

  /** A call of a tool the caller is not shown: refused like a tool that does not exist. */
  async function unknownTool(c: ToolClient, tool: string, args: Record<string, unknown>): Promise<void> {
    await expect(c.callTool(tool, args), tool).rejects.toThrow(new RegExp(`Tool ${tool} not found`));
  }

  async function token(name: string, opts: Parameters<MemoryFixture['engine']['createToken']>[0] extends infer T ? Omit<T & object, 'name'> : never): Promise<string> {
    return (await f.engine.createToken({ name, ...opts })).token;
  }

  describe('memory grants', () => {
    it('a token scoped to some collections sees no memory tool and cannot reach memory', async () => {
      const t = await token('notes-only', { collections: ['notes'] });
      expect((await f.engine.listTokens()).find((x) => x.name === 'notes-only')!.memory).toBe('none');
      const c = await connectClient('v2 http 2026-07-28', f, t);
      try {
        expect((await c.listTools()).sort()).toEqual([...DOCUMENT_TOOLS].sort());
        for (const tool of ['store_context', 'fts_search_context', 'semantic_search', 'get_context_by_ids', 'list_threads']) {
          await unknownTool(c, tool, { query: 'PIN', thread_id: 'x', source: 'agent', text: 'sneaky', context_ids: [1] });
        }
        const status = await c.callTool('status', {});
        expect(status.structuredContent).not.toHaveProperty('memory');
        expect((await f.engine.memory.list({ threadId: 'x' })).total).toBe(0);
      } finally {
        await c.close();
      }
    });

    it('a read grant shows the search, get, list and statistics tools only; writes are refused', async () => {
      const t = await token('reader', { collections: ['notes'], memory: 'read' });
      const c = await connectClient('v2 http 2025-11-25', f, t);
      try {
        const names = await c.listTools();
        expect(names.filter((n) => !DOCUMENT_TOOLS.includes(n)).sort()).toEqual([...MEMORY_READ_TOOL_NAMES].sort());
        const found = json<{ results: { text_content: string }[] }>(await c.callTool('fts_search_context', { query: 'bank PIN' }));
        expect(found.results.map((r) => r.text_content)).toEqual(['My bank PIN hint is the dog’s birthday.']);
        await unknownTool(c, 'store_context', { thread_id: 'x', source: 'agent', text: 'sneaky' });
        await unknownTool(c, 'delete_context', { thread_id: 'private' });
        await unknownTool(c, 'update_context_batch', { updates: [{ context_id: 1, text: 'changed' }] });
        expect((await f.engine.memory.list({ threadId: 'private' })).total).toBe(1);
        expect((await c.callTool('status', {})).structuredContent).toMatchObject({ memory: { entries: 1, threads: 1 } });
      } finally {
        await c.close();
      }
    });

    it('an unscoped token writes by default; a tool allow-list still limits it; --memory none takes memory away', async () => {
      expect((await f.engine.createToken({ name: 'everything' })).info.memory).toBe('write');
      const t = await token('store-only', { tools: ['store_context', 'search'] });
      const c = await connectClient('v1 http', f, t);
      try {
        expect((await c.listTools()).sort()).toEqual(['search', 'store_context']);
        expect((await c.callTool('store_context', { thread_id: 'allowed', source: 'agent', text: 'Stored through an allow-listed tool.' })).isError).toBeFalsy();
        await unknownTool(c, 'fts_search_context', { query: 'stored' });
      } finally {
        await c.close();
      }
      const none = await connectClient('v2 http 2026-07-28', f, await token('no-memory', { memory: 'none' }));
      try {
        expect((await none.listTools()).sort()).toEqual([...DOCUMENT_TOOLS].sort());
      } finally {
        await none.close();
      }
      expect((await f.engine.memory.list({ threadId: 'allowed' })).total).toBe(1);
      expect(MEMORY_WRITE_TOOL_NAMES.every((n) => !MEMORY_READ_TOOL_NAMES.includes(n))).toBe(true);
    });

    it('over stdio, the token the shim sends decides too', { timeout: 60_000 }, async () => {
      const c = await connectClient('v2 stdio', f, await token('stdio-reader', { memory: 'read', tools: ['search_context', 'store_context'] }));
      try {
        expect(await c.listTools()).toEqual(['search_context']);
        const r = json<{ total: number }>(await c.callTool('search_context', { thread_id: 'private' }));
        expect(r.total).toBe(1);
      } finally {
        await c.close();
      }
    });

    it('redaction rules cover memory text in every result shape', async () => {
      await f.engine.memory.store({ threadId: 'keys', source: 'agent', text: 'The deploy key is sk-live-12345abcde; rotate it monthly.', metadata: { title: 'Key sk-live-12345abcde' } });
      f.engine.settings.update({ redaction: ['sk-live-[a-z0-9]+'] });
      const c = await connectClient('v2 http 2026-07-28', f);
      try {
        for (const [tool, args] of [
          ['fts_search_context', { query: 'deploy key rotate', highlight: true }],
          ['search_context', { thread_id: 'keys' }],
          ['get_context_by_ids', { context_ids: [(await f.engine.memory.list({ threadId: 'keys' })).entries[0]!.id] }],
          ['hybrid_search', { query: 'deploy key rotate', conversationId: 'keys' }],
        ] as const) {
          const r = await c.callTool(tool, args);
          expect(r.isError, `${tool}: ${JSON.stringify(r.content)}`).toBeFalsy();
          const all = JSON.stringify(r);
          expect(all, tool).not.toContain('sk-live-12345abcde');
          expect(all, tool).toContain('[redacted]');
        }
      } finally {
        f.engine.settings.update({ redaction: [] });
        await c.close();
      }
    });

    it('a secret in memory text is redacted in structuredContent, and the text block is the JSON of what structuredContent says', async () => {
      const secret = `ghp_${'Q7x2Lm9Pz4Rk8Tv3Wn6Ys1Ub5Hd0Jf2Gc7Ea'}`; // made up: ghp_ and 36 characters
      const c = await connectClient('v2 http 2026-07-28', f);
      try {
      const stored = await c.callTool('store_context', { thread_id: 'secrets', source: 'agent', text: `CI reads the token ${secret} from the vault`, metadata: { title: 'vault token' } });
      // a write's answer holds no stored text: it goes out as built
      expect(stored.isError).toBeFalsy();
      expect((stored.content as { text: string }[])[0]!.text).toBe(JSON.stringify(stored.structuredContent));
      for (const [tool, args] of [
        ['fts_search_context', { query: 'vault token', highlight: true }],
        ['search_context', { thread_id: 'secrets' }],
        ['get_context_by_ids', { context_ids: [(stored.structuredContent as { context_id: number }).context_id] }],
      ] as const) {
        const r = await c.callTool(tool, args);
        expect(r.isError, `${tool}: ${JSON.stringify(r.content)}`).toBeFalsy();
        expect(JSON.stringify(r), tool).not.toContain(secret);
        expect(JSON.stringify(r.structuredContent), tool).toContain('[redacted secret]');
        const text = (r.content as { text: string }[])[0]!.text;
        // get_context_by_ids' text is its list of entries; the others' text is the whole answer
        expect(JSON.parse(text), tool).toEqual(tool === 'get_context_by_ids' ? (r.structuredContent as { result: unknown }).result : r.structuredContent);
      }
      } finally {
        await c.close();
      }
    });

    it('refuses a grant that is not none, read or write', async () => {
      await expect(f.engine.createToken({ name: 'odd', memory: 'admin' as 'read' })).rejects.toThrow(/memory must be none, read or write/);
    });
  });
});
