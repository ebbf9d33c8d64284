// The MCP `status` tool lists every dataset with its state and reason: real SDK clients (v2 over
// both protocol generations, v1 over a 2025 session) against a real host whose engine watches a
// folder of datasets, good and broken; a token scoped to some collections sees none of them. On
// SQLite with every client; on PostgreSQL (the added folder, the collections and the token are the
// storage's) with the modern v2 client and the scoped token.
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type Host } from '../../src-main/host/host.js';
import { modelsDir } from '../embed/models-dir.js';
import { firstText } from '../mcp/helpers.js';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from './fixtures.js';

interface StatusDataset {
  id: string;
  state: string;
  reason: string | null;
  kind: string | null;
  documents: number;
}

function expectDatasets(structured: unknown, text: string): void {
  const datasets = (structured as { datasets: StatusDataset[] }).datasets;
  const byId = Object.fromEntries(datasets.map((d) => [d.id, d]));
  expect(byId.ip).toMatchObject({ state: 'ready', reason: null, kind: 'faiss', documents: 24 });
  expect(byId.truncated).toMatchObject({ state: 'error', reason: expect.stringMatching(/^index\.faiss cannot be read: the file is truncated/) });
  expect(byId['unknown-model']).toMatchObject({ state: 'error', reason: expect.stringMatching(/^unknown embedding model "text-embedding-3-small"/) });
  expect(byId['Bad Id']).toMatchObject({ state: 'invalid', kind: null, reason: 'invalid manifest: id may only hold lowercase letters, digits and hyphens' });
  expect(text).toMatch(/^ {2}Datasets: 4$/m);
  expect(text).toMatch(/^ {4}- ip \[ready\]: Household guides \(IP\) \(faiss, 24 vectors\)$/m);
  expect(text).toMatch(/^ {4}- truncated \[error\]: Truncated index \(faiss, 0 vectors\) — index\.faiss cannot be read/m);
}

describeBackends('the MCP status tool with datasets', (b) => {
  let host: Host;
  let engine: Engine;

  beforeAll(async () => {
    engine = await b.open({ embeddings: { modelsDir, workers: 1 } });
    const notes = tempDir('trove-mcp-notes-');
    writeTree(notes, { 'retries.md': '# Retry policy\n\nWe retry HTTP calls with exponential backoff.\n' });
    const secret = tempDir('trove-mcp-secret-');
    writeTree(secret, { 'plans.md': '# Merger plans\n\nThe acquisition closes in spring.\n' });
    await engine.addCollection({ root: notes, name: 'notes' });
    await engine.addCollection({ root: secret, name: 'secret' });
    await engine.index();
    const holder = tempDir('trove-mcp-datasets-');
    for (const id of ['ip', 'truncated', 'unknown-model']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
    writeTree(holder, { 'datasets/bad-id/manifest.json': JSON.stringify({ id: 'Bad Id', name: 'x', description: 'y', index: '.', kind: 'folder' }) });
    await engine.datasets.addFolder(holder);
    await engine.startWatching();
    await engine.datasets.settled();
    host = await startHost({ engine, port: 0, writeRuntimeFile: false, token: 'test-runtime-token-0123456789' });
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await engine?.stopWatching();
  });

  describe.each(b.name === 'sqlite' ? (['legacy', 'modern'] as const) : (['modern'] as const))('status over the v2 client, %s', (era) => {
    it('lists every dataset with its state and reason, beside the collections', async () => {
      const transport = new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } });
      const client = new Client({ name: `datasets-${era}`, version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      await client.connect(transport);
      try {
        expect(client.getProtocolEra()).toBe(era);
        const tool = (await client.listTools()).tools.find((t) => t.name === 'status')!;
        expect(Object.keys((tool.outputSchema as { properties: Record<string, unknown> }).properties)).toContain('datasets');
        const r = await client.callTool({ name: 'status', arguments: {} });
        expect(r.isError).toBeFalsy();
        expectDatasets(r.structuredContent, firstText(r));
        expect((r.structuredContent as { collections: { name: string }[] }).collections.map((c) => c.name)).toEqual(['notes', 'secret']);
      } finally {
        await client.close();
      }
    });
  });

  describe('status over the v1 client', () => {
    if (b.name === 'sqlite') {
      it('gives the same datasets, validated against the output schema by the client', async () => {
        const client = new V1Client({ name: 'datasets-v1', version: '1' });
        await client.connect(new V1Http(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
        try {
          const r = await client.callTool({ name: 'status', arguments: {} });
          expectDatasets(r.structuredContent, firstText(r));
        } finally {
          await client.close();
        }
      });
    }

    it('a token scoped to some collections sees no datasets', async () => {
      const { token } = await engine.createToken({ name: 'notes-only', collections: ['notes'] });
      const client = new V1Client({ name: 'scoped', version: '1' });
      await client.connect(new V1Http(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      try {
        const r = await client.callTool({ name: 'status', arguments: {} });
        expect((r.structuredContent as { datasets: unknown[] }).datasets).toEqual([]);
        expect(firstText(r)).not.toMatch(/Datasets/);
      } finally {
        await client.close();
      }
    });
  });
});
