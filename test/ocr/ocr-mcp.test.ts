// OCR text as an assistant sees it, over a real MCP client and HTTP host: a search hit from a
// scanned page carries its OCR confidence (structured and in the text), status says how far OCR
// has come per collection, knowledge.search marks the loc, and get shows the `[page N, OCR]` marker.
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { firstText } from '../mcp/helpers.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { LETTER_PNG, makePdf } from './helpers.js';

let engine: Engine;
let host: Host;
let client: Client;

beforeAll(async () => {
  const root = tempDir('trove-root-');
  fs.writeFileSync(path.join(root, 'crane.pdf'), await makePdf([{ text: 'Cover page of the crane file' }, { png: LETTER_PNG }]));
  fs.writeFileSync(path.join(root, 'note.md'), '# Note\n\nThe supplier meeting is on Monday.\n');
  engine = await Engine.open({ profileDir: tempDir('trove-profile-') });
  await engine.addCollection({ root, name: 'scans' });
  await engine.index();
  await engine.recognize();
  host = await startHost({ engine, port: 0, writeRuntimeFile: false, token: 'test-runtime-token-0123456789' });
  client = new Client({ name: 'ocr-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await host?.close();
  await engine?.close();
  removeTempDirs();
});

describe('OCR over MCP', () => {
  it('search: a hit on a recognised page says so with its confidence; a text hit does not', async () => {
    const r = await client.callTool({ name: 'search', arguments: { query: 'supplier' } });
    const results = (r.structuredContent as { results: { file: string; page: number | null; ocrConfidence?: number }[] }).results;
    const scan = results.find((h) => h.file === 'scans/crane.pdf')!;
    expect(scan.page).toBe(2);
    expect(scan.ocrConfidence).toBeGreaterThan(50);
    expect(results.find((h) => h.file === 'scans/note.md')!.ocrConfidence).toBeUndefined();
    expect(firstText(r)).toMatch(new RegExp(`scans/crane\\.pdf \\(page 2, OCR ${scan.ocrConfidence}% confidence\\)`));
    expect(firstText(r)).toMatch(/scans\/note\.md - /);
  });

  it('status: OCR per collection', async () => {
    const r = await client.callTool({ name: 'status', arguments: {} });
    const c = (r.structuredContent as { collections: { name: string; ocr?: string }[] }).collections.find((x) => x.name === 'scans')!;
    expect(c.ocr).toBe('OCR: 1 of 1 page read');
    expect(firstText(r)).toContain('OCR: 1 of 1 page read');
  });

  it('knowledge.search marks the loc; get shows the OCR page marker', async () => {
    const k = await client.callTool({ name: 'knowledge.search', arguments: { query: 'Rotterdam supplier' } });
    const item = (k.structuredContent as { results: { path: string; loc: { page?: number; ocr_confidence?: number } }[] }).results.find((x) => x.path === 'crane.pdf')!;
    expect(item.loc).toMatchObject({ page: 2 });
    expect(item.loc.ocr_confidence).toBeGreaterThan(50);
    const g = await client.callTool({ name: 'get', arguments: { file: 'scans/crane.pdf' } });
    expect((g.structuredContent as { text: string }).text).toMatch(/^\[page 2, OCR\]$/m);
  });
});
