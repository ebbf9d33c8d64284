// The context server's memory tools and the persistence server's search over `trove serve
// --database`: a real host process on PostgreSQL and the SQLite host get the same calls from real
// SDK clients (v1 over a 2025 session, v2 on the stateless 2026-07-28 revision) and give the same
// answers — writes, reads, every metadata operator, date forms, merge patch, images, atomic and
// per-item batches (a bad entry writes nothing), keyword search in every mode, semantic and hybrid
// search once the host has embedded the entries in the background, statistics, cascading deletes
// and the errors for bad input. A token without a memory grant sees no memory tools there either.
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, openSharedIndex } from '../../src-main/engine/index.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, startServe, type ServingTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const TOKEN = 'test-runtime-token-0123456789';

let engine: Engine;
let lite: Host;
let pgHost: ServingTrove;
let url: string;
let readOnlySecret: string;
let noMemorySecret: string;

beforeAll(async () => {
  ensureBuilt();
  url = await freshDatabase('pgmemory');
  const home = tempDir('trove-pgmemory-home-');
  // tokens live in the database: made before the host starts, as `trove token create --database` would
  const admin = await openSharedIndex(url, { profileDir: home });
  readOnlySecret = (await admin.createToken({ name: 'memory-reader', memory: 'read' })).token;
  noMemorySecret = (await admin.createToken({ name: 'no-memory', memory: 'none' })).token;
  await admin.close();
  pgHost = await startServe(['--database', url], { home, env: { TROVE_MODELS_DIR: modelsDir } });
  engine = await Engine.open({ profileDir: tempDir('trove-pgmemory-lite-'), embeddings: { modelsDir } });
  lite = await startHost({ engine, port: 0, writeRuntimeFile: false, token: TOKEN });
}, 120_000);

afterAll(async () => {
  await pgHost?.stop();
  await lite?.close();
  await engine?.close();
  removeTempDirs();
});

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
}
interface AnyClient {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  close(): Promise<void>;
}

async function connect(mcpUrl: string, era: 'v1' | 'v2', token: string): Promise<AnyClient> {
  const headers = { Authorization: `Bearer ${token}` };
  if (era === 'v1') {
    const client = new V1Client({ name: 'pg-memory-v1', version: '1' });
    await client.connect(new V1Http(new URL(mcpUrl), { requestInit: { headers } }));
    return client as unknown as AnyClient;
  }
  const client = new V2Client({ name: 'pg-memory-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new V2Http(new URL(mcpUrl), { requestInit: { headers } }));
  return client as unknown as AnyClient;
}

/**
 * What differs between two hosts on purpose: timings, creation times (written a moment apart), the
 * file's size, the backend's name. Texts holding JSON are compared parsed: PostgreSQL's jsonb keeps
 * a metadata object's keys in its own order (the same keys and values). After deletes, SQLite's
 * native BM25 still counts rows FTS5 no longer holds on an index this small while PostgreSQL counts
 * the rows there are, so the raw fts_score is left out (the entries, their order, ranks and fused
 * scores are compared; test/storage/shared-memory.test.ts compares the raw BM25 before any delete).
 */
const VARYING = new Set(['took_ms', 'execution_time_ms', 'search_ms', 'embedding_generation_ms', 'created_at', 'updated_at', 'first_entry', 'last_entry', 'timestamp', 'database_size_mb', 'database_bytes', 'avg_execution_time_ms', 'last_search', 'backend', 'engine', 'segments', 'searchDuration', 'fts_score', 'session', 'last_modified']);

function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(comparable);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([k]) => !VARYING.has(k))
        .map(([k, x]) => [k, k === 'text' && typeof x === 'string' && /^[{[]/.test(x) ? comparable(JSON.parse(x)) : typeof x === 'number' && !Number.isInteger(x) ? Math.round(x * 1000) / 1000 : comparable(x)]),
    );
  }
  // ISO times inside texts (a listing's lines) differ by the moment of writing
  return typeof v === 'string' ? v.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>') : v;
}

describe.each(['v1', 'v2'] as const)('memory tools on `trove serve --database` answer as on SQLite (%s client)', (era) => {
  let onLite: AnyClient;
  let onPg: AnyClient;
  const thread = (t: string) => `${era}-${t}`;
  beforeAll(async () => {
    [onLite, onPg] = await Promise.all([connect(lite.mcpUrl, era, TOKEN), connect(pgHost.started.mcpUrl, era, pgHost.token)]);
  });
  afterAll(async () => {
    await Promise.all([onLite?.close(), onPg?.close()]);
  });

  /** The same call on both hosts; the answers compared; the PostgreSQL one returned. */
  async function same(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const [a, b] = (await Promise.all([onLite.callTool({ name, arguments: args }), onPg.callTool({ name, arguments: args })])) as ToolResult[];
    expect(comparable(b), `${name} ${JSON.stringify(args)}`).toEqual(comparable(a));
    return b!;
  }
  /** Memory embedded on both: by the SQLite engine's stage, and by the PostgreSQL host in the background (polled). */
  async function embedded(): Promise<void> {
    await engine.embed({ collection: '~memory' });
    await expect
      .poll(async () => ((await onPg.callTool({ name: 'get_statistics', arguments: {} })) as ToolResult).structuredContent?.semantic_search, { timeout: 90_000, interval: 200 })
      .toMatchObject({ pending_embeddings: 0 });
  }
  const data = (r: ToolResult) => r.structuredContent as Record<string, unknown> & { results: { id: number; text_content: string }[] };

  it('the same tools are listed', async () => {
    const [a, b] = await Promise.all([onLite.listTools(), onPg.listTools()]);
    expect(b.tools.map((t) => t.name).sort()).toEqual(a.tools.map((t) => t.name).sort());
    expect(b.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['store_context', 'hybrid_search_context', 'semantic_search', 'hybrid_search']));
  });

  it('writes, reads, filters, keyword search, batches, updates and deletes', async () => {
    const image = Buffer.from('tiny image bytes').toString('base64');
    await same('store_context', { thread_id: thread('ops'), source: 'agent', text: 'Deploy the retry service with exponential backoff.', metadata: { status: 'Active', priority: 5, team: { name: 'Core' }, langs: ['ts', 'Go'], owner: null }, tags: ['ops', 'Retry'] });
    await same('store_context', { thread_id: thread('ops'), source: 'user', text: 'Is the backoff capped? Jitter matters too.', metadata: { status: 'pending', priority: 2, team: { name: 'platform' } }, tags: ['question'] });
    await same('store_context', { thread_id: thread('crawl'), source: 'agent', text: 'Backoff notes for the crawler: cap at thirty seconds.', metadata: { status: 'done', priority: 9, team: { name: 'Crawl-Team' }, title: 'Crawler notes' }, tags: ['OPS'], images: [{ data: image, mime_type: 'image/png' }] });
    await same('store_context', { thread_id: thread('travel'), source: 'user', text: '東京の天気は晴れです。東京タワーは赤い。', metadata: { priority: '5' } });
    const ids = data(await same('search_context', { thread_id: thread('ops') })).results.map((r) => r.id);
    expect(ids).toHaveLength(2);

    // every operator, simple equality, tags, source, content type, date forms
    const filters: Record<string, unknown>[] = [
      ...['eq', 'ne'].flatMap((operator) => [{ key: 'status', operator, value: 'active' }, { key: 'priority', operator, value: 5 }, { key: 'owner', operator, value: null }]),
      ...['gt', 'gte', 'lt', 'lte'].flatMap((operator) => [{ key: 'priority', operator, value: 5 }, { key: 'status', operator, value: 'Done' }]),
      { key: 'status', operator: 'in', value: ['ACTIVE', 'done'] },
      { key: 'priority', operator: 'not_in', value: [2, 9] },
      ...['exists', 'not_exists', 'is_null', 'is_not_null'].map((operator) => ({ key: 'owner', operator })),
      { key: 'team.name', operator: 'contains', value: 'TEAM' },
      { key: 'team.name', operator: 'contains', value: 'TEAM', case_sensitive: true },
      { key: 'team.name', operator: 'starts_with', value: 'plat' },
      { key: 'team.name', operator: 'ends_with', value: 'team' },
      { key: 'langs', operator: 'array_contains', value: 'go' },
      { key: 'langs', operator: 'array_contains', value: 'go', case_sensitive: true },
    ];
    for (const f of filters) await same('search_context', { metadata_filters: [f] });
    expect(data(await same('search_context', { thread_id: thread('crawl'), metadata_filters: [{ key: 'team.name', operator: 'contains', value: 'TEAM' }] })).results).toHaveLength(1);
    await same('search_context', { metadata: { status: 'Active' } });
    await same('search_context', { tags: ['ops', 'question'] });
    await same('search_context', { source: 'user', content_type: 'text' });
    await same('search_context', { content_type: 'multimodal', include_images: true });
    for (const [start_date, end_date] of [['2000-01-01', undefined], [undefined, '2000-01-01'], ['2000-01-01T00:00:00', '2099-12-31'], ['2000-01-01T00:00:00+02:00', '2099-12-31T23:59:59.999Z']]) {
      await same('search_context', { start_date, end_date, limit: 2, explain_query: true });
    }

    // keyword search in every mode, with filters
    await same('fts_search_context', { query: 'backoff', highlight: true, explain_query: true });
    await same('fts_search_context', { query: 'back', mode: 'prefix' });
    await same('fts_search_context', { query: 'exponential backoff', mode: 'phrase' });
    await same('fts_search_context', { query: 'backoff AND NOT jitter', mode: 'boolean' });
    await same('fts_search_context', { query: '東京の天気' });
    await same('fts_search_context', { query: 'crawler notes', source: 'agent', metadata_filters: [{ key: 'priority', operator: 'gte', value: 5 }] });
    await same('fts_search_context', { query: 'backoff', limit: 1, offset: 1 });

    // reads
    await same('get_context_by_ids', { context_ids: [...ids, 99999], include_images: true });
    await same('list_threads', {});

    // updates: text, metadata patch (null deletes, nested merge), full replacement, tags, images; errors
    await same('update_context', { context_id: ids[0], metadata_patch: { team: { name: null, lead: 'Ann' }, level: 3 } });
    await same('update_context', { context_id: ids[1], text: 'Is the backoff capped? Jitter and caps matter.', tags: ['question', 'caps'] });
    await same('update_context', { context_id: ids[1], metadata: { title: 'Capped backoff' } });
    await same('update_context', { context_id: ids[0], images: [{ data: image, mime_type: 'image/png' }] });
    await same('get_context_by_ids', { context_ids: ids, include_images: true });
    await same('fts_search_context', { query: 'capped' });
    await same('update_context', { context_id: 99999, text: 'nothing' });
    await same('update_context', { context_id: ids[0] });
    await same('update_context_batch', { updates: [{ context_id: ids[0], text: 'edited' }, { context_id: 99999, text: 'x' }] });
    await same('update_context_batch', { updates: [{ context_id: ids[0], text: 'Deploy the retry service, edited.' }, { context_id: 99999, text: 'x' }], atomic: false });

    // batches: atomic writes nothing when one entry is bad; per-item writes the good ones
    const batch = { entries: [{ thread_id: thread('batch'), source: 'agent', text: 'first good one' }, { thread_id: thread('batch'), source: 'agent', text: 'bad image', images: [{ data: '!!!', mime_type: 'image/png' }] }] };
    const refused = await same('store_context_batch', batch);
    expect(refused.isError).toBe(true);
    expect(data(await same('search_context', { thread_id: thread('batch') })).results).toHaveLength(0);
    await same('store_context_batch', { ...batch, atomic: false });
    expect(data(await same('search_context', { thread_id: thread('batch') })).results).toHaveLength(1);

    // bad input: the same errors
    await same('search_context', { metadata_filters: [{ key: 'status', operator: 'between', value: 1 }] });
    await same('search_context', { metadata_filters: [{ key: 'priority', operator: 'gt', value: [1] }] });
    await same('search_context', { start_date: 'yesterday' });
    await same('fts_search_context', { query: 'backoff', start_date: '2025-12-01', end_date: '2025-11-01' });

    // deletes cascade (entries, tags, images, keyword rows): gone from listings and search alike
    await same('delete_context_batch', { source: 'agent' });
    await same('delete_context_batch', { thread_ids: [thread('batch')], source: 'agent' });
    await same('delete_context', { context_ids: [ids[0]] });
    expect(data(await same('fts_search_context', { query: 'capped jitter' })).results.map((r) => r.id)).not.toContain(ids[0]);
    expect((await same('get_context_by_ids', { context_ids: [ids[0]] })).isError).toBe(true);
    await embedded();
    await same('get_statistics', {});
  });

  it('semantic and hybrid search, once the host has embedded the entries in the background', async () => {
    await same('store_context_batch', {
      entries: [
        { thread_id: thread('sem'), source: 'agent', text: 'The cache evicts the least recently used entries when memory runs low.' },
        { thread_id: thread('sem'), source: 'user', text: 'How long should a client wait between retry attempts?' },
        { thread_id: thread('sem'), source: 'agent', text: 'Wait a little longer after each failed attempt: exponential backoff with jitter.' },
      ],
    });
    await embedded();
    const sem = await same('semantic_search_context', { query: 'pausing before trying again', thread_id: thread('sem'), explain_query: true });
    expect(data(sem).results.length).toBeGreaterThan(0);
    await same('semantic_search_context', { query: 'pausing before trying again', limit: 2 });
    await same('hybrid_search_context', { query: 'retry backoff', thread_id: thread('sem') });
    await same('hybrid_search_context', { query: 'retry backoff', fusion_method: 'weighted', weights: { fts: 0.3, semantic: 0.7 } });
    await same('semantic_search', { query: 'pausing before trying again', conversationId: thread('sem'), threshold: 0.2 });
    await same('hybrid_search', { query: 'retry backoff', conversationId: thread('sem'), matchType: 'fuzzy' });
    await same('hybrid_search', { query: 'retry', matchType: 'prefix', weights: { semantic: 0.5, fts: 0.5 } });
    await same('hybrid_search', { query: 'retry', weights: { semantic: 0.9, fts: 0.5 } });
    await same('get_statistics', {});
    // the knowledge spec's vocabulary over memory: chats (its threads), chats.sender, a numeric id
    const chats = await same('knowledge.search', { query: 'pausing before trying again', sources: ['chats', 'prompts'], mode: 'semantic', filters: { chats: { sender: 'agent', by: 'title' } }, dedupe: false });
    const found = (chats.structuredContent as { results: { source: string; sender: string; message_id: string }[] }).results;
    expect(found.length).toBeGreaterThan(0);
    for (const r of found) expect(r).toMatchObject({ source: 'chats', sender: 'agent' });
    await same('knowledge.get', { source: 'chats', id: Number(found[0]!.message_id), retrieval: { mode: 'chunk_with_siblings', max_tokens: 80 } });
    // and its per-source tools: chats.search, chats.get paging through a conversation oldest first
    await same('chats.search', { query: 'retry attempts', sender: 'user', mode: 'semantic', dedupe: false });
    const conversation = await same('chats.get', { conversation_id: thread('sem'), page: 2, page_size: 2 });
    expect(conversation.structuredContent).toMatchObject({ total_messages: 3, has_more: false, attachments: [{ sender: 'agent' }] });
    await same('chats.get', { conversation_id: thread('nowhere') });
  }, 150_000);
});

describe('grants on a PostgreSQL host', () => {
  it('a read grant sees the search tools only; no grant, no memory tools at all', async () => {
    const reader = await connect(pgHost.started.mcpUrl, 'v2', readOnlySecret);
    const outsider = await connect(pgHost.started.mcpUrl, 'v2', noMemorySecret);
    try {
      const readable = (await reader.listTools()).tools.map((t) => t.name);
      expect(readable).toEqual(expect.arrayContaining(['fts_search_context', 'get_context_by_ids', 'semantic_search']));
      expect(readable).not.toContain('store_context');
      await expect(reader.callTool({ name: 'store_context', arguments: { thread_id: 't', source: 'agent', text: 'x' } })).rejects.toThrow(/not found/);
      const outside = (await outsider.listTools()).tools.map((t) => t.name);
      expect(outside.filter((n) => /context|semantic_search|hybrid_search|^memory\./.test(n))).toEqual([]);
    } finally {
      await Promise.all([reader.close(), outsider.close()]);
    }
  });
});
