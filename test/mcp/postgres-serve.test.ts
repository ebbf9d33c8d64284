// `trove serve --database`: the MCP surface served from an index in PostgreSQL. A profile indexed
// and embedded on SQLite is migrated (`trove migrate`), then one host serves the SQLite engine and
// another the PostgreSQL index (SharedIndex), and real SDK clients (v1 over a 2025 session, v2 on
// the stateless 2026-07-28 revision) ask both the same questions: QMD's tools in every search
// mode, get, multi_get, status, the document resource and its completions, the knowledge toolset
// over documents, the deep-research profile — the answers must be equal. Then what differs on
// purpose: none (datasets — the same FAISS fixtures added on both — and memory answer alike: see also
// postgres-memory.test.ts); a token
// from the database scoped to one collection cannot see the other; and the CLI: a bad URL, an
// unreachable server give clear errors at start-up, `trove serve --database` serves a real
// client over the server's unix socket, and `trove mcp` with TROVE_DATABASE_URL relays to such a host.
import fs from 'node:fs';
import path from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, openSharedIndex, type SharedIndex } from '../../src-main/engine/index.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { migrateToPostgres } from '../../src-main/engine/store/migrate/to-postgres.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { readRuntimeFile } from '../../src-main/host/runtime-file.js';
import { modelsDir } from '../embed/models-dir.js';
import { BIN, ensureBuilt, runTrove, startServe } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from '../datasets/fixtures.js';

const NOTES: Record<string, string> = {
  'docs/resilience.md': '# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds.\n',
  'docs/client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections. Failed requests are logged.\n',
  'docs/backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  'notes/deploy.md': '# Deploy\n\nThe deploy script reads AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY12 from the vault.\n',
  'notes/tokyo.md': '# 東京\n\n東京の天気は晴れです。東京タワーは赤い。\n',
};
const PRIVATE: Record<string, string> = {
  'plans.md': '# Merger plans\n\nThe acquisition closes in spring; backoff on the negotiations.\n',
  'keys.md': '# Keys\n\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY34 stays here.\n',
};
const TOKEN = 'test-runtime-token-0123456789';
const embeddings = { modelsDir, defaultModel: 'all-MiniLM-L6-v2', rerankModel: 'test-tiny-cross-encoder', workers: 1 };

let profile: string;
let url: string;
let engine: Engine;
let shared: SharedIndex;
let lite: Host;
let pgHost: Host<SharedIndex>;
let scopedSecret: string;

beforeAll(async () => {
  const root = tempDir('trove-pgserve-root-');
  writeTree(path.join(root, 'notes'), NOTES);
  writeTree(path.join(root, 'private'), PRIVATE);
  profile = tempDir('trove-pgserve-profile-');
  const indexer = await Engine.open({ profileDir: profile, embeddings });
  await indexer.addCollection({ root: path.join(root, 'notes'), name: 'notes', context: 'Engineering notes' });
  await indexer.addCollection({ root: path.join(root, 'private'), name: 'private' });
  await indexer.setCollectionRedaction('private', false); // per-collection redaction travels with the index
  await indexer.index();
  await indexer.embed();
  await indexer.close();
  url = await freshDatabase('pgserve');
  await migrateToPostgres({ sqliteFile: databasePath(profile), url });
  engine = await Engine.open({ profileDir: profile, embeddings });
  shared = await openSharedIndex(url, { profileDir: profile, embeddings });
  scopedSecret = (await shared.createToken({ name: 'notes-only', collections: ['notes'] })).token;
  lite = await startHost({ engine, port: 0, writeRuntimeFile: false, token: TOKEN });
  pgHost = await startHost({ engine: shared, port: 0, writeRuntimeFile: false, token: TOKEN });
}, 180_000);

afterAll(async () => {
  await pgHost?.close();
  await lite?.close();
  await shared?.close();
  await engine?.close();
  removeTempDirs();
});

type Era = 'v1' | 'v2';
interface AnyClient {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(p: { uri: string }): Promise<unknown>;
  complete(p: unknown): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  close(): Promise<void>;
}

async function connect(host: Host<Engine | SharedIndex>, era: Era, token = TOKEN, name = `pg-serve-${era}`): Promise<AnyClient> {
  const headers = { Authorization: `Bearer ${token}` };
  if (era === 'v1') {
    const client = new V1Client({ name, version: '1' });
    await client.connect(new V1Http(new URL(host.mcpUrl), { requestInit: { headers } }));
    return client as unknown as AnyClient;
  }
  const client = new V2Client({ name, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new V2Http(new URL(host.mcpUrl), { requestInit: { headers } }));
  return client as unknown as AnyClient;
}

/** A result without what differs between two runs of the same call: timings and knowledge session handles. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => k !== 'took_ms' && k !== 'session')
        .map(([k, v]) => [k, k === 'text' && typeof v === 'string' && v.startsWith('{') ? comparable(JSON.parse(v)) : comparable(v)]),
    );
  }
  return value;
}

const CALLS: { name: string; arguments: Record<string, unknown> }[] = [
  { name: 'search', arguments: { query: 'retries exponential backoff' } },
  { name: 'search', arguments: { query: 'requests failed timeouts', limit: 2 } },
  { name: 'search', arguments: { query: 'backoff', collection: 'private' } },
  { name: 'search', arguments: { query: '東京の天気' } },
  { name: 'search', arguments: { query: 'AWS secret access key vault' } }, // snippets redacted per collection
  { name: 'search', arguments: { query: 'backoff', collection: 'nope' } },
  { name: 'vsearch', arguments: { query: 'how long before a request gives up' } },
  { name: 'query', arguments: { query: 'waiting longer between attempts' } },
  { name: 'get', arguments: { file: 'notes/docs/resilience.md' } },
  { name: 'get', arguments: { file: 'docs/resilience.md:5:2' } },
  { name: 'get', arguments: { file: 'private/keys.md' } },
  { name: 'get', arguments: { file: 'notes/notes/deploy.md' } },
  { name: 'get', arguments: { file: 'docs/resilence.md' } }, // a typo: isError with suggestions
  { name: 'multi_get', arguments: { pattern: 'docs/*.md' } },
  { name: 'multi_get', arguments: { pattern: 'docs/client.md, nothing.md' } },
  { name: 'knowledge.search', arguments: { query: 'exponential backoff retries' } },
  { name: 'knowledge.search', arguments: { query: 'backoff', mode: 'keyword', limit: 1, offset: 1, dedupe: false } },
  { name: 'knowledge.search', arguments: { query: 'acquisition', sources: ['documents:private'], dedupe: false } },
  { name: 'knowledge.get', arguments: { uri: 'trove://notes/docs/resilience.md', retrieval: { mode: 'chunk_with_siblings', max_tokens: 60 } } },
  { name: 'knowledge.get', arguments: { source: 'documents', id: 'notes/docs/backoff.md', retrieval: { mode: 'full' } } },
  { name: 'documents.search', arguments: { query: 'keep-alive connections', collections: ['notes'], dedupe: false } },
  // the knowledge spec's vocabulary: notes / media (documents by kind), chats, characters and prompts skipped, nested filters, numeric ids
  { name: 'knowledge.search', arguments: { query: 'backoff requests', sources: ['notes', 'media', 'chats', 'characters'], dedupe: false, filters: { notes: { keywords: [] }, media: { media_types: ['pdf', 'video'], order_by: 'recent' }, chats: { sender: 'user' } } } },
  { name: 'knowledge.search', arguments: { query: 'exponential backoff', mode: 'keyword', dedupe: false, filters: { notes: {}, prompts: { fields: ['name'] } } } },
  { name: 'knowledge.search', arguments: { query: 'backoff', sources: ['prompts'] } },
  { name: 'knowledge.get', arguments: { source: 'notes', id: 'notes/docs/backoff.md', retrieval: { mode: 'chunk' } } },
  { name: 'knowledge.get', arguments: { source: 'chats', id: 12345 } },
  { name: 'knowledge.get', arguments: { source: 'prompts', id: 1 } },
  { name: 'notes.search', arguments: { query: 'backoff', keywords: [], dedupe: false } },
  { name: 'notes.get', arguments: { note_id: 'notes/docs/resilience.md', query: 'timeouts', retrieval: { mode: 'chunk' } } },
  { name: 'media.search', arguments: { query: 'backoff', media_types: ['pdf'], dedupe: false } },
  { name: 'media.get', arguments: { media_id: 42 } },
  { name: 'documents.get', arguments: { id: 'private/plans.md', query: 'spring' } },
];

describe.each<Era>(['v1', 'v2'])('the MCP surface on PostgreSQL answers as on SQLite (%s client)', (era) => {
  let onLite: AnyClient;
  let onPg: AnyClient;
  beforeAll(async () => {
    [onLite, onPg] = await Promise.all([connect(lite, era), connect(pgHost, era)]);
  });
  afterAll(async () => {
    await Promise.all([onLite?.close(), onPg?.close()]);
  });

  it('QMD tools, the knowledge toolset over documents, resources and completions', async () => {
    for (const call of CALLS) {
      const [a, b] = await Promise.all([onLite.callTool(call), onPg.callTool(call)]);
      expect(comparable(b), JSON.stringify(call)).toEqual(comparable(a));
    }
    // the calls are not vacuous: hits in every mode, a redacted secret, a scoped private one shown, an error
    const hits = async (name: string, query: string) => ((await onPg.callTool({ name, arguments: { query } })) as { structuredContent: { results: unknown[] } }).structuredContent.results.length;
    expect(await hits('vsearch', 'how long before a request gives up')).toBeGreaterThan(0);
    expect(await hits('query', 'waiting longer between attempts')).toBeGreaterThan(0);
    const deploy = JSON.stringify(await onPg.callTool({ name: 'get', arguments: { file: 'notes/notes/deploy.md' } }));
    expect(deploy).not.toContain('wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY12');
    expect(JSON.stringify(await onPg.callTool({ name: 'get', arguments: { file: 'private/keys.md' } }))).toContain('EXAMPLEKEY34');
    expect(((await onPg.callTool({ name: 'get', arguments: { file: 'docs/resilence.md' } })) as { isError?: boolean }).isError).toBe(true);
    const notes = ((await onPg.callTool({ name: 'knowledge.search', arguments: { query: 'backoff requests', sources: ['notes', 'characters'], dedupe: false } })) as { structuredContent: { results: { source: string }[]; notices: string[] } }).structuredContent;
    expect(notes.results.length).toBeGreaterThan(0);
    expect(new Set(notes.results.map((r) => r.source))).toEqual(new Set(['notes']));
    expect(notes.notices.join('\n')).toMatch(/characters skipped/);

    for (const uri of ['trove://notes/docs/resilience.md', 'trove://notes/backoff.md', 'trove://private/plans.md']) {
      const [a, b] = await Promise.all([onLite.readResource({ uri }), onPg.readResource({ uri })]);
      expect(b, uri).toEqual(a);
    }
    const completion = { ref: { type: 'ref/resource', uri: 'trove://{collection}/{+path}' }, argument: { name: 'path', value: 'docs/' }, context: { arguments: { collection: 'notes' } } };
    const [ca, cb] = await Promise.all([onLite.complete(completion), onPg.complete(completion)]);
    expect(cb).toEqual(ca);
    expect(JSON.stringify(cb)).toContain('docs/backoff.md');
  });

  it('the deep-research profile (search + fetch) answers as on SQLite', async () => {
    const [a, b] = await Promise.all([connect(lite, era, TOKEN, 'openai-mcp'), connect(pgHost, era, TOKEN, 'openai-mcp')]);
    try {
      const [la, lb] = await Promise.all([a.listTools(), b.listTools()]);
      expect(lb.tools.map((t) => t.name)).toEqual(la.tools.map((t) => t.name));
      const search = { name: 'search', arguments: { query: 'exponential backoff' } };
      const [sa, sb] = await Promise.all([a.callTool(search), b.callTool(search)]);
      expect(sb).toEqual(sa);
      const id = (sb as { structuredContent: { results: { id: string }[] } }).structuredContent.results[0]!.id;
      const fetch = { name: 'fetch', arguments: { id } };
      const [fa, fb] = await Promise.all([a.callTool(fetch), b.callTool(fetch)]);
      expect(fb).toEqual(fa);
      expect(JSON.stringify(fb)).toContain('backoff');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('status: the same collections, counts and vectors', async () => {
    type Status = { structuredContent: Record<string, unknown> & { collections: Record<string, unknown>[] } };
    const [a, b] = (await Promise.all([onLite.callTool({ name: 'status', arguments: {} }), onPg.callTool({ name: 'status', arguments: {} })])) as Status[];
    const core = (s: Status['structuredContent']) => ({
      totalDocuments: s.totalDocuments,
      needsEmbedding: s.needsEmbedding,
      hasVectorIndex: s.hasVectorIndex,
      collections: s.collections.map(({ name, path, pattern, documents, kinds, lastUpdated, context }) => ({ name, path, pattern, documents, kinds, lastUpdated, context })),
    });
    expect(core(b!.structuredContent)).toEqual(core(a!.structuredContent));
    expect(b!.structuredContent.totalDocuments).toBe(7);
  });

  it('datasets answer as on SQLite (none registered here: the same isError with the same reason); memory answers there', async () => {
    const ask = { name: 'datasets.search', arguments: { query: 'remember' } };
    const [r, lite] = (await Promise.all([onPg.callTool(ask), onLite.callTool(ask)])) as { isError?: boolean; content: { text: string }[] }[];
    expect(r!.isError).toBe(lite!.isError);
    expect(r!.content[0]!.text).toBe(lite!.content[0]!.text);
    // memory runs on PostgreSQL (test/mcp/postgres-memory.test.ts compares it call by call): written on both, found on both
    const thread = `pg-serve-${era}`;
    const store = { name: 'store_context', arguments: { thread_id: thread, source: 'agent', text: `remember the ${era} keep-alive pool` } };
    for (const c of [onLite, onPg]) expect(((await c.callTool(store)) as { isError?: boolean }).isError).toBeFalsy();
    for (const call of [
      { name: 'fts_search_context', arguments: { query: 'remember keep-alive', thread_id: thread } },
      { name: 'memory.search', arguments: { query: 'remember keep-alive', mode: 'keyword' } },
    ]) {
      const [a, b] = (await Promise.all([onLite.callTool(call), onPg.callTool(call)])) as { isError?: boolean; structuredContent: Record<string, unknown> }[];
      expect(b!.isError, call.name).toBeFalsy();
      expect(JSON.stringify(b!.structuredContent), call.name).toContain(`remember the ${era} keep-alive pool`);
      expect(JSON.stringify(a!.structuredContent), call.name).toContain(`remember the ${era} keep-alive pool`);
    }
    // a search of everything answers from the documents and memory
    const all = (await onPg.callTool({ name: 'knowledge.search', arguments: { query: 'backoff' } })) as { isError?: boolean; structuredContent: { results: unknown[] } };
    expect(all.isError).toBeFalsy();
    expect(all.structuredContent.results.length).toBeGreaterThan(0);
  });

  it('the dataset tools answer as on SQLite: datasets.search {dataset, query, topK}, over every dataset, a broken one, and datasets.get', async () => {
    // the same folder of FAISS fixtures added on both (this profile's SQLite table, the database's dataset_folders)
    const holder = tempDir('trove-pgserve-sets-');
    for (const id of ['ip', 'truncated']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
    await engine.datasets.addFolder(holder);
    await shared.datasets.addFolder(holder);
    await Promise.all([engine.datasets.settled(), shared.datasets.settled()]);
    // clients of their own: a 2025 session remembers what it returned, and the earlier tests asked the two hosts different things
    const [toLite, toPg] = await Promise.all([connect(lite, era), connect(pgHost, era)]);
    try {
      for (const call of [
        { name: 'datasets.search', arguments: { dataset: 'ip', query: 'how do I fix a flat tire on my bike', topK: 3 } },
        { name: 'datasets.search', arguments: { query: 'what makes a volcano explode' } },
        { name: 'knowledge.search', arguments: { dataset: 'ip', query: 'immune memory after a shot' } },
        { name: 'datasets.search', arguments: { dataset: 'truncated', query: 'x' } },
        { name: 'datasets.get', arguments: { dataset: 'ip', id: '2', retrieval: { mode: 'full' } } },
      ]) {
        const [a, b] = await Promise.all([toLite.callTool(call), toPg.callTool(call)]);
        expect(comparable(b), `${call.name} ${JSON.stringify(call.arguments)}`).toEqual(comparable(a));
      }
    } finally {
      await Promise.all([toLite.close(), toPg.close()]);
      await engine.datasets.removeFolder(holder);
      await shared.datasets.removeFolder(holder);
    }
  });

  it('a token from the database scoped to one collection cannot see the other', async () => {
    const scoped = await connect(pgHost, era, scopedSecret);
    try {
      // "backoff" is in both collections: the scoped caller gets the notes' documents only
      const everyone = (await onPg.callTool({ name: 'search', arguments: { query: 'backoff' } })) as { structuredContent: { results: { file: string }[] } };
      expect(everyone.structuredContent.results.some((r) => r.file === 'private/plans.md')).toBe(true);
      const search = (await scoped.callTool({ name: 'search', arguments: { query: 'backoff' } })) as { structuredContent: { results: { file: string }[] } };
      expect(search.structuredContent.results.length).toBeGreaterThan(0);
      expect(search.structuredContent.results.every((r) => r.file.startsWith('notes/'))).toBe(true);
      for (const call of [
        { name: 'get', arguments: { file: 'private/plans.md' } },
        { name: 'search', arguments: { query: 'acquisition', collection: 'private' } },
        { name: 'knowledge.search', arguments: { query: 'acquisition', sources: ['documents:private'] } },
        { name: 'documents.get', arguments: { id: 'private/plans.md' } },
      ]) {
        const r = (await scoped.callTool(call)) as { isError?: boolean; content: { text: string }[] };
        expect(r.isError, call.name).toBe(true);
        expect(r.content[0]!.text).not.toContain('acquisition closes');
      }
      const status = (await scoped.callTool({ name: 'status', arguments: {} })) as { structuredContent: { collections: { name: string }[] } };
      expect(status.structuredContent.collections.map((c) => c.name)).toEqual(['notes']);
      await expect(scoped.readResource({ uri: 'trove://private/plans.md' })).rejects.toThrow(/not found/i);
    } finally {
      await scoped.close();
    }
  });
});

describe('the door of a PostgreSQL host', () => {
  it('refuses a missing or unknown token, and a browser Origin', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    expect((await fetch(pgHost.mcpUrl, { method: 'POST', headers, body })).status).toBe(401);
    expect((await fetch(pgHost.mcpUrl, { method: 'POST', headers: { ...headers, Authorization: 'Bearer trove_unknown0123456789abcdef' }, body })).status).toBe(401);
    expect((await fetch(pgHost.mcpUrl, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example' }, body })).status).toBe(403);
    await shared.revokeToken('notes-only');
    expect((await fetch(pgHost.mcpUrl, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${scopedSecret}` }, body })).status).toBe(401);
    scopedSecret = (await shared.createToken({ name: 'notes-only', collections: ['notes'] })).token;
    // /status answers with the database's report, scoped
    const status = await fetch(`${pgHost.url}/status`, { headers: { Authorization: `Bearer ${scopedSecret}` } });
    expect(((await status.json()) as { collections: { name: string }[] }).collections.map((c) => c.name)).toEqual(['notes']);
  });
});

describe('`trove serve --database`', () => {
  beforeAll(() => ensureBuilt());

  it('a bad URL and an unreachable server are clear errors at start-up', async () => {
    const home = tempDir('trove-pgserve-cli-');
    const bad = await runTrove(['serve', '--database', 'mysql://localhost/db'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--database/);
    const unreachable = await runTrove(['serve', '--database', 'postgresql://trove:hunter2@127.0.0.1:1/trove'], { home });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot reach PostgreSQL at postgresql:\/\/trove:\*\*\*@127\.0\.0\.1:1\/trove/);
    expect(unreachable.stderr).not.toContain('hunter2');
    expect(fs.existsSync(path.join(home, 'runtime.json'))).toBe(false);
  });

  it('serves a real client from the database over its unix socket and stops on SIGTERM', async () => {
    const home = tempDir('trove-pgserve-cli-');
    const host = await startServe(['--database', await socketUrlOf(url)], { home, env: { TROVE_MODELS_DIR: modelsDir } });
    let code: number | null;
    try {
      expect(host.started.backend).toBe('postgres');
      expect(host.stderr()).toMatch(/from PostgreSQL at postgresql:\/\/trove@\/.*host=.*indexing the folders this host sees and embedding/);
      const client = await connect({ mcpUrl: host.started.mcpUrl } as Host, 'v2', host.token);
      const r = (await client.callTool({ name: 'search', arguments: { query: 'keep-alive' } })) as { structuredContent: { results: { file: string }[] } };
      expect(r.structuredContent.results[0]!.file).toBe('notes/docs/client.md');
      await client.close();
    } finally {
      code = await host.stop();
    }
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(home, 'runtime.json'))).toBe(false);
  });
});

describe('`trove mcp` with TROVE_DATABASE_URL', () => {
  beforeAll(() => ensureBuilt());

  it('starts a host that serves the database, and relays a stdio client to it', async () => {
    const home = tempDir('trove-pgserve-shim-');
    const env = { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: home, TROVE_PORT: '0', TROVE_DATABASE_URL: url, TROVE_MODELS_DIR: modelsDir };
    const client = new V2Client({ name: 'pg-serve-stdio', version: '1' });
    await client.connect(new V2Stdio({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'pipe' }));
    try {
      const r = (await client.callTool({ name: 'search', arguments: { query: 'keep-alive' } })) as { structuredContent: { results: { file: string }[] } };
      expect(r.structuredContent.results[0]!.file).toBe('notes/docs/client.md');
      const memory = (await client.callTool({ name: 'fts_search_context', arguments: { query: 'keep-alive' } })) as { isError?: boolean; structuredContent: { results: unknown[] } };
      expect(memory.isError).toBeFalsy(); // memory runs on PostgreSQL too
    } finally {
      await client.close();
      const info = readRuntimeFile(home);
      if (info) process.kill(info.pid, 'SIGTERM');
      for (let i = 0; i < 200 && fs.existsSync(path.join(home, 'runtime.json')); i++) await new Promise((r) => setTimeout(r, 50));
      // and until the host process is gone: it can still write into HOME (onnxruntime's .cache) after
      // removing runtime.json, which raced the temp folder's removal (ENOTEMPTY) on a busy machine
      for (let i = 0; i < 200 && info && alive(info.pid); i++) await new Promise((r) => setTimeout(r, 50));
    }
    expect(fs.readFileSync(path.join(home, 'host.log'), 'utf8')).toMatch(/from PostgreSQL at postgresql:/);
    expect(fs.existsSync(path.join(home, 'runtime.json'))).toBe(false);
  });
});

/** The same database reached over the test server's unix socket (`postgresql://user@/db?host=/dir&port=n`). */
async function socketUrlOf(tcpUrl: string): Promise<string> {
  const c = new pg.Client({ connectionString: tcpUrl });
  await c.connect();
  try {
    const { dirs, port } = (await c.query<{ dirs: string; port: string }>("SELECT current_setting('unix_socket_directories') AS dirs, current_setting('port') AS port")).rows[0]!;
    const dir = dirs.split(',')[0]!.trim();
    if (!fs.existsSync(dir)) throw new Error(`the test PostgreSQL's socket folder ${dir} is not on this machine: run the tests with the local test server (scripts/pg-test-server.mjs)`);
    const u = new URL(tcpUrl);
    return `postgresql://${u.username}@${u.pathname}?host=${encodeURIComponent(dir)}&port=${port}`;
  } finally {
    await c.end();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
