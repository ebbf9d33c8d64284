// Secrets inside ordinary files, tried as a new user would: a GitHub token written in a note is
// indexed (the index is unchanged) but never returned — not by MCP search or get over a real SDK
// client, not by the resource template, not by the app's search and preview — unless the person
// turns redaction off in Settings or for that one collection. A catastrophically slow redaction
// rule of the person's own is refused when saved, and one hand-edited into settings.json is
// stopped after its time budget: the call fails closed and the server keeps answering. On both
// backends (a collection's own choice is kept in the index); the slow rule, a matter of the
// settings file and the redaction code alone, on SQLite.
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { createAppApi, type AppApi } from '../../src-main/host/app-api.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { ok } from '../helpers/app-api.js';
import { describeBackends } from '../helpers/backends.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const TOKEN = `ghp_${'Xq7Lm2Pz9Rk4Tv8Wn3Ys6Ub1Hd5Jf0Gc2Eaq'}`; // made up: ghp_ and 36 characters
describeBackends('secrets in files and memory', (b) => {
  let engine: Engine;
  let host: Host;
  let api: AppApi;
  let client: Client;

  beforeAll(async () => {
    const root = tempDir('trove-secrets-');
    writeTree(path.join(root, 'notes'), { 'setup.md': `# Laptop setup\n\nCloned the repo with my token ${TOKEN} and it worked.\nThe lighthouse keeper logs the wind.\n` });
    writeTree(path.join(root, 'vault'), { 'keys.md': `# Vault\n\nbackup token ${TOKEN}\n` });
    engine = await b.open({ profileDir: path.join(root, 'profile') });
    await engine.addCollection({ root: path.join(root, 'notes'), name: 'notes' });
    await engine.addCollection({ root: path.join(root, 'vault'), name: 'vault' });
    await engine.index();
    host = await startHost({ engine, port: 0, writeRuntimeFile: false, token: 'secret-redaction-test-token-0123' });
    api = createAppApi({ engine });
    client = new Client({ name: 'secrets', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
  });

  afterAll(async () => {
    await client?.close();
    await api?.close();
    await host?.close();
    await engine?.close();
    removeTempDirs();
  });

  const everything = async (): Promise<string> => {
    const search = await client.callTool({ name: 'search', arguments: { query: TOKEN } });
    const get = await client.callTool({ name: 'get', arguments: { file: 'notes/setup.md' } });
    const multi = await client.callTool({ name: 'multi_get', arguments: { pattern: 'vault/*.md' } });
    const resource = await client.readResource({ uri: 'trove://notes/setup.md' });
    const uiSearch = ok(await api.call('search', { query: 'lighthouse keeper token' }));
    const uiGet = ok(await api.call('get', { locator: 'notes/setup.md' }));
    return JSON.stringify([search, get, multi, resource, uiSearch, uiGet]);
  };

  describe('secret redaction (on by default)', () => {
    it('finds the note by its token but returns the token nowhere: MCP search, get, multi_get, resources, the UI', async () => {
      const search = await client.callTool({ name: 'search', arguments: { query: TOKEN } });
      expect((search.structuredContent as { results: { file: string }[] }).results.map((r) => r.file)).toContain('notes/setup.md'); // the index still has it
      const all = await everything();
      expect(all).not.toContain(TOKEN);
      expect(all).toContain('[redacted secret]');
      expect(all).toContain('The lighthouse keeper logs the wind.'); // the rest of the text is intact
    });

    it('the knowledge toolset: knowledge.search and knowledge.get in every mode return no token, in structured content and text alike', async () => {
      const search = await client.callTool({ name: 'knowledge.search', arguments: { query: 'lighthouse keeper token', mode: 'keyword', sources: ['documents'] } });
      const results = (search.structuredContent as { results: { uri: string }[] }).results;
      const setup = results.find((r) => r.uri.includes('setup.md'));
      expect(setup, JSON.stringify(search)).toBeDefined();
      const gets = await Promise.all(
        (['snippet', 'chunk', 'chunk_with_siblings', 'full'] as const).map((mode) => client.callTool({ name: 'knowledge.get', arguments: { uri: setup!.uri, retrieval: { mode } } })),
      );
      for (const [i, r] of [search, ...gets].entries()) {
        expect(r.isError, `answer ${i}`).toBeFalsy();
        const text = JSON.stringify(r);
        expect(text, `answer ${i}`).not.toContain(TOKEN);
        expect((r.content as { text: string }[])[0]!.text, `answer ${i}: the text block is the structured content`).toBe(JSON.stringify(r.structuredContent));
      }
      expect(JSON.stringify(gets[3])).toContain('[redacted secret]');
    });

    it("agent memory: a token an agent stored is returned by no memory tool and not on the memory screen", async () => {
      const { id } = await engine.memory.store({ threadId: 'setup', source: 'agent', text: `The deploy used ${TOKEN}; the lighthouse keeper rotates it.`, metadata: { title: `token ${TOKEN}` } });
      const calls = await Promise.all([
        client.callTool({ name: 'fts_search_context', arguments: { query: 'lighthouse keeper rotates', highlight: true } }),
        client.callTool({ name: 'search_context', arguments: { thread_id: 'setup' } }),
        client.callTool({ name: 'get_context_by_ids', arguments: { context_ids: [id] } }),
        client.callTool({ name: 'hybrid_search', arguments: { query: 'lighthouse keeper rotates', conversationId: 'setup' } }),
      ]);
      const ui = [
        ok(await api.call('memory.get', { id })),
        ok(await api.call('memory.entries', { thread: 'setup' })),
        ok(await api.call('memory.search', { query: 'lighthouse keeper rotates', mode: 'keyword' })),
      ];
      for (const [i, r] of [...calls, ...ui].entries()) {
        const text = JSON.stringify(r);
        expect(text, `answer ${i}`).not.toContain(TOKEN);
        expect(text, `answer ${i}`).toContain('[redacted secret]');
      }
      expect((await engine.memory.get([id]))[0]!.text).toContain(TOKEN); // stored as written
      await engine.memory.delete({ ids: [id] });
    });

    it('agent memory: a write answers with ids and counts only — the stored token is in no answer, per-item errors included (they pass unredacted)', async () => {
      const entry = { thread_id: 'writes', source: 'agent', text: `The deploy used ${TOKEN}.`, tags: ['deploy'], metadata: { note: `token ${TOKEN}` } };
      const one = await client.callTool({ name: 'store_context', arguments: entry });
      const batch = await client.callTool({
        name: 'store_context_batch',
        arguments: { atomic: false, entries: [entry, { ...entry, images: [{ data: `not base64 ${TOKEN}`, mime_type: 'image/png' }] }] },
      });
      const id = (one.structuredContent as { context_id: number }).context_id;
      const update = await client.callTool({ name: 'update_context', arguments: { context_id: id, text: `Rotated ${TOKEN}.` } });
      for (const [i, r] of [one, batch, update].entries()) {
        expect(r.isError, `answer ${i}`).toBeFalsy();
        expect(JSON.stringify(r), `answer ${i}`).not.toContain(TOKEN);
        expect((r.content as { text: string }[])[0]!.text, `answer ${i}: the text block is the structured content`).toBe(JSON.stringify(r.structuredContent));
      }
      const results = (batch.structuredContent as { results: { success: boolean; error: string | null }[] }).results;
      expect(results.map((r) => r.success)).toEqual([true, false]);
      expect(results[1]!.error).toMatch(/image/);
      await engine.memory.delete({ threadIds: ['writes'] });
    });

    it('a collection can opt out, and a collection can opt in when the Settings switch is off', async () => {
      ok(await api.call('collections.setRedaction', { name: 'vault', redactSecrets: false }));
      let all = await everything();
      expect(all).toContain(`backup token ${TOKEN}`); // vault: verbatim
      expect(all).not.toContain(`my token ${TOKEN}`); // notes: still redacted

      ok(await api.call('settings.update', { redactSecrets: false }));
      ok(await api.call('collections.setRedaction', { name: 'vault', redactSecrets: true }));
      all = await everything();
      expect(all).toContain(`my token ${TOKEN}`);
      expect(all).not.toContain(`backup token ${TOKEN}`);

      ok(await api.call('settings.update', { redactSecrets: true }));
      ok(await api.call('collections.setRedaction', { name: 'vault', redactSecrets: null }));
      expect(await everything()).not.toContain(TOKEN);
      expect((await engine.listCollections()).map((c) => c.redactSecrets)).toEqual([null, null]);
    });
  });

  describe.runIf(b.name === 'sqlite')('a slow redaction rule', () => {
    it('is refused when saved, with the reason', async () => {
      const r = ok<{ errors: Record<string, string> | null }>(await api.call('settings.update', { redaction: ['(a+)+$'] }));
      expect(r.errors).toEqual({ 'redaction.0': expect.stringMatching(/nests repetition .* exponential time/) });
    });

    it('hand-edited into settings.json, it is stopped after its budget: the call fails closed and the server keeps answering', async () => {
      const file = path.join(engine.profileDir, 'settings.json');
      const saved = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
      // (x|x)* passes the static check (no nested quantifier) yet backtracks exponentially on x…x!
      fs.writeFileSync(file, JSON.stringify({ ...saved, redaction: ['(x|x)*y'] }));
      fs.appendFileSync(path.join(path.dirname((await engine.listCollections())[0]!.root), 'notes', 'setup.md'), `\n${'x'.repeat(40)}!\n`);
      await engine.index();
      const started = performance.now();
      const r = await client.callTool({ name: 'get', arguments: { file: 'notes/setup.md' } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/redaction rule \\"\(x\|x\)\*y\\" is too slow .* no document text is returned/);
      expect(JSON.stringify(r.content)).not.toContain('lighthouse');
      expect(performance.now() - started).toBeLessThan(30_000); // bounded: without the budget this call never returns
      // the host still answers, and the next call fails at once with the same reason
      expect(await client.ping()).toEqual({});
      expect(JSON.stringify(await client.callTool({ name: 'status', arguments: {} }))).toMatch(/too slow/);
      const again = await api.call('get', { locator: 'notes/setup.md' });
      expect(again).toEqual({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringMatching(/too slow/) } });
      // fixing the rule brings the text back
      fs.writeFileSync(file, JSON.stringify({ ...saved, redaction: ['lighthouse'] }));
      const fixed = await client.callTool({ name: 'get', arguments: { file: 'notes/setup.md' } });
      expect(JSON.stringify(fixed.content)).toContain('The [redacted] keeper');
    });
  });
});
