// The tools, resource, completions and prompt, driven by the real v2 SDK client over real HTTP
// against a real engine (modern 2026-07-28 and a 2025 session must give the same answers), on
// the profile's SQLite index and on PostgreSQL: the same answers from either.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { MEMORY_WRITE_TOOL_NAMES, TOOL_NAMES } from '../../src-main/mcp/tools/index.js';
import { describeBackends } from '../helpers/backends.js';
import { firstText, makeFixture, startTestHost, type Fixture } from './helpers.js';

describeBackends('MCP tools', (b) => {
  let f: Fixture;
  let host: Host;

  beforeAll(async () => {
    f = await makeFixture(b);
    host = await startTestHost(f);
  });
  afterAll(async () => {
    await host?.close();
    await f?.cleanup();
  });

  async function connect(era: 'legacy' | 'modern'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } });
    const client = new Client({ name: `tools-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(transport);
    return client;
  }

  describe.each(['legacy', 'modern'] as const)('tools over %s', (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(era);
      expect(client.getProtocolEra()).toBe(era);
    });
    afterAll(async () => {
      await client?.close();
    });

    it("lists QMD's six tools, the knowledge toolset (with the spec's notes, media and chats tools), memory.search / memory.get and the fifteen memory tools, with titles, output schemas and honest read-only hints", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).slice(0, 6)).toEqual(['search', 'vsearch', 'query', 'get', 'multi_get', 'status']);
      // every name a token can be limited to, but `fetch` (the deep-research profile's alone)
      expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES.filter((t) => t !== 'fetch').sort());
      expect(tools).toHaveLength(36);
      for (const t of tools) {
        expect(t.title, t.name).toBeTruthy();
        // memory writes and knowledge.session (it sets a session's defaults and forgets) are not read-only
        expect(t.annotations?.readOnlyHint, t.name).toBe(!MEMORY_WRITE_TOOL_NAMES.includes(t.name) && t.name !== 'knowledge.session');
        expect(t.outputSchema, t.name).toBeTruthy();
      }
    });

    it('search returns QMD-shaped lines and structured results', async () => {
      const r = await client.callTool({ name: 'search', arguments: { query: 'exponential backoff jitter' } });
      expect(r.isError).toBeFalsy();
      const results = (r.structuredContent as { results: Record<string, unknown>[] }).results;
      expect(results[0]).toMatchObject({ file: 'notes/retries.md', title: 'Retry policy', context: 'Engineering notes' });
      expect(results[0]!.docid).toMatch(/^#[0-9a-f]{6,}$/);
      expect(String(results[0]!.snippet)).toMatch(/^\d+: /m);
      expect(Number.isInteger((results[0]!.score as number) * 100)).toBe(true);
      expect(firstText(r)).toMatch(new RegExp(`^${results[0]!.docid} \\d+% notes/retries.md - Retry policy$`, 'm'));
      // the engine's highlight spans: the searched words, whole words, the same ones the app and the CLI mark
      const snippet = String(results[0]!.snippet);
      const marked = (results[0]!.highlights as [number, number][]).map(([a, b]) => snippet.slice(a, b).toLowerCase());
      expect(new Set(marked)).toEqual(new Set(['exponential', 'backoff', 'jitter']));
    });

    it('search with no hit says so, and honours collection and minScore', async () => {
      const none = await client.callTool({ name: 'search', arguments: { query: 'zebra' } });
      expect(firstText(none)).toBe('No results found for "zebra"');
      expect(none.structuredContent).toEqual({ results: [] });
      const scoped = await client.callTool({ name: 'search', arguments: { query: 'backoff', collection: 'secret' } });
      expect((scoped.structuredContent as { results: { file: string }[] }).results.map((x) => x.file)).toEqual(['secret/plans.md']);
      const missing = await client.callTool({ name: 'search', arguments: { query: 'backoff', collection: 'nope' } });
      expect(missing.isError).toBe(true);
      expect(firstText(missing)).toMatch(/no collection named "nope"/);
    });

    it('invalid arguments are an isError result that says what is wrong', async () => {
      const r = await client.callTool({ name: 'search', arguments: { query: '', limit: 0 } });
      expect(r.isError).toBe(true);
      expect(firstText(r)).toMatch(/query|limit/);
      const g = await client.callTool({ name: 'get', arguments: { file: 42 } });
      expect(g.isError).toBe(true);
    });

    it('vsearch and query say plainly when semantic search is unavailable', async () => {
      for (const name of ['vsearch', 'query']) {
        const r = await client.callTool({ name, arguments: { query: 'retry strategy' } });
        // without embeddings: a clear isError; with them (once the index has vectors): results
        if (r.isError) expect(firstText(r)).toMatch(/^Unavailable: .*(embedding|vector)/i);
        else expect((r.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
      }
    });

    it('get returns an embedded resource with the context comment, line-numbered when asked (QMD: not by default)', async () => {
      const r = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md:3', maxLines: 1, lineNumbers: true } });
      const block = r.content[0] as { type: string; resource: { uri: string; mimeType: string; text: string } };
      expect(block.type).toBe('resource');
      expect(block.resource.uri).toBe('trove://notes/retries.md');
      expect(block.resource.mimeType).toBe('text/markdown');
      expect(block.resource.text).toBe('<!-- Context: Engineering notes -->\n\n3: We retry HTTP calls with exponential backoff.');
      expect(r.structuredContent).toMatchObject({ file: 'notes/retries.md', fromLine: 3, toLine: 3, truncated: true });
      const plain = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } });
      expect((plain.content[0] as { resource: { text: string } }).resource.text).toBe(
        '<!-- Context: Engineering notes -->\n\n# Retry policy\n\nWe retry HTTP calls with exponential backoff.\nJitter avoids thundering herds.\n',
      );
      // the line in the locator wins over fromLine (and its count over maxLines), as QMD's get does
      const range = await client.callTool({ name: 'get', arguments: { file: 'retries.md:3:2', fromLine: 1, maxLines: 4 } });
      expect((range.structuredContent as { text: string }).text).toBe('We retry HTTP calls with exponential backoff.\nJitter avoids thundering herds.');
      const from = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md:4', fromLine: 1, maxLines: 1 } });
      expect(from.structuredContent).toMatchObject({ fromLine: 4, toLine: 4, text: 'Jitter avoids thundering herds.' });
      const numbered = await client.callTool({ name: 'multi_get', arguments: { pattern: 'notes/retries.md', lineNumbers: true, maxLines: 1 } });
      expect((numbered.structuredContent as { documents: { text: string }[] }).documents[0]!.text).toBe('1: # Retry policy\n\n[... truncated 4 more lines]');
      const byId = await client.callTool({ name: 'get', arguments: { file: (r.structuredContent as { docid: string }).docid } });
      expect((byId.structuredContent as { file: string }).file).toBe('notes/retries.md');
    });

    it("get of a missing file is an isError in QMD's words, with did-you-mean suggestions", async () => {
      const r = await client.callTool({ name: 'get', arguments: { file: 'notes/retrys.md' } });
      expect(r.isError).toBe(true);
      expect(firstText(r)).toMatch(/^Document not found: notes\/retrys\.md\n\nDid you mean one of these\?\n {2}- .*retries\.md/);
    });

    it('get refuses traversal', async () => {
      for (const file of ['../secret/plans.md', 'notes/../../etc/passwd', '/etc/passwd', 'notes/%2e%2e/x.md']) {
        const r = await client.callTool({ name: 'get', arguments: { file } });
        expect(r.isError, file).toBe(true);
        expect(firstText(r), file).toMatch(/^(Invalid input|Not found):/);
      }
    });

    it('multi_get puts notices first, skips big files, and errors when nothing matches', async () => {
      const r = await client.callTool({ name: 'multi_get', arguments: { pattern: 'notes/*.md' } });
      expect(r.isError).toBeFalsy();
      expect(r.content[0]).toMatchObject({ type: 'text' });
      expect(firstText(r)).toBe('[SKIPPED: notes/big.md - File too large (18KB). Use \'get\' with file="notes/big.md" to retrieve.]');
      const resources = r.content.filter((c) => c.type === 'resource') as { resource: { uri: string } }[];
      expect(resources.map((c) => c.resource.uri)).toEqual(['trove://notes/retries.md']);
      const list = await client.callTool({ name: 'multi_get', arguments: { pattern: 'notes/retries.md, notes/nothere.md', maxLines: 1 } });
      expect(firstText(list)).toMatch(/^\[NOT FOUND: notes\/nothere\.md/);
      expect((list.structuredContent as { documents: { text: string }[] }).documents[0]!.text).toMatch(/truncated 4 more lines/);
      const none = await client.callTool({ name: 'multi_get', arguments: { pattern: 'nothing/*.md' } });
      expect(none.isError).toBe(true);
      expect(firstText(none)).toMatch(/No documents matched/);
    });

    it('status gives the summary and the structured shape', async () => {
      const r = await client.callTool({ name: 'status', arguments: {} });
      expect(firstText(r)).toMatch(/Total documents: 4/);
      const s = r.structuredContent as { totalDocuments: number; hasVectorIndex: boolean; collections: { name: string; documents: number; path: string }[] };
      expect(s.totalDocuments).toBe(4);
      expect(typeof s.hasVectorIndex).toBe('boolean');
      // how much is embedded: nothing here (this engine does not embed in the background)
      expect((r.structuredContent as { embedding: unknown }).embedding).toMatchObject({ embedded: 0, percent: 0, background: 'off', etaSeconds: null });
      expect(firstText(r)).toMatch(/Embeddings: 0 of \d+ chunks embedded \(0%\); this process does not embed in the background/);
      expect(s.collections.map((c) => [c.name, c.documents])).toEqual([
        ['notes', 3],
        ['secret', 1],
      ]);
    });

    it('the document template reads exact and suffix paths and refuses traversal', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['trove://{collection}/{+path}']);
      expect((await client.listResources()).resources).toEqual([]);
      const exact = await client.readResource({ uri: 'trove://notes/guide/intro.md' });
      expect((exact.contents[0] as { text: string }).text).toMatch(/^<!-- Context: Engineering notes -->\n\n1: # Intro/);
      const suffix = await client.readResource({ uri: 'trove://notes/intro.md' });
      expect((suffix.contents[0] as { text: string }).text).toMatch(/Welcome to the guide/);
      await expect(client.readResource({ uri: 'trove://notes/nothing.md' })).rejects.toThrow(/not found/i);
      for (const uri of ['trove://notes/%2e%2e/secret/plans.md', 'trove://notes/..%2f..%2fetc%2fpasswd', 'trove://notes/%2Fetc%2Fpasswd']) {
        await expect(client.readResource({ uri }), uri).rejects.toThrow(/leave their collection|absolute|not found/i);
      }
    });

    it('completes collection names and paths, and the prompt', async () => {
      const ref = { type: 'ref/resource' as const, uri: 'trove://{collection}/{+path}' };
      expect((await client.complete({ ref, argument: { name: 'collection', value: 'n' } })).completion.values).toEqual(['notes']);
      const paths = await client.complete({ ref, argument: { name: 'path', value: 'gu' }, context: { arguments: { collection: 'notes' } } });
      expect(paths.completion.values).toEqual(['guide/intro.md']);
      const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'query' }, argument: { name: 'collection', value: 's' } });
      expect(prompt.completion.values).toEqual(['secret']);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['query']);
      const p = await client.getPrompt({ name: 'query', arguments: { question: 'how do we retry?' } });
      expect((p.messages[0]!.content as { text: string }).text).toMatch(/search.*get.*Question: how do we retry\?/s);
    });
  });
});
