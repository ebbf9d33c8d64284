// Real clients over real transports: the v1 SDK client over HTTP, and both SDK generations over
// stdio through `trove mcp` — which finds or starts the engine host, shares it, survives its
// restart, and writes nothing but protocol to stdout. Needs a fresh `npx tsc -p tsconfig.node.json`.
// On SQLite: the transports do not depend on the index (`trove mcp` starting a host on a database:
// test/mcp/serve-postgres.test.ts; every tool on both backends: the other MCP suites).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { readRuntimeFile } from '../../src-main/host/runtime-file.js';
import { firstText, makeFixture, startTestHost, TROVE_BIN, type Fixture } from './helpers.js';

let f: Fixture;
beforeAll(async () => {
  f = await makeFixture();
});
afterAll(async () => {
  await stopHost();
  await f?.cleanup();
});

/** Stops the host a shim started in the background (found through runtime.json). */
async function stopHost(): Promise<number | undefined> {
  const info = f && readRuntimeFile(f.profileDir);
  if (!info) return undefined;
  process.kill(info.pid, 'SIGTERM');
  for (let i = 0; i < 100 && fs.existsSync(path.join(f.profileDir, 'runtime.json')); i++) await new Promise((r) => setTimeout(r, 50));
  return info.pid;
}

const shimEnv = () => ({ PATH: process.env.PATH ?? '', TROVE_HOME: f.profileDir, TROVE_PORT: '0' });

describe('v1 SDK client over HTTP', () => {
  let host: Host;
  beforeAll(async () => {
    host = await startTestHost(f);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('initializes a 2025-11-25 session, calls tools, and ends the session with DELETE', async () => {
    const transport = new V1Http(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } });
    const client = new V1Client({ name: 'v1-http', version: '1' });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(host.mcp.sessionCount()).toBe(1);
    expect(await client.ping()).toEqual({});
    await client.setLoggingLevel('info');
    const r = await client.callTool({ name: 'search', arguments: { query: 'jitter' } });
    expect(firstText(r)).toMatch(/notes\/retries\.md - Retry policy/);
    const bad = await client.callTool({ name: 'multi_get', arguments: { pattern: '' } });
    expect(bad.isError).toBe(true);
    await transport.terminateSession();
    expect(host.mcp.sessionCount()).toBe(0);
    await client.close();
  });
});

describe('stdio through `trove mcp`', () => {
  it('starts a host when none runs, and serves the v1 client (2025 session)', async () => {
    expect(readRuntimeFile(f.profileDir)).toBeNull();
    const client = new V1Client({ name: 'v1-stdio', version: '1' });
    await client.connect(new V1Stdio({ command: process.execPath, args: [TROVE_BIN, 'mcp'], env: shimEnv(), stderr: 'pipe' }));
    const runtime = readRuntimeFile(f.profileDir);
    expect(runtime?.pid).toBeGreaterThan(0);
    expect(fs.statSync(path.join(f.profileDir, 'runtime.json')).mode & 0o777).toBe(0o600);
    expect(await client.ping()).toEqual({});
    const tools = await client.listTools();
    expect(tools.tools).toHaveLength(36); // the host's own token: QMD's six, the knowledge toolset (the spec's notes.*, media.*, chats.* too), memory.search / memory.get and 15 memory tools
    const r = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } });
    expect(JSON.stringify(r.content)).toContain('exponential backoff');
    const doc = await client.readResource({ uri: 'trove://notes/guide/intro.md' });
    expect(JSON.stringify(doc.contents)).toContain('Welcome to the guide');

    // the host goes away (a restart): the shim brings one back and replays the handshake
    const oldPid = await stopHost();
    const again = await client.callTool({ name: 'search', arguments: { query: 'jitter' } });
    expect(firstText(again)).toMatch(/retries\.md/);
    expect(readRuntimeFile(f.profileDir)?.pid).not.toBe(oldPid);
    await client.close();
  });

  it('serves the v2 client pinned to 2026-07-28 through the same running host', async () => {
    const pid = readRuntimeFile(f.profileDir)?.pid;
    const client = new V2Client({ name: 'v2-stdio', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2Stdio({ command: process.execPath, args: [TROVE_BIN, 'mcp'], env: shimEnv(), stderr: 'pipe' }));
    expect(client.getProtocolEra()).toBe('modern');
    const r = await client.callTool({ name: 'search', arguments: { query: 'welcome guide' } });
    expect((r.structuredContent as { results: { file: string }[] }).results[0]!.file).toBe('notes/guide/intro.md');
    const c = await client.complete({ ref: { type: 'ref/resource', uri: 'trove://{collection}/{+path}' }, argument: { name: 'collection', value: 'se' } });
    expect(c.completion.values).toEqual(['secret']);
    expect(readRuntimeFile(f.profileDir)?.pid).toBe(pid); // shared, not a second host
    await client.close();
  });

  it('a scoped token given to the shim limits what the client sees', async () => {
    const { token } = await f.engine.createToken({ name: 'stdio-notes', collections: ['notes'], tools: ['status'] });
    const client = new V2Client({ name: 'scoped-stdio', version: '1' });
    await client.connect(new V2Stdio({ command: process.execPath, args: [TROVE_BIN, 'mcp', '--token', token], env: shimEnv(), stderr: 'pipe' }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['status']);
    const s = await client.callTool({ name: 'status', arguments: {} });
    expect((s.structuredContent as { collections: { name: string }[] }).collections.map((x) => x.name)).toEqual(['notes']);
    await client.close();
  });

  it('passes --config on to the knowledge tools as the request config', async () => {
    const config = Buffer.from(JSON.stringify({ snippet_length: 70, max_tokens: 999_999 })).toString('base64');
    const client = new V2Client({ name: 'config-stdio', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2Stdio({ command: process.execPath, args: [TROVE_BIN, 'mcp', '--config', config], env: shimEnv(), stderr: 'pipe' }));
    const s = await client.callTool({ name: 'knowledge.session', arguments: {} });
    expect((s.structuredContent as { defaults: Record<string, number> }).defaults).toMatchObject({ snippet_length: 70, max_tokens: 100_000 });
    await client.close();
  });

  it('writes only JSON-RPC lines to stdout, answering bad lines and refused requests with errors', async () => {
    const child = spawn(process.execPath, [TROVE_BIN, 'mcp', '--token', 'trove_not-a-real-token'], { env: shimEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stdin.write('this is not json\n');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { jsonrpc: string; id: unknown; error?: { code: number; message: string } });
    expect(lines.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(lines[0]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(lines[1]).toMatchObject({ id: 7, error: { message: expect.stringMatching(/Unauthorized/) } });
  });
});
