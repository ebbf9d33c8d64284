// Documents over MCP, with the real v2 SDK client over HTTP (both protocol eras) and the stdio
// relay (`trove mcp`): hits carry the page, get / multi_get / the resource template serve the
// extracted text with its page and slide markers (line numbers into that text), status counts
// documents per kind; an e-mail's attachment is a document of its own, at the mail's path plus its name.
// On SQLite: the tools print what the engine answers; what the index keeps of a document (pages,
// kinds, attachments, get's markers) runs on both backends in test/integration/formats.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { fixtureFiles } from '../helpers/formats.js';
import { firstText, TROVE_BIN } from './helpers.js';

let dir: string;
let engine: Engine;
let host: Host;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-mcp-docs-'));
  const docs = path.join(dir, 'docs');
  fs.mkdirSync(docs);
  const good = fixtureFiles('good');
  for (const name of ['report.pdf', 'deck.pptx', 'budget.xlsx', 'minutes.eml']) fs.writeFileSync(path.join(docs, name), good[name]!);
  fs.writeFileSync(path.join(docs, 'notes.md'), '# Notes\n\nThe moraine is mentioned here too, once.\n');
  engine = await Engine.open({ profileDir: path.join(dir, 'profile') });
  await engine.addCollection({ root: docs, name: 'docs' });
  await engine.index();
  host = await startHost({ engine, port: 0, writeRuntimeFile: true, token: 'test-runtime-token-0123456789' });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Hit = { file: string; page: number | null; line: number; snippet: string };

describe.each(['legacy', 'modern'] as const)('documents over HTTP (%s)', (era) => {
  let client: Client;
  beforeAll(async () => {
    const transport = new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } });
    client = new Client({ name: `docs-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('search hits carry the page (slide, sheet), null for formats without pages', async () => {
    const r = await client.callTool({ name: 'search', arguments: { query: 'moraine' } });
    const results = (r.structuredContent as { results: Hit[] }).results;
    expect(results.map((h) => [h.file, h.page]).sort()).toEqual([['docs/notes.md', null], ['docs/report.pdf', 2]]);
    expect(firstText(r)).toMatch(/docs\/report\.pdf \(page 2\) - Quarterly Field Report$/m);
    const slide = await client.callTool({ name: 'search', arguments: { query: 'harpsichord' } });
    expect((slide.structuredContent as { results: Hit[] }).results[0]).toMatchObject({ file: 'docs/deck.pptx', page: 3 });
    expect(firstText(slide)).toMatch(/docs\/deck\.pptx \(slide 3\) - Roadmap 2026$/m);
    const sheet = await client.callTool({ name: 'search', arguments: { query: 'piano tuner' } });
    expect((sheet.structuredContent as { results: Hit[] }).results[0]).toMatchObject({ file: 'docs/budget.xlsx', page: 2 });
  });

  it('get returns the extracted text with page markers; a hit line reads the right place', async () => {
    const hit = ((await client.callTool({ name: 'search', arguments: { query: 'albatross' } })).structuredContent as { results: Hit[] }).results[0]!;
    const r = await client.callTool({ name: 'get', arguments: { file: hit.file, lineNumbers: true } });
    const text = (r.structuredContent as { text: string }).text;
    expect(text).toMatch(/^1: \[page 1\]$/m);
    expect(text).toMatch(/^\d+: \[page 3\]$/m);
    const at = await client.callTool({ name: 'get', arguments: { file: `${hit.file}:${hit.line}`, maxLines: 5 } });
    expect((at.structuredContent as { text: string }).text).toContain('albatross');
  });

  it('multi_get and the resource template serve the same marked text', async () => {
    const many = await client.callTool({ name: 'multi_get', arguments: { pattern: 'docs/deck.pptx, docs/budget.xlsx', lineNumbers: true } });
    const documents = (many.structuredContent as { documents: { file: string; text: string }[] }).documents;
    expect(documents.map((d) => d.file)).toEqual(['docs/deck.pptx', 'docs/budget.xlsx']);
    expect(documents[0]!.text).toMatch(/^\d+: \[notes\]$/m);
    expect(documents[1]!.text).toMatch(/^\d+: \[sheet 2: Contacts\]$/m);
    const res = await client.readResource({ uri: 'trove://docs/deck.pptx' });
    expect((res.contents[0] as { text: string }).text).toMatch(/^\d+: \[slide 3\]$/m);
  });

  it("an e-mail's attachment is found, got and read as its own document", async () => {
    const r = await client.callTool({ name: 'search', arguments: { query: 'courtyard bicycles' } });
    const hit = (r.structuredContent as { results: Hit[] }).results[0]!;
    expect(hit.file).toBe('docs/minutes.eml/handbook.docx');
    const got = await client.callTool({ name: 'get', arguments: { file: `${hit.file}:${hit.line}`, maxLines: 3 } });
    expect((got.structuredContent as { text: string }).text).toMatch(/courtyard/i);
    const res = await client.readResource({ uri: 'trove://docs/minutes.eml/handbook.docx' });
    expect((res.contents[0] as { text: string }).text).toMatch(/courtyard/i);
    const mail = await client.readResource({ uri: 'trove://docs/minutes.eml' });
    expect((mail.contents[0] as { text: string }).text).toMatch(/^\d+: Attachment: handbook\.docx$/m);
  });

  it('status counts documents per kind', async () => {
    const r = await client.callTool({ name: 'status', arguments: {} });
    const s = r.structuredContent as { collections: { name: string; kinds: Record<string, number> }[] };
    expect(s.collections[0]!.kinds).toEqual({ pdf: 1, pptx: 1, xlsx: 1, email: 1, docx: 1, markdown: 1 });
  });
});

describe('documents over stdio (trove mcp)', () => {
  it('search hits carry the page through the relay', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TROVE_BIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), TROVE_HOME: path.join(dir, 'profile'), TROVE_MCP_TOKEN: host.token },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'docs-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'search', arguments: { query: 'watercolour theme' } });
      expect((r.structuredContent as { results: Hit[] }).results[0]).toMatchObject({ file: 'docs/deck.pptx', page: 2 });
    } finally {
      await client.close();
    }
  }, 60_000);
});
