// A client written against QMD's MCP tools (../shared/specs/qmd-mcp-tools.md), unchanged, over every
// way a client reaches Trove (v1 and v2 SDKs over HTTP on both protocol generations, and over
// stdio through `trove mcp`): the defaults its tools advertise and apply (vsearch's minScore 0.3,
// get / multi_get without line numbers), `file.md:120` winning over fromLine, the result fields
// (context null without a note) and QMD's texts for a missing document and a skipped one.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.js';
import { CLIENT_KINDS, connectClient, memoryFixture, type MemoryFixture, type ToolClient, type ToolResult } from './memory-helpers.js';

let f: MemoryFixture;

const LINES = Array.from({ length: 12 }, (_, i) => `Line ${i + 1} of the field guide about glaciers and moraines.`).join('\n');

beforeAll(async () => {
  f = await memoryFixture(); // notes/retries.md, a collection without a context note
  const guides = path.join(f.dir, 'guides');
  writeTree(guides, { 'field-guide.md': `${LINES}\n`, 'huge.md': `# Huge\n\n${'Glaciers move slowly but surely, year after year.\n'.repeat(400)}` });
  await f.engine.addCollection({ root: guides, name: 'guides', context: 'Field guides' });
  await f.engine.index();
  await f.engine.embed();
}, 180_000);
afterAll(async () => {
  await f?.cleanup();
});

const structured = <T>(r: ToolResult) => r.structuredContent as T;
const text = (r: ToolResult) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const resourceText = (r: ToolResult) => (r.content as unknown as { type: string; resource?: { text: string } }[]).filter((c) => c.type === 'resource').map((c) => c.resource!.text);

describe.each(CLIENT_KINDS)("QMD's tools as its clients use them, %s", (kind) => {
  let client: ToolClient;
  beforeAll(async () => {
    client = await connectClient(kind, f);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('search: context is the note, or null without one; vsearch applies its default minScore of 0.3, and 0 when asked', async () => {
    const context = async (query: string, file: string) =>
      structured<{ results: { file: string; context: string | null }[] }>(await client.callTool('search', { query })).results.find((x) => x.file === file)?.context;
    expect(await context('moraines', 'guides/field-guide.md')).toBe('Field guides');
    expect(await context('exponential backoff', 'notes/retries.md')).toBeNull();
    const unrelated = 'a zebra crossing in the rain';
    const byDefault = structured<{ results: { score: number }[] }>(await client.callTool('vsearch', { query: unrelated }));
    for (const x of byDefault.results) expect(x.score).toBeGreaterThanOrEqual(0.3);
    const everything = structured<{ results: { score: number }[] }>(await client.callTool('vsearch', { query: unrelated, minScore: 0 }));
    expect(everything.results.length).toBe(3); // every document, however far
    expect(everything.results.some((x) => x.score < 0.3)).toBe(true);
  });

  it('get: no line numbers unless asked; file.md:N wins over fromLine, file.md:N:M over maxLines', async () => {
    const plain = await client.callTool('get', { file: 'guides/field-guide.md', maxLines: 2 });
    expect(resourceText(plain)).toEqual(['<!-- Context: Field guides -->\n\nLine 1 of the field guide about glaciers and moraines.\nLine 2 of the field guide about glaciers and moraines.']);
    const at = await client.callTool('get', { file: 'guides/field-guide.md:5', fromLine: 2, maxLines: 1, lineNumbers: true });
    expect(resourceText(at)).toEqual(['<!-- Context: Field guides -->\n\n5: Line 5 of the field guide about glaciers and moraines.']);
    const range = await client.callTool('get', { file: 'field-guide.md:10:2', fromLine: 1, maxLines: 5 });
    expect(structured<{ fromLine: number; toLine: number }>(range)).toMatchObject({ fromLine: 10, toLine: 11 });
  });

  it("multi_get: no line numbers unless asked, QMD's marker for cut documents and its notice for skipped ones", async () => {
    const r = await client.callTool('multi_get', { pattern: 'guides/*.md', maxLines: 1 });
    expect(r.isError).toBeFalsy();
    expect(r.content[0]).toMatchObject({ type: 'text', text: '[SKIPPED: guides/huge.md - File too large (20KB). Use \'get\' with file="guides/huge.md" to retrieve.]' });
    expect(resourceText(r)).toEqual(['<!-- Context: Field guides -->\n\nLine 1 of the field guide about glaciers and moraines.\n\n[... truncated 12 more lines]']);
    const numbered = await client.callTool('multi_get', { pattern: 'guides/field-guide.md', maxLines: 1, lineNumbers: true });
    expect(resourceText(numbered)[0]).toMatch(/\n\n1: Line 1 of the field guide/);
  });

  it("get of a missing document answers in QMD's words, with its suggestions", async () => {
    const r = await client.callTool('get', { file: 'guides/feild-guide.md' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Document not found: guides\/feild-guide\.md\n\nDid you mean one of these\?\n {2}- guides\/field-guide\.md(\n {2}- .*)*$/);
  });
});
