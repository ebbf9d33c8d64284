// `trove serve --database` end to end: a real host process on an index in PostgreSQL, a real SDK
// client, the real model. What the tools answer is proven on both backends by the MCP suites
// (tools, knowledge-*, memory-*, security, deep-research run through describeBackends); this file
// proves what only a process started on a database URL shows: clear errors for a bad URL or an
// unreachable server; a host reached over the server's unix socket that scans a collection
// created in the database (never indexed) when it starts, follows a file written afterwards
// through its watcher, embeds documents and agent memory in the background, takes the tokens kept
// in the database (scoped to a collection, a memory grant, /status scoped likewise), and stops
// cleanly on SIGTERM; and `trove mcp` with TROVE_DATABASE_URL, which starts such a host and
// relays a stdio client to it.
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { readRuntimeFile } from '../../src-main/host/runtime-file.js';
import { modelsDir } from '../embed/models-dir.js';
import { BIN, ensureBuilt, runTrove, startServe } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

type Hits = { isError?: boolean; content: { text: string }[]; structuredContent?: { results: { file: string }[] } };
type MemoryHits = { isError?: boolean; structuredContent?: { results: { text_content: string }[] } };

let url: string;
let notes: string;
let notesOnly: string;
let memoryReader: string;

beforeAll(async () => {
  ensureBuilt();
  notes = tempDir('trove-pgserve-notes-');
  writeTree(notes, {
    'client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections.\n',
    'backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  });
  const secret = tempDir('trove-pgserve-secret-');
  writeTree(secret, { 'plans.md': '# Merger plans\n\nThe acquisition closes in spring; backoff on the negotiations.\n' });
  url = await freshDatabase('pgserve', { migrated: true });
  // another host's doing, in the database: two collections created (never indexed) and named tokens
  const admin = await Engine.open({ profileDir: tempDir('trove-pgserve-admin-'), database: url });
  try {
    await admin.addCollection({ root: notes, name: 'notes' });
    await admin.addCollection({ root: secret, name: 'secret' });
    notesOnly = (await admin.createToken({ name: 'notes-only', collections: ['notes'] })).token;
    memoryReader = (await admin.createToken({ name: 'memory-reader', memory: 'read' })).token;
    expect((await admin.status()).totals.documents).toBe(0);
  } finally {
    await admin.close();
  }
}, 120_000);

afterAll(() => removeTempDirs());

async function connect(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'pg-serve', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** The files a search tool answers (none while the index is empty: an empty index may answer isError). */
async function files(client: Client, name: string, query: string): Promise<string[]> {
  const r = (await client.callTool({ name, arguments: { query } })) as Hits;
  return r.isError ? [] : r.structuredContent!.results.map((h) => h.file);
}

describe('`trove serve --database`', () => {
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

  it("over the server's unix socket: scans at start, follows a new file, embeds documents and memory, honours the database's tokens, stops on SIGTERM", async () => {
    const home = tempDir('trove-pgserve-home-');
    const host = await startServe(['--database', await socketUrlOf(url)], { home, env: { TROVE_MODELS_DIR: modelsDir } });
    const client = await connect(host.started.mcpUrl, host.token);
    let code: number | null;
    try {
      expect(host.started.backend).toBe('postgres');
      expect(host.stderr()).toMatch(/^trove: serving MCP at http:\/\/127\.0\.0\.1:\d+\/mcp from PostgreSQL at postgresql:\/\/trove@\/trove_pgserve_\w+\?host=%2F.*&port=\d+ \(pid \d+;/m);

      // the start-up scan: the collections had no documents in the database
      expect(await until(() => files(client, 'search', 'keep-alive'), (f) => f.length > 0, 60_000)).toEqual(['notes/client.md']);
      // a file written while the host runs: its watcher queues it, its loop indexes it
      fs.writeFileSync(path.join(notes, 'airships.md'), '# Airships\n\nA zeppelin is a rigid airship that floats on hydrogen or helium.\n');
      expect(await until(() => files(client, 'search', 'zeppelin'), (f) => f.length > 0, 60_000)).toEqual(['notes/airships.md']);
      // its chunks get vectors in the background: vector search ranks it first for its topic, the start-up files too
      await until(() => files(client, 'vsearch', 'lighter-than-air flying vessels'), (f) => f[0] === 'notes/airships.md', 90_000, 'the new file embedded');
      await until(() => files(client, 'vsearch', 'an HTTP client reusing its connections'), (f) => f[0] === 'notes/client.md', 30_000, 'the scanned files embedded');

      // agent memory written through the host is embedded by it in the background too
      const stored = (await client.callTool({ name: 'store_context', arguments: { thread_id: 'ops', source: 'agent', text: 'Pack an umbrella; showers all afternoon.' } })) as Hits;
      expect(stored.isError).toBeFalsy();
      const semantic = await until(
        async () => (await client.callTool({ name: 'semantic_search_context', arguments: { query: 'will it rain later today?' } })) as MemoryHits,
        (r) => !r.isError && (r.structuredContent?.results.length ?? 0) > 0,
        60_000,
        'memory embedded by the host',
      );
      expect(semantic.structuredContent!.results[0]!.text_content).toBe('Pack an umbrella; showers all afternoon.');

      // a token kept in the database, scoped to one collection: the other is out of its sight, on /status too
      const scoped = await connect(host.started.mcpUrl, notesOnly);
      try {
        expect(await files(client, 'search', 'backoff')).toContain('secret/plans.md');
        const seen = await files(scoped, 'search', 'backoff');
        expect(seen).toEqual(['notes/backoff.md']);
        expect(((await scoped.callTool({ name: 'get', arguments: { file: 'secret/plans.md' } })) as Hits).isError).toBe(true);
      } finally {
        await scoped.close();
      }
      const status = await fetch(`${host.started.url}/status`, { headers: { Authorization: `Bearer ${notesOnly}` } });
      expect(((await status.json()) as { collections: { name: string }[] }).collections.map((c) => c.name)).toEqual(['notes']);
      // a memory grant kept in the database: read, not write
      const reader = await connect(host.started.mcpUrl, memoryReader);
      try {
        expect((await reader.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fts_search_context', 'semantic_search']));
        await expect(reader.callTool({ name: 'store_context', arguments: { thread_id: 't', source: 'agent', text: 'x' } })).rejects.toThrow(/not found/);
      } finally {
        await reader.close();
      }
      // the door: an unknown token, a browser Origin
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      expect((await fetch(host.started.mcpUrl, { method: 'POST', headers: { ...headers, Authorization: 'Bearer trove_unknown0123456789abcdef' }, body })).status).toBe(401);
      expect((await fetch(host.started.mcpUrl, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${host.token}`, Origin: 'https://evil.example' }, body })).status).toBe(403);
    } finally {
      await client.close().catch(() => undefined);
      code = await host.stop();
    }
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(home, 'runtime.json'))).toBe(false);
  }, 300_000);
});

describe('`trove mcp` with TROVE_DATABASE_URL', () => {
  it('starts a host that serves the database, and relays a stdio client to it', async () => {
    const home = tempDir('trove-pgserve-shim-');
    const env = { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: home, TROVE_PORT: '0', TROVE_DATABASE_URL: url, TROVE_MODELS_DIR: modelsDir };
    const client = new Client({ name: 'pg-serve-stdio', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'pipe' }));
    try {
      expect(await files(client, 'search', 'keep-alive')).toEqual(['notes/client.md']);
      const memory = (await client.callTool({ name: 'fts_search_context', arguments: { query: 'umbrella' } })) as MemoryHits;
      expect(memory.structuredContent!.results.map((r) => r.text_content)).toEqual(['Pack an umbrella; showers all afternoon.']);
    } finally {
      await client.close();
      const info = readRuntimeFile(home);
      if (info) process.kill(info.pid, 'SIGTERM');
      // until the host process is gone: it can still write into HOME (onnxruntime's .cache) after
      // removing runtime.json, which raced the temp folder's removal (ENOTEMPTY) on a busy machine
      await until(async () => fs.existsSync(path.join(home, 'runtime.json')) || (info !== null && alive(info.pid)), (running) => !running, 20_000, 'the host stopped');
    }
    expect(fs.readFileSync(path.join(home, 'host.log'), 'utf8')).toMatch(/from PostgreSQL at postgresql:/);
  }, 120_000);
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
