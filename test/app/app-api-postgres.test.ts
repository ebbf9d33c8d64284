// The app API on PostgreSQL: a profile indexed and embedded on SQLite is copied with `trove
// migrate`, then two real hosts serve the web UI's API over HTTP — `trove serve --ui` on the
// SQLite profile and `trove serve --ui --database` on the copy — and get the same calls: the
// collections, search in every mode, get, knowledge over documents, tokens. Their answers must be
// equal. Memory, stored on SQLite and copied with the rest, answers the memory screen's calls as
// there, and so does a folder dataset indexed on SQLite and copied (its added folder, its state,
// knowledge search over it). Then what differs on purpose (Settings names the database), the collection calls on PostgreSQL (add → an index run with
// progress → search, context, redaction, pause, rename, remove; a model switch for every host) and the PostgreSQL host's
// status reporting its own watchers and embedding loop. Real processes, the real model.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiReply } from '../../src-main/api/bridge.js';
import { Engine } from '../../src-main/engine/index.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { migrateToPostgres } from '../../src-main/engine/store/migrate/to-postgres.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, startServe, type ServingTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { FIXTURES } from '../datasets/fixtures.js';
import { until } from '../helpers/until.js';

const NOTES: Record<string, string> = {
  'docs/resilience.md': '# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds.\n',
  'docs/client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections. Failed requests are logged.\n',
  'docs/backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  'notes/deploy.md': '# Deploy\n\nThe deploy script reads AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY12 from the vault.\n',
};
const env = { TROVE_MODELS_DIR: modelsDir, TROVE_RERANK_MODEL: 'test-tiny-cross-encoder' };

let root: string;
let lite: ServingTrove;
let pg: ServingTrove;

beforeAll(async () => {
  ensureBuilt();
  root = tempDir('trove-apipg-root-');
  writeTree(path.join(root, 'notes'), NOTES);
  const profile = tempDir('trove-apipg-profile-');
  const engine = await Engine.open({ profileDir: profile, embeddings: { modelsDir, defaultModel: 'all-MiniLM-L6-v2', workers: 1 } });
  await engine.addCollection({ root: path.join(root, 'notes'), name: 'notes', context: 'Engineering notes' });
  await engine.index();
  // a folder dataset (the fixtures' handbook), indexed on SQLite; `trove migrate` copies it with the rest
  fs.cpSync(path.join(FIXTURES, 'datasets', 'handbook'), path.join(root, 'sets', 'handbook'), { recursive: true });
  await engine.datasets.addFolder(path.join(root, 'sets'));
  await engine.datasets.settled();
  await engine.index({ dataset: 'handbook' });
  await engine.memory.store({ threadId: 'ops', source: 'agent', text: 'The deploy runs every Tuesday after the backup finishes.', tags: ['deploy'] });
  await engine.memory.store({ threadId: 'ops', source: 'user', text: 'Rotate the vault token before each deploy.' });
  await engine.memory.store({ threadId: 'ui', source: 'user', text: 'The settings screen should remember the last tab.' });
  await engine.embed();
  await engine.close();
  const url = await freshDatabase('apipg');
  await migrateToPostgres({ sqliteFile: databasePath(profile), url });
  [lite, pg] = await Promise.all([
    startServe(['--ui', '--no-embed'], { home: profile, env }),
    startServe(['--ui', '--database', url], { home: tempDir('trove-apipg-home-'), env }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([lite?.stop(), pg?.stop()]);
  removeTempDirs();
});

async function call(host: ServingTrove, method: string, params: unknown = {}): Promise<ApiReply> {
  const res = await fetch(`${host.started.url}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as ApiReply;
}

async function ok<T>(host: ServingTrove, method: string, params: unknown = {}): Promise<T> {
  const r = await call(host, method, params);
  if (!r.ok) throw new Error(`${method}: ${r.error.code}: ${r.error.message}`);
  return r.result as T;
}

/** An answer without what differs between two runs of the same call: timings, when each host last scanned. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        // each host scanned its collections when it started: the same content, at its own time
        .filter(([k]) => k !== 'took_ms' && k !== 'tookMs' && k !== 'session' && k !== 'lastIndexedAt')
        .map(([k, v]) => [k, comparable(v)]),
    );
  }
  return value;
}

const SAME: { method: string; params: Record<string, unknown> }[] = [
  { method: 'collections.list', params: {} },
  { method: 'search', params: { query: 'retries exponential backoff' } },
  { method: 'search', params: { query: 'requests', limit: 2, offset: 1 } },
  { method: 'search', params: { query: 'AWS secret access key vault' } }, // snippets redacted as assistants see them
  { method: 'search', params: { query: 'how long before a request gives up', mode: 'vector' } },
  { method: 'search', params: { query: 'waiting longer between attempts', mode: 'hybrid' } },
  { method: 'search', params: { query: 'waiting longer between attempts', mode: 'rerank' } },
  { method: 'search', params: { query: 'backoff', collections: ['nope'] } },
  { method: 'get', params: { locator: 'notes/docs/resilience.md', highlight: { query: 'backoff' } } },
  { method: 'get', params: { locator: 'notes/notes/deploy.md' } },
  { method: 'get', params: { locator: 'docs/resilence.md' } },
  { method: 'knowledge.search', params: { query: 'exponential backoff retries', sources: ['documents'] } },
  { method: 'knowledge.get', params: { uri: 'trove://notes/docs/backoff.md', retrieval: { mode: 'full' } } },
  { method: 'collections.reindex', params: { name: 'nope' } },
  { method: 'tokens.create', params: { name: 'x', tools: ['nope'] } },
];

describe('the app API over HTTP on `trove serve --ui --database`', () => {
  it('answers as the SQLite host does', async () => {
    for (const c of SAME) {
      const [a, b] = await Promise.all([call(lite, c.method, c.params), call(pg, c.method, c.params)]);
      expect(comparable(b), JSON.stringify(c)).toEqual(comparable(a));
    }
    // not vacuous: hits in every mode, the secret redacted, a clear error for a typo
    for (const mode of ['keyword', 'vector', 'hybrid', 'rerank']) {
      const r = await ok<{ results: unknown[] }>(pg, 'search', { query: 'waiting longer between attempts', mode });
      expect(r.results.length, mode).toBeGreaterThan(0);
    }
    expect(JSON.stringify(await ok(pg, 'get', { locator: 'notes/notes/deploy.md' }))).not.toContain('EXAMPLEKEY12');
    const typo = await call(pg, 'get', { locator: 'docs/resilence.md' });
    expect(typo.ok).toBe(false);
  });

  it('tokens made through the app live in the database', async () => {
    const made = await ok<{ token: string; info: { name: string; collections: string[] | null } }>(pg, 'tokens.create', { name: 'reader', collections: ['notes'] });
    expect(made.token).toMatch(/^trove_/);
    const list = await ok<{ tokens: { name: string }[]; toolNames: string[] }>(pg, 'tokens.list');
    expect(list.tokens.map((t) => t.name)).toEqual(['reader']);
    expect((await ok<{ tokens: unknown[] }>(lite, 'tokens.list')).tokens).toEqual([]); // not the SQLite profile's
    await ok(pg, 'tokens.revoke', { name: 'reader' });
    expect((await ok<{ tokens: unknown[] }>(pg, 'tokens.list')).tokens).toEqual([]);
  });

  it('memory answers as on SQLite (threads, entries, search, an entry, delete); so does the migrated folder dataset; Settings names the database', async () => {
    const threads = await ok<{ threadId: string; entries: number }[]>(pg, 'memory.threads');
    expect(threads.map((t) => [t.threadId, t.entries]).sort()).toEqual([['ops', 2], ['ui', 1]]);
    expect(comparable(threads)).toEqual(comparable(await ok(lite, 'memory.threads')));
    type Page = { entries: { id: number; text: string; tags: string[] }[]; total: number };
    const entries = await ok<Page>(pg, 'memory.entries', { thread: 'ops' });
    expect(entries.entries.map((e) => e.text)).toEqual(['Rotate the vault token before each deploy.', 'The deploy runs every Tuesday after the backup finishes.']);
    expect(entries.entries.map((e) => [e.id, e.text, e.tags])).toEqual((await ok<Page>(lite, 'memory.entries', { thread: 'ops' })).entries.map((e) => [e.id, e.text, e.tags]));
    type Found = { hits: { entry: { id: number; text: string } }[] };
    for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
      const found = await ok<Found>(pg, 'memory.search', { query: 'when does the deploy run', mode });
      expect(found.hits.map((h) => h.entry.id), mode).toEqual((await ok<Found>(lite, 'memory.search', { query: 'when does the deploy run', mode })).hits.map((h) => h.entry.id));
      expect(found.hits[0]?.entry.text, mode).toBe('The deploy runs every Tuesday after the backup finishes.');
    }
    const one = await ok<{ id: number; threadId: string }>(pg, 'memory.get', { id: entries.entries[0]!.id });
    expect(one).toMatchObject({ id: entries.entries[0]!.id, threadId: 'ops' });
    expect((await ok<{ entries: number }>(pg, 'memory.statistics')).entries).toBe(3);
    await ok(pg, 'memory.delete', { thread: 'ui' });
    expect((await ok<{ threadId: string }[]>(pg, 'memory.threads')).map((t) => t.threadId)).toEqual(['ops']);
    const missing = await call(pg, 'memory.get', { id: 987654 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    type Datasets = { datasets: { id: string; state: string; updatedAt: string }[]; folders: string[] };
    const same = (l: Datasets) => ({ folders: l.folders, datasets: l.datasets.map(({ updatedAt: _, ...d }) => d) });
    const ready = async (h: ServingTrove) => {
      for (let i = 0; i < 100; i++) {
        const l = await ok<Datasets>(h, 'datasets.list');
        if (l.datasets[0]?.state === 'ready') return l;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the handbook dataset did not become ready');
    };
    const [liteSets, pgSets] = await Promise.all([ready(lite), ready(pg)]);
    expect(same(pgSets)).toEqual(same(liteSets));
    expect(pgSets.datasets).toMatchObject([{ id: 'handbook', state: 'ready', kind: 'folder', documents: 4 }]);
    expect(same(await ok<Datasets>(pg, 'datasets.reload').then((d) => ({ datasets: d as unknown as Datasets['datasets'], folders: pgSets.folders })))).toEqual(same(liteSets));
    type Hits = { results: { id: string; score: number; snippet: string | null }[] };
    const ask = { query: 'lost badge', sources: ['datasets:handbook'], mode: 'keyword' };
    expect((await ok<Hits>(pg, 'knowledge.search', ask)).results).toEqual((await ok<Hits>(lite, 'knowledge.search', ask)).results);
    const sources = await ok<{ source: string; unavailable?: string | null }[]>(pg, 'knowledge.sources');
    expect(sources.find((s) => s.source === 'memory')?.unavailable ?? null).toBeNull();
    expect(sources.find((s) => s.source === 'datasets:handbook')?.unavailable ?? null).toBeNull();
    const settings = await ok<{ databasePath: string; searchModes: { mode: string; available: boolean }[]; backgroundEmbedding: { enabled: boolean } }>(pg, 'settings.get');
    expect(settings.databasePath).toMatch(/^postgresql:\/\/trove@127\.0\.0\.1:\d+\/trove_apipg_/);
    expect(settings.searchModes.every((m) => m.available)).toBe(true);
    expect(settings.backgroundEmbedding.enabled).toBe(true);
  });

  it('adds a collection, indexes it with progress, searches it, and changes, pauses, renames and removes it', async () => {
    const folder = path.join(root, 'airships');
    writeTree(folder, { 'zeppelin.md': '# Airships\n\nA zeppelin is a rigid airship that floats on hydrogen or helium.\n' });
    const added = await ok<{ name: string; documents: number }>(pg, 'collections.add', { root: folder, name: 'airships' });
    expect(added.name).toBe('airships');
    const activity = await until(
      () => ok<{ recent: { collection: string; state: string; summary: { added: number } | null }[] }>(pg, 'index.activity'),
      (a) => a.recent.some((r) => r.collection === 'airships'),
      60_000,
    );
    expect(activity.recent.find((r) => r.collection === 'airships')).toMatchObject({ state: 'done', summary: { added: 1 } });
    const hits = await ok<{ results: { uri: string }[] }>(pg, 'search', { query: 'zeppelin' });
    expect(hits.results.map((h) => h.uri)).toEqual(['trove://airships/zeppelin.md']);
    // the background loop embeds it: vector search finds it
    await until(() => ok<{ results: { uri: string }[] }>(pg, 'search', { query: 'lighter-than-air flying vessels', mode: 'vector' }), (r) => r.results[0]?.uri === 'trove://airships/zeppelin.md', 90_000);

    // another model for this collection, for every host: built beside the active one by the app's embedding run, then swapped in
    const unknown = await call(pg, 'collections.setModel', { name: 'airships', model: 'no-such-model' });
    expect(unknown).toMatchObject({ ok: false, error: { message: expect.stringContaining('no-such-model') } });
    expect(await ok(pg, 'collections.setModel', { name: 'airships', model: 'test-tiny-embedder' })).toMatchObject({ collection: 'airships', model: 'all-MiniLM-L6-v2' });
    await until(
      () => ok<{ embeddings: { collections: { collection: string; model: string | null; switchingTo: string | null }[] } }>(pg, 'status'),
      (s) => s.embeddings.collections.some((c) => c.collection === 'airships' && c.model === 'test-tiny-embedder' && c.switchingTo === null),
      90_000,
    );

    expect(await ok(pg, 'collections.setContext', { name: 'airships', context: 'Flying things' })).toMatchObject({ context: 'Flying things' });
    expect(await ok(pg, 'collections.setRedaction', { name: 'airships', redactSecrets: false })).toMatchObject({ redactSecrets: false });
    await ok(pg, 'collections.pause', { name: 'airships' });
    const paused = await ok<{ indexing: { collections: { collection: string; paused: boolean }[] } }>(pg, 'status');
    expect(paused.indexing.collections.find((c) => c.collection === 'airships')?.paused).toBe(true);
    await ok(pg, 'collections.resume', { name: 'airships' });
    expect(await ok(pg, 'collections.rename', { name: 'airships', newName: 'zeppelins' })).toMatchObject({ name: 'zeppelins' });
    const bad = await call(pg, 'collections.add', { root: path.join(root, 'missing') });
    expect(bad.ok).toBe(false);

    // status reports this host's watchers (the new collection among them) and its embedding loop
    const status = await until(
      () => ok<{ indexing: { watching: boolean; watchers: { collection: string }[] }; embeddings: { background: { enabled: boolean } } }>(pg, 'status'),
      (s) => s.indexing.watchers.some((w) => w.collection === 'zeppelins'),
      20_000,
    );
    expect(status.indexing.watching).toBe(true);
    expect(status.indexing.watchers.map((w) => w.collection).sort()).toEqual(['notes', 'zeppelins']);
    expect(status.embeddings.background.enabled).toBe(true);

    await ok(pg, 'collections.remove', { name: 'zeppelins' });
    expect((await ok<{ name: string }[]>(pg, 'collections.list')).map((c) => c.name)).toEqual(['notes']);
    const after = await ok<{ indexing: { watchers: { collection: string }[] } }>(pg, 'status');
    expect(after.indexing.watchers.map((w) => w.collection)).toEqual(['notes']);
    expect(fs.existsSync(path.join(folder, 'zeppelin.md'))).toBe(true); // files untouched
  }, 240_000);
});
