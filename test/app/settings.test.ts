// Saved settings for real: settings.json round-trips and refuses bad values with field errors,
// the host picks its port by flag > TROVE_PORT > saved > default, a saved file-size limit skips a
// big file in the next real index run, and redaction rules change what a real MCP SDK client gets.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvironment } from '../../src-main/engine/index.js';
import { readSettings, SETTINGS_FILE, updateSettings } from '../../src-main/engine/settings/settings-store.js';
import { createAppApi } from '../../src-main/host/app-api.js';
import { startHost } from '../../src-main/host/host.js';
import { describeBackends } from '../helpers/backends.js';
import { firstText, makeFixture, startTestHost } from '../mcp/helpers.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

afterAll(removeTempDirs);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe('settings store', () => {
  it('round-trips through settings.json and keeps what a partial update leaves out', () => {
    const dir = tempDir();
    expect(readSettings(dir)).toEqual({ port: null, maxFileBytes: null, redaction: [], redactSecrets: true, backgroundEmbedding: null, ocr: null, database: null });
    updateSettings(dir, { port: 8123, redaction: ['secret-\\d+'] });
    updateSettings(dir, { maxFileBytes: 4096, backgroundEmbedding: false });
    const saved = { port: 8123, maxFileBytes: 4096, redaction: ['secret-\\d+'], redactSecrets: true, backgroundEmbedding: false, ocr: null, database: null };
    expect(readSettings(dir)).toEqual(saved);
    expect(JSON.parse(fs.readFileSync(path.join(dir, SETTINGS_FILE), 'utf8'))).toEqual(saved);
    expect(fs.readdirSync(dir)).toEqual([SETTINGS_FILE]); // no temp file left behind
    updateSettings(dir, { port: null });
    expect(readSettings(dir).port).toBeNull();
    // a database URL (checked by connecting in the app API before it gets here) and back to this computer
    updateSettings(dir, { database: 'postgresql://trove@/trove?host=/run/postgresql' });
    expect(readSettings(dir)).toMatchObject({ database: 'postgresql://trove@/trove?host=/run/postgresql', maxFileBytes: 4096 });
    updateSettings(dir, { database: null });
    expect(readSettings(dir).database).toBeNull();
  });

  it('refuses bad values with clear messages and saves nothing', () => {
    const dir = tempDir();
    updateSettings(dir, { port: 9000 });
    const bad: [unknown, RegExp][] = [
      [{ port: 80 }, /port: port must be 1024–65535/],
      [{ port: 70000 }, /port must be 1024–65535/],
      [{ port: 8080.5 }, /port must be a whole number/],
      [{ maxFileBytes: 10 }, /maxFileBytes: max file size must be at least 1 KB/],
      [{ maxFileBytes: 2 * 1024 ** 3 }, /at most 1 GB/],
      [{ redaction: ['(unclosed'] }, /redaction\.0: not a valid regular expression/],
      [{ redaction: ['ok', 'a*'] }, /redaction\.1: the rule matches empty text/],
      [{ redaction: ['^(\\w+\\s?)+!'] }, /redaction\.0: the rule nests repetition/],
      [{ redactSecrets: 'yes' }, /redactSecrets/],
      [{ redaction: ['x'.repeat(501)] }, /at most 500 characters/],
      [{ redaction: Array.from({ length: 51 }, (_, i) => `rule${i}`) }, /at most 50 redaction rules/],
      [{ colour: 'blue' }, /unrecognized key|colour/i],
      [{ backgroundEmbedding: 'yes' }, /backgroundEmbedding: background embedding is on \(true\), off \(false\) or the default \(null\)/],
      [{ database: 'mysql://localhost/db' }, /database: the database must start with postgresql:\/\/ or postgres:\/\//],
      [{ database: 'postgresql://localhost' }, /database: the database names no database/],
      [{ database: 5432 }, /database/],
    ];
    for (const [patch, message] of bad) expect(() => updateSettings(dir, patch), JSON.stringify(patch).slice(0, 60)).toThrow(message);
    expect(readSettings(dir)).toEqual({ port: 9000, maxFileBytes: null, redaction: [], redactSecrets: true, backgroundEmbedding: null, ocr: null, database: null });
  });

  it('a hand-broken settings.json is reported, not silently ignored', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, SETTINGS_FILE), '{ "port": 12 }');
    expect(() => readSettings(dir)).toThrow(/settings\.json: port: port must be 1024–65535/);
  });
});

describe('port precedence: --port > TROVE_PORT > saved > default', () => {
  it('the host starts on the saved port unless the flag or TROVE_PORT says otherwise', async () => {
    const profileDir = tempDir();
    const [savedPort, envPort, flagPort] = [await freePort(), await freePort(), await freePort()];
    updateSettings(profileDir, { port: savedPort });
    let env = readEnvironment({ TROVE_HOME: profileDir });
    const start = (port?: number) => startHost({ engineOptions: env.engine, env: env.host, port, writeRuntimeFile: false, token: 'settings-test-token-0123456789' });

    let host = await start();
    expect([host.port, host.portSource]).toEqual([savedPort, 'saved']);
    await host.close();

    env = readEnvironment({ TROVE_HOME: profileDir, TROVE_PORT: String(envPort) });
    host = await start();
    expect([host.port, host.portSource]).toEqual([envPort, 'env']);
    await host.close();

    host = await start(flagPort);
    expect([host.port, host.portSource]).toEqual([flagPort, 'flag']);
    await host.close();
  });
});

// what the settings change in the index and in the answers: on both backends (the settings are the
// host profile's file either way; the index runs and the reads go through the backend)
describeBackends('settings at work', (b) => {
  describe('saved file-size limit', () => {
    it('applies from the next index run: a big file is skipped with the reason, then indexed once the limit is raised', async () => {
      const profileDir = tempDir();
      const root = tempDir();
      writeTree(root, { 'small.md': '# Small\n\nhello there\n', 'big.md': `# Big\n\n${'lorem ipsum '.repeat(500)}` });
      const engine = await b.open({ profileDir });
      try {
        await engine.addCollection({ root, name: 'docs' });
        updateSettings(profileDir, { maxFileBytes: 2048 });
        const [first] = await engine.index();
        expect(first!.skipped).toEqual([{ path: 'big.md', reason: expect.stringMatching(/^file is 5\.9 KB, over the 2\.0 KB limit$/) }]);
        expect((await engine.search({ query: 'lorem' })).results).toEqual([]);

        const api = createAppApi({ engine });
        const got = (await api.call('settings.get', {})) as { ok: true; result: { maxFileBytes: number; maxFileBytesSource: string } };
        expect(got.result).toMatchObject({ maxFileBytes: 2048, maxFileBytesSource: 'saved' });
        const refused = (await api.call('settings.update', { maxFileBytes: 5 })) as { ok: true; result: { errors: Record<string, string> } };
        expect(refused.result.errors).toEqual({ maxFileBytes: 'max file size must be at least 1 KB' });
        await api.call('settings.update', { maxFileBytes: 1024 * 1024 });
        await api.close();

        await engine.index({ collection: 'docs' });
        expect((await engine.search({ query: 'lorem' })).results.map((r) => r.path)).toEqual(['big.md']);

        // lowered again: the next run takes the big file back out, with the reason
        updateSettings(profileDir, { maxFileBytes: 2048 });
        const [lowered] = await engine.index({ collection: 'docs' });
        expect(lowered!.skipped).toEqual([{ path: 'big.md', reason: expect.stringMatching(/over the 2\.0 KB limit$/) }]);
        expect((await engine.search({ query: 'lorem' })).results).toEqual([]);
      } finally {
        await engine.close();
      }

      // TROVE_MAX_FILE_BYTES (the engine's explicit option) beats the saved value
      const envEngine = await b.open({ profileDir, maxFileBytes: 1024, database: b.target(engine).database });
      try {
        const api = createAppApi({ engine: envEngine });
        const got = (await api.call('settings.get', {})) as { ok: true; result: { maxFileBytes: number; maxFileBytesSource: string } };
        expect(got.result).toMatchObject({ maxFileBytes: 1024, maxFileBytesSource: 'env' });
        await api.close();
      } finally {
        await envEngine.close();
      }
    });
  });

  describe('redaction through a real MCP client', () => {
    it('search snippets, get, multi_get and resource reads show [redacted]; the index keeps the text', async () => {
      const f = await makeFixture(b);
      const host = await startTestHost(f);
      const client = new Client({ name: 'redaction', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
        const before = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } });
        expect(JSON.stringify(before)).toContain('exponential backoff');

        updateSettings(f.profileDir, { redaction: ['exponential\\s+backoff', 'Jitter'] });
        const search = await client.callTool({ name: 'search', arguments: { query: 'exponential backoff jitter' } });
        const results = (search.structuredContent as { results: { file: string; snippet: string }[] }).results;
        const hit = results.find((r) => r.file === 'notes/retries.md')!;
        expect(hit.snippet).toContain('[redacted]');
        expect(hit.snippet).not.toMatch(/exponential backoff|Jitter/);
        expect(firstText(search)).not.toMatch(/exponential backoff/);

        const get = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } });
        const getJson = JSON.stringify(get);
        expect(getJson).toContain('We retry HTTP calls with [redacted].');
        expect(getJson).not.toMatch(/exponential backoff|Jitter/);

        const multi = await client.callTool({ name: 'multi_get', arguments: { pattern: 'notes/retries.md' } });
        expect(JSON.stringify(multi)).toContain('[redacted]');
        expect(JSON.stringify(multi)).not.toMatch(/exponential backoff/);

        const resource = await client.readResource({ uri: 'trove://notes/retries.md' });
        expect(JSON.stringify(resource)).toContain('[redacted]');
        expect(JSON.stringify(resource)).not.toMatch(/exponential backoff/);

        // the knowledge tools: snippets, and knowledge.get's content in every mode, text and structured alike
        const k = await client.callTool({ name: 'knowledge.search', arguments: { query: 'retry policy jitter' } });
        expect(JSON.stringify(k)).not.toMatch(/exponential backoff|Jitter/);
        for (const mode of ['snippet', 'chunk', 'full']) {
          const g = await client.callTool({ name: 'knowledge.get', arguments: { uri: 'trove://notes/retries.md', retrieval: { mode } } });
          expect((g.structuredContent as { content: string }).content, mode).toContain('[redacted]');
          expect(JSON.stringify(g), mode).not.toMatch(/exponential backoff|Jitter/);
          expect(JSON.parse((g.content as { text: string }[])[0]!.text), mode).toEqual(g.structuredContent);
        }

        // a settings.json broken by hand fails closed: the reason, never unredacted text
        const saved = fs.readFileSync(path.join(f.profileDir, SETTINGS_FILE), 'utf8');
        fs.writeFileSync(path.join(f.profileDir, SETTINGS_FILE), '{ "redaction": [');
        const refused = await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } });
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused)).toMatch(/redaction rules cannot be read.*not valid JSON/);
        expect(JSON.stringify(refused)).not.toMatch(/exponential backoff/);
        fs.writeFileSync(path.join(f.profileDir, SETTINGS_FILE), saved);
        expect(JSON.stringify(await client.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } }))).toContain('[redacted]');

        // the index itself is unchanged
        expect((await f.engine.get('notes/retries.md')).text).toContain('exponential backoff');
        expect((await f.engine.search({ query: 'jitter' })).results.map((r) => r.path)).toContain('retries.md');

        // the app's preview shows what the assistant gets
        const api = createAppApi({ engine: f.engine });
        const preview = (await api.call('get', { locator: 'notes/retries.md' })) as { ok: true; result: { text: string } };
        expect(preview.result.text).toContain('[redacted]');
        await api.close();
      } finally {
        await client.close();
        await host.close();
        await f.cleanup();
      }
    });
  });
});
