// Set-up for the memory tool tests: a real engine with the real embedding model, served by an
// in-process host that writes runtime.json (so `trove mcp` relays stdio clients to this very
// host), and the five ways a client reaches it: the v2 SDK over HTTP (2026-07-28 stateless and a
// 2025-11-25 session), the v1 SDK over HTTP, and both SDKs over stdio through `trove mcp`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Engine } from '../../src-main/engine/index.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import type { TestBackend } from '../helpers/backends.js';
import { modelsDir } from '../embed/models-dir.js';
import { TROVE_BIN } from './helpers.js';

export interface MemoryFixture {
  dir: string;
  engine: Engine;
  host: Host;
  cleanup(): Promise<void>;
}

/** A profile with one small folder collection and an empty memory, served on a free port; on `backend`'s index when given. */
export async function memoryFixture(backend?: TestBackend): Promise<MemoryFixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-memory-mcp-'));
  const notes = path.join(dir, 'notes');
  fs.mkdirSync(notes);
  fs.writeFileSync(path.join(notes, 'retries.md'), '# Retry policy\n\nWe retry HTTP calls with exponential backoff.\n');
  const opts = { profileDir: path.join(dir, 'profile'), embeddings: { modelsDir, defaultModel: 'all-MiniLM-L6-v2', rerankModel: 'test-tiny-cross-encoder', workers: 1 } };
  const engine = backend ? await backend.open(opts) : await Engine.open(opts);
  await engine.addCollection({ root: notes, name: 'notes' });
  await engine.index();
  const host = await startHost({ engine, port: 0, token: 'test-runtime-token-0123456789' });
  return {
    dir,
    engine,
    host,
    async cleanup() {
      await host.close();
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What a test needs of any client: call a tool, list tools, close. */
export interface ToolClient {
  label: string;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  listTools(): Promise<string[]>;
  close(): Promise<void>;
}

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export type ClientKind = 'v2 http 2026-07-28' | 'v2 http 2025-11-25' | 'v1 http' | 'v1 stdio' | 'v2 stdio';
export const CLIENT_KINDS: readonly ClientKind[] = ['v2 http 2026-07-28', 'v2 http 2025-11-25', 'v1 http', 'v1 stdio', 'v2 stdio'];

export async function connectClient(kind: ClientKind, f: MemoryFixture, token = f.host.token): Promise<ToolClient> {
  const headers = { Authorization: `Bearer ${token}` };
  const env = { PATH: process.env.PATH ?? '', TROVE_HOME: f.engine.profileDir, TROVE_PORT: '0', TROVE_MCP_TOKEN: token };
  const args = [TROVE_BIN, 'mcp'];
  let client: V1Client | V2Client;
  if (kind === 'v2 http 2026-07-28' || kind === 'v2 http 2025-11-25') {
    const modern = kind === 'v2 http 2026-07-28';
    client = new V2Client({ name: kind, version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(new V2Http(new URL(f.host.mcpUrl), { requestInit: { headers } }));
  } else if (kind === 'v1 http') {
    client = new V1Client({ name: kind, version: '1' });
    await client.connect(new V1Http(new URL(f.host.mcpUrl), { requestInit: { headers } }));
  } else if (kind === 'v1 stdio') {
    client = new V1Client({ name: kind, version: '1' });
    await client.connect(new V1Stdio({ command: process.execPath, args, env, stderr: 'pipe' }));
  } else {
    client = new V2Client({ name: kind, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2Stdio({ command: process.execPath, args, env, stderr: 'pipe' }));
  }
  const c = client;
  return {
    label: kind,
    callTool: async (name, a) => (await c.callTool({ name, arguments: a })) as ToolResult,
    listTools: async () => (await c.listTools()).tools.map((t) => t.name),
    close: () => c.close(),
  };
}

/** The JSON text a context-server client parses (content[0]), parsed. */
export function json<T = Record<string, unknown>>(r: ToolResult): T {
  return JSON.parse(r.content[0]!.text!) as T;
}

export function text(r: ToolResult): string {
  return r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}
