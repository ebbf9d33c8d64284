// The app API dispatcher on a real engine: every screen's call, live index activity, and a
// clear error for each kind of bad input. On both backends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, IndexActivity, SettingsInfo } from '../../src-main/api/results.js';
import type { Engine } from '../../src-main/engine/index.js';
import { createAppApi, type AppApi } from '../../src-main/host/app-api.js';
import { ok } from '../helpers/app-api.js';
import { describeBackends } from '../helpers/backends.js';

describeBackends('app API', (b) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-appapi-'));
  const docs = path.join(tmp, 'docs');
  let engine: Engine;
  let api: AppApi;
  const events: ApiEvent[] = [];

  beforeAll(async () => {
    fs.mkdirSync(path.join(docs, 'guides'), { recursive: true });
    fs.mkdirSync(path.join(docs, '.hidden'));
    fs.writeFileSync(path.join(docs, 'guides', 'deploy.md'), '# Deploying\n\nRoll out the canary first, then watch the error budget.\n');
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(docs, `note-${i}.txt`), `Note ${i} about gardening and tomatoes.\n`);
    fs.writeFileSync(path.join(docs, 'broken.md'), Buffer.from([0, 1, 2, 3, 0, 0, 255, 254]));
    engine = await b.open({ profileDir: path.join(tmp, 'profile') });
    api = createAppApi({ engine, connect: () => ({ endpoint: 'http://127.0.0.1:7077/mcp', token: 'trove_secret_token_value' }) });
    api.onEvent((e) => events.push(e));
  });

  afterAll(async () => {
    await api.close();
    await engine.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('every screen', () => {
    it('adds a collection, indexes it in the background and reports progress until done', async () => {
      const info = ok<{ name: string }>(await api.call('collections.add', { root: docs, name: 'docs', context: 'team docs' }));
      expect(info).toMatchObject({ name: 'docs', context: 'team docs' });
      await api.idle();
      const activity = ok<IndexActivity>(await api.call('index.activity', {}));
      expect(activity.running).toBeNull();
      expect(activity.recent[0]).toMatchObject({ collection: 'docs', state: 'done', summary: { added: 31, skipped: 1 } });
      const snapshots = events.filter((e): e is Extract<ApiEvent, { type: 'index.activity' }> => e.type === 'index.activity').map((e) => e.activity);
      expect(snapshots.some((a) => a.running?.collection === 'docs')).toBe(true);
      expect(snapshots.at(-1)?.running).toBeNull();
      expect(events.some((e) => e.type === 'collections.changed')).toBe(true);
      const [listed] = ok<{ documents: number; skipped: number }[]>(await api.call('collections.list', {}));
      expect(listed).toMatchObject({ documents: 31, skipped: 1 });
    });

    it('reports the skipped file with its reason in status', async () => {
      const status = ok<{ collections: { problems: { path: string; reason: string }[] }[] }>(await api.call('status', {}));
      expect(status.collections[0]!.problems).toEqual([expect.objectContaining({ path: 'broken.md', reason: expect.stringMatching(/binary/i) })]);
    });

    it('searches and gets what the preview shows', async () => {
      const res = ok<{ results: { uri: string; path: string; snippet: string; explain?: unknown }[] }>(await api.call('search', { query: 'canary rollout', explain: true }));
      expect(res.results[0]).toMatchObject({ path: 'guides/deploy.md', explain: expect.any(Object) });
      const doc = ok<{ text: string; totalLines: number }>(await api.call('get', { locator: res.results[0]!.uri, lineNumbers: true }));
      expect(doc.text.split('\n')[0]).toBe('1: # Deploying');
    });

    it('offers the vector modes and passes on the engine’s own "unavailable" answer', async () => {
      const r = await api.call('search', { query: 'canary', mode: 'vector' });
      const settings = ok<{ searchModes: { mode: string; available: boolean; reason: string | null }[] }>(await api.call('settings.get', {}));
      const vector = settings.searchModes.find((m) => m.mode === 'vector')!;
      if (r.ok) {
        expect(vector.available).toBe(true); // embeddings have landed: the mode works and settings say so
      } else {
        expect(r.error.code).toBe('UNAVAILABLE');
        expect(vector).toEqual({ mode: 'vector', available: false, reason: r.error.message });
      }
      expect(settings.searchModes.find((m) => m.mode === 'keyword')?.available).toBe(true);
    });

    it('Settings names the index in use: the profile\'s SQLite file, or the database', async () => {
      const settings = ok<SettingsInfo>(await api.call('settings.get', {}));
      const inUse = b.name === 'sqlite' ? path.join(tmp, 'profile', 'index.sqlite') : b.target(engine).database!;
      expect(settings.databasePath).toBe(inUse);
      // (what chose it, and whether a restart is due, is the host's to say: test/app/bundled-host-postgres.test.ts, test/e2e/web-ui-postgres.test.ts)
      expect(settings.database).toMatchObject({ backend: b.name, inUse, saved: null });
    });

    it('gives each bad input a clear error and loses nothing', async () => {
      const cases: [string, unknown, string, RegExp][] = [
        ['collections.add', { root: path.join(tmp, 'nope') }, 'IO', /does not exist/],
        ['collections.add', { root: path.join(docs, 'guides', 'deploy.md') }, 'IO', /is a file, not a folder/],
        ['collections.add', { root: docs, name: 'docs' }, 'CONFLICT', /already exists/],
        ['collections.add', { root: docs, name: '../etc' }, 'INVALID_INPUT', /not a valid collection name/],
        ['collections.add', { root: '' }, 'INVALID_INPUT', /folder path is required/],
        ['collections.remove', { name: 'ghost' }, 'NOT_FOUND', /no collection named "ghost"/],
        ['collections.reindex', { name: 'ghost' }, 'NOT_FOUND', /ghost/],
        ['search', { query: '   ' }, 'INVALID_INPUT', /type something/],
        ['search', { query: 'x', collections: ['ghost'] }, 'NOT_FOUND', /ghost/],
        ['get', { locator: '../../etc/passwd' }, 'INVALID_INPUT', /./],
        ['get', { locator: 'docs/guides/deploi.md' }, 'NOT_FOUND', /deploy\.md/],
        ['folders.list', { path: 'relative/path' }, 'INVALID_INPUT', /absolute/],
        ['folders.list', { path: path.join(tmp, 'nope') }, 'IO', /cannot be listed/],
        ['no.such.method', {}, 'NOT_FOUND', /unknown app API method/],
        ['status', { surprise: true }, 'INVALID_INPUT', /status/],
      ];
      for (const [method, params, code, message] of cases) {
        const r = await api.call(method, params);
        expect(r.ok, `${method} ${JSON.stringify(params)}`).toBe(false);
        if (!r.ok) {
          expect(r.error.code, `${method} ${JSON.stringify(params)}: ${r.error.message}`).toBe(code);
          expect(r.error.message).toMatch(message);
        }
      }
      expect(ok<unknown[]>(await api.call('collections.list', {}))).toHaveLength(1);
    });

    it('lists sub-folders for the web folder browser, leaving out dot-folders', async () => {
      const listing = ok<{ path: string; parent: string; folders: { name: string }[]; hidden: number }>(await api.call('folders.list', { path: docs }));
      expect(listing).toMatchObject({ path: docs, parent: tmp, hidden: 1 });
      expect(listing.folders.map((f) => f.name)).toEqual(['guides']);
    });

    it('hands out ready-to-paste client configs', async () => {
      const info = ok<{ configs: { client: string; json: string }[] }>(await api.call('connect.info', {}));
      const cursor = JSON.parse(info.configs.find((c) => c.client === 'Cursor')!.json);
      expect(cursor).toEqual({ mcpServers: { trove: { url: 'http://127.0.0.1:7077/mcp', headers: { Authorization: 'Bearer trove_secret_token_value' } } } });
      const vscode = JSON.parse(info.configs.find((c) => c.client === 'VS Code')!.json);
      expect(vscode.servers.trove.type).toBe('http');
      const claude = JSON.parse(info.configs.find((c) => c.client === 'Claude Desktop')!.json);
      expect(claude).toEqual({ mcpServers: { trove: { command: 'trove', args: ['mcp'] } } });
    });

    it('renames, sets the context note, reindexes and removes (index rows only)', async () => {
      ok(await api.call('collections.rename', { name: 'docs', newName: 'team-docs' }));
      expect(ok<{ context: string }>(await api.call('collections.setContext', { name: 'team-docs', context: 'runbooks' })).context).toBe('runbooks');
      ok(await api.call('collections.reindex', { name: 'team-docs' }));
      await api.idle();
      expect(ok<IndexActivity>(await api.call('index.activity', {})).recent[0]).toMatchObject({ collection: 'team-docs', state: 'done', summary: { added: 0, updated: 0, removed: 0 } });
      expect(ok(await api.call('collections.remove', { name: 'team-docs' }))).toEqual({ removed: 'team-docs' });
      expect(ok<unknown[]>(await api.call('collections.list', {}))).toEqual([]);
      expect(fs.existsSync(path.join(docs, 'guides', 'deploy.md'))).toBe(true);
    });

    it('refuses to remove a collection while it is being indexed', async () => {
      ok(await api.call('collections.add', { root: docs, name: 'again' }));
      // the run is marked running before add returns (the engine reads files asynchronously)
      expect(await api.call('collections.remove', { name: 'again' })).toMatchObject({ ok: false, error: { code: 'CONFLICT', message: expect.stringContaining('being indexed') } });
      await api.idle();
      expect(ok(await api.call('collections.remove', { name: 'again' }))).toEqual({ removed: 'again' });
    });
  });
});
