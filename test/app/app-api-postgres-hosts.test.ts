// Two hosts on one PostgreSQL database: a collection one host adds through its app API is served
// by the other without a restart — its window told to refresh, watched (a file written later is
// indexed by it alone once the first host has stopped), embedded, and dropped when a third party
// (an engine opened on the database) removes the collection. Real `trove serve --ui --database`
// processes, the change feed's NOTIFY between them, the real model. PostgreSQL only: several
// hosts sharing one index and following each other is that backend's own mechanics.
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiReply } from '../../src-main/api/bridge.js';
import { Engine } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, startServe, type ServingTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

const env = { TROVE_MODELS_DIR: modelsDir };
let url: string;

beforeAll(async () => {
  ensureBuilt();
  url = await freshDatabase('apipg_hosts', { migrated: true });
}, 120_000);

afterAll(() => removeTempDirs());

async function call(host: ServingTrove, method: string, params: unknown = {}): Promise<ApiReply> {
  const res = await fetch(`${host.started.url}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  return (await res.json()) as ApiReply;
}

async function ok<T>(host: ServingTrove, method: string, params: unknown = {}): Promise<T> {
  const r = await call(host, method, params);
  if (!r.ok) throw new Error(`${method}: ${r.error.code}: ${r.error.message}`);
  return r.result as T;
}

/** Subscribes to the host's event stream (GET /api/events, as the web UI reads it); `seen` resolves when it carries an event of this type. */
async function listenFor(host: ServingTrove, type: string, ms = 30_000): Promise<{ seen: Promise<void> }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const res = await fetch(`${host.started.url}/api/events`, { headers: { authorization: `Bearer ${host.token}` }, signal: abort.signal });
  const reader = res.body!.getReader();
  let text = '';
  const seen = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the event stream ended before a ${type} event: ${text}`);
        text += new TextDecoder().decode(value);
        if (text.includes(`"type":"${type}"`)) return;
      }
    } catch (err) {
      if (abort.signal.aborted) throw new Error(`no ${type} event in ${ms} ms: ${text}`);
      throw err;
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  })();
  return { seen };
}

type Status = { indexing: { watchers: { collection: string }[] }; totals: { documents: number } };
type Hits = { results: { uri: string }[] };

describe('a collection added by one host', () => {
  it('is watched, indexed and embedded by another host without a restart, and dropped when removed', async () => {
    const folder = tempDir('trove-apipg-hosts-root-');
    writeTree(folder, { 'client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections.\n' });
    const b = await startServe(['--ui', '--database', url], { home: tempDir('trove-apipg-hosts-b-'), env });
    try {
      const a = await startServe(['--ui', '--database', url], { home: tempDir('trove-apipg-hosts-a-'), env });
      try {
        const heard = await listenFor(b, 'collections.changed'); // b's window is told to refresh
        await ok(a, 'collections.add', { root: folder, name: 'shared' });
        await heard.seen;
        await until(() => ok<{ running: unknown; recent: { state: string }[] }>(a, 'index.activity'), (x) => x.recent.some((r) => r.state === 'done'), 60_000);
        // b heard of it (NOTIFY) and watches it too
        await until(() => ok<Status>(b, 'status'), (s) => s.indexing.watchers.some((w) => w.collection === 'shared'), 30_000);
      } finally {
        expect(await a.stop()).toBe(0);
      }

      // with a gone, a file written now can only reach the index through b's watcher
      fs.writeFileSync(path.join(folder, 'airships.md'), '# Airships\n\nA zeppelin is a rigid airship that floats on hydrogen or helium.\n');
      const hits = await until(() => ok<Hits>(b, 'search', { query: 'zeppelin' }), (r) => r.results.length > 0, 60_000);
      expect(hits.results.map((h) => h.uri)).toEqual(['trove://shared/airships.md']);
      // and b embeds it (vector search says UNAVAILABLE until the collection has its first vectors)
      const vector = await until(() => call(b, 'search', { query: 'lighter-than-air flying vessels', mode: 'vector' }), (r) => r.ok && (r.result as Hits).results[0]?.uri === 'trove://shared/airships.md', 90_000, 'b embedding the new file');
      expect(vector.ok).toBe(true);

      // removed by someone else (an engine on the same database): b stops watching it and no longer lists it
      const other = await Engine.open({ profileDir: tempDir('trove-apipg-hosts-c-'), database: url });
      try {
        await other.removeCollection('shared');
      } finally {
        await other.close();
      }
      const status = await until(() => ok<Status>(b, 'status'), (s) => s.indexing.watchers.length === 0, 30_000);
      expect(status.totals.documents).toBe(0);
      expect(await ok<unknown[]>(b, 'collections.list')).toEqual([]);
      expect(b.stderr()).not.toMatch(/indexing batch failed|could not follow/);
    } finally {
      expect(await b.stop()).toBe(0);
    }
  }, 300_000);
});
