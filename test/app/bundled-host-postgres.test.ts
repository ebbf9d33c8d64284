// The desktop app's engine host (the shipped bundle, out/main/host.js, as the app runs it) on
// PostgreSQL: with TROVE_DATABASE_URL it serves the app API from the database (collections, index
// runs, search, background embedding in the bundle's workers; memory from the database; a dataset folder added, its
// FAISS dataset loaded from this host's files); and on a profile without it, Settings'
// Database field refuses a URL that does not work (checked by connecting, nothing saved), saves
// one that does with "takes effect when Trove restarts", and the next start serves that database.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiReply } from '../../src-main/api/bridge.js';
import { FIXTURES } from '../datasets/fixtures.js';
import type { ApiEvent, SettingsInfo } from '../../src-main/api/results.js';
import { modelsDir } from '../embed/models-dir.js';
import { freshDatabase } from '../helpers/postgres.js';
import { supervisedHost, until, type SupervisedHost } from '../helpers/supervised-host.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const hostBundle = path.join(ROOT, 'out/main/host.js');
const running: SupervisedHost[] = [];
let url: string;
let notes: string;

function desktopHost(profile: string, env: Record<string, string> = {}): SupervisedHost {
  const host = supervisedHost(hostBundle, {
    execArgv: ['--import', path.join(import.meta.dirname, 'fixtures/parent-port.mjs')],
    env: { ...process.env, TROVE_HOME: profile, TROVE_MODELS_DIR: modelsDir, TROVE_PORT: '0', TROVE_DATABASE_URL: '', ...env },
    stdout: 'ignore',
    stopTimeoutMs: 10_000,
  });
  running.push(host);
  host.sup.start();
  return host;
}

function result<T>(r: ApiReply): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.result as T;
}

beforeAll(async () => {
  // `npm test` builds first; a lone run of this file builds what is missing
  if (!fs.existsSync(hostBundle)) {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
  }
  url = await freshDatabase('desktop');
  notes = tempDir('trove-desktop-pg-notes-');
  writeTree(notes, {
    'resilience.md': '# Resilience settings\n\nFailed requests are sent again up to three times, waiting longer after each failure.\n',
    'cooking.md': '# Sourdough\n\nFeed the starter with flour and water the evening before baking bread.\n',
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map((h) => h.stop()));
  removeTempDirs();
});

describe('the desktop host on PostgreSQL', () => {
  it('serves the app API from the database named by TROVE_DATABASE_URL', async () => {
    const { sup } = desktopHost(tempDir('trove-desktop-pg-a-'), { TROVE_DATABASE_URL: url });
    const events: ApiEvent[] = [];
    sup.onEvent((e) => events.push(e));
    expect(result(await sup.call('collections.add', { root: notes, name: 'notes' }))).toMatchObject({ name: 'notes' });
    await until(async () => {
      const r = await sup.call('collections.list', {});
      return r.ok && (r.result as { documents: number }[])[0]?.documents === 2;
    }, 'the first index run', 30_000);
    const found = result<{ results: { path: string }[] }>(await sup.call('search', { query: 'sourdough starter' }));
    expect(found.results[0]?.path).toBe('cooking.md');
    // the host embeds in the background, in the bundle's model workers: semantic search answers
    await until(async () => {
      const r = await sup.call('search', { query: 'how many times is a failed request retried', mode: 'vector' });
      return r.ok && (r.result as { results: { path: string }[] }).results[0]?.path === 'resilience.md';
    }, 'background embedding', 60_000);
    // the window's progress: index activity for the run the app started, embedding progress from the host's loop
    expect(events.some((e) => e.type === 'index.activity' && e.activity.recent.some((r) => r.collection === 'notes' && r.state === 'done'))).toBe(true);
    expect(events.some((e) => e.type === 'embedding.progress' && e.progress.collection === 'notes' && e.progress.done > 0)).toBe(true);
    const settings = result<SettingsInfo>(await sup.call('settings.get', {}));
    expect(settings.database).toMatchObject({ backend: 'postgres', source: 'env', restartNeeded: false, inUse: expect.stringMatching(/^postgresql:\/\/trove@127\.0\.0\.1:\d+\/trove_desktop_/) });
    const memory = await sup.call('memory.threads', {});
    expect(memory).toEqual({ ok: true, result: [] }); // the database's memory: empty, and there
    // memory another process stores is embedded by this host in the background, as on SQLite
    const lines = path.join(tempDir('trove-desktop-pg-memory-'), 'memory.jsonl');
    fs.writeFileSync(lines, `${JSON.stringify({ thread_id: 'kitchen', source: 'agent', text: 'The starter needs feeding the evening before baking.' })}\n`);
    const imported = spawnSync(process.execPath, [path.join(ROOT, 'bin/trove.js'), 'memory', 'import', lines, '--database', url], { encoding: 'utf8', env: { ...process.env, TROVE_HOME: tempDir('trove-desktop-pg-cli-'), TROVE_DATABASE_URL: '' } });
    expect(imported.status, imported.stderr).toBe(0);
    await until(async () => {
      const r = await sup.call('memory.statistics', {});
      const st = r.ok ? (r.result as { entries: number; semantic: { pendingChunks: number } }) : null;
      return st?.entries === 1 && st.semantic.pendingChunks === 0;
    }, "memory's background embedding", 60_000);
    const semantic = result<{ hits: { entry: { text: string } }[] }>(await sup.call('memory.search', { query: 'when to feed the sourdough', mode: 'vector' }));
    expect(semantic.hits[0]?.entry.text).toBe('The starter needs feeding the evening before baking.');
    // a dataset folder added through the app API: kept in the database, its FAISS dataset loaded from this host's files
    const sets = tempDir('trove-desktop-pg-sets-');
    fs.cpSync(path.join(FIXTURES, 'datasets', 'ip'), path.join(sets, 'datasets', 'ip'), { recursive: true });
    expect(await sup.call('datasets.addFolder', { path: sets })).toMatchObject({ ok: true, result: [{ id: 'ip' }] });
    let listed: unknown;
    await until(async () => {
      const r = await sup.call('datasets.list', {});
      listed = r;
      const list = r.ok ? (r.result as { datasets: { id: string; state: string; documents: number }[]; folders: string[] }) : null;
      return list?.datasets[0]?.state === 'ready' && list.datasets[0].documents === 24 && list.folders[0] === fs.realpathSync(sets);
    }, 'the FAISS dataset ready', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(listed)}`);
    });
  }, 120_000);

  it('Settings → Database: a bad URL is refused with the reason, a good one is saved and used from the next start', async () => {
    const profile = tempDir('trove-desktop-pg-b-');
    const first = desktopHost(profile);
    const before = result<SettingsInfo>(await first.sup.call('settings.get', {}));
    expect(before.database).toEqual({ backend: 'sqlite', inUse: path.join(profile, 'index.sqlite'), saved: null, source: 'default', restartNeeded: false });

    const wrongScheme = result<{ errors: Record<string, string> | null }>(await first.sup.call('settings.update', { database: 'mysql://localhost/db' }));
    expect(wrongScheme.errors?.database).toMatch(/must start with postgresql:\/\/ or postgres:\/\//);
    const unreachable = result<{ errors: Record<string, string> | null }>(await first.sup.call('settings.update', { database: 'postgresql://trove:hunter2@127.0.0.1:1/trove' }));
    expect(unreachable.errors?.database).toMatch(/^cannot use PostgreSQL at postgresql:\/\/trove:\*\*\*@127\.0\.0\.1:1\/trove: /);
    expect(JSON.stringify(unreachable)).not.toContain('hunter2');
    expect(fs.existsSync(path.join(profile, 'settings.json'))).toBe(false); // nothing saved

    const saved = result<{ settings: SettingsInfo; errors: Record<string, string> | null }>(await first.sup.call('settings.update', { database: url }));
    expect(saved.errors).toBeNull();
    expect(saved.settings.database).toMatchObject({ backend: 'sqlite', saved: expect.stringMatching(/^postgresql:\/\//), restartNeeded: true });
    expect(result<unknown[]>(await first.sup.call('collections.list', {}))).toEqual([]); // still this computer's index until the restart
    await first.stop();

    const second = desktopHost(profile);
    const names = result<{ name: string }[]>(await second.sup.call('collections.list', {}));
    expect(names.map((c) => c.name)).toEqual(['notes']); // the database's collections
    const after = result<SettingsInfo>(await second.sup.call('settings.get', {}));
    expect(after.database).toMatchObject({ backend: 'postgres', source: 'saved', restartNeeded: false });

    // back to this computer: an empty field, again from the next start
    const back = result<{ settings: SettingsInfo }>(await second.sup.call('settings.update', { database: '' }));
    expect(back.settings.database).toMatchObject({ backend: 'postgres', saved: null, restartNeeded: true });
  }, 120_000);
});
