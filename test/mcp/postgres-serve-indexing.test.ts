// `trove serve --database` keeps the index in PostgreSQL fresh, as `trove serve` does its SQLite
// file: a collection created in the database (and never indexed) is scanned when the host starts,
// a file written into its folder afterwards is found by keyword search through the host's watcher,
// its chunks are embedded in the background so vector search finds it too, and the host stops
// cleanly on SIGTERM. A real `trove serve` process, a real SDK client over HTTP, the real model.
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSharedIndexer } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, startServe } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

type Hits = { isError?: boolean; content: { text: string }[]; structuredContent?: { results: { file: string }[] } };

let url: string;
let root: string;

beforeAll(async () => {
  ensureBuilt();
  root = tempDir('trove-pgserve-live-');
  writeTree(root, {
    'client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections.\n',
    'backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  });
  url = await freshDatabase('pgserve_live');
  const indexer = await openSharedIndexer(url, { profileDir: tempDir('trove-pgserve-live-profile-') });
  try {
    await indexer.addCollection({ root, name: 'live' }); // created, not indexed: the host must do it
  } finally {
    await indexer.close();
  }
}, 120_000);

afterAll(() => removeTempDirs());

/** Calls until `done` holds for the answer (the host indexes and embeds in the background), or fails after `ms`. */
async function until(call: () => Promise<Hits>, done: (files: string[]) => boolean, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  let files: string[] = [];
  let last = '';
  while (Date.now() < deadline) {
    const r = await call();
    // before the first batch is written an empty index may answer isError (nothing to search yet)
    files = r.isError ? [] : r.structuredContent!.results.map((h) => h.file);
    last = r.isError ? r.content[0]!.text : JSON.stringify(files);
    if (done(files)) return files;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not reached in ${ms} ms; last answer: ${last}`);
}

describe('`trove serve --database` indexes and embeds', () => {
  it('scans at start, follows a new file, embeds it, and stops on SIGTERM', async () => {
    const home = tempDir('trove-pgserve-live-home-');
    const host = await startServe(['--database', url], { home, env: { TROVE_MODELS_DIR: modelsDir } });
    const client = new Client({ name: 'pg-serve-live', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    let code: number | null;
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(host.started.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
      const search = (query: string) => client.callTool({ name: 'search', arguments: { query } }) as Promise<Hits>;
      const vsearch = (query: string) => client.callTool({ name: 'vsearch', arguments: { query } }) as Promise<Hits>;

      // the start-up scan: the collection had no documents in the database
      expect(await until(() => search('keep-alive'), (f) => f.length > 0, 60_000)).toEqual(['live/client.md']);

      // a file written while the host runs: the watcher queues it, the host's loop indexes it
      fs.writeFileSync(path.join(root, 'airships.md'), '# Airships\n\nA zeppelin is a rigid airship that floats on hydrogen or helium.\n');
      expect(await until(() => search('zeppelin'), (f) => f.length > 0, 60_000)).toEqual(['live/airships.md']);

      // and its chunks get vectors in the background: vector search ranks it first for its topic
      await until(() => vsearch('lighter-than-air flying vessels'), (f) => f[0] === 'live/airships.md', 90_000);
      await until(() => vsearch('an HTTP client reusing its connections'), (f) => f[0] === 'live/client.md', 30_000); // the start-up files too
      expect(host.stderr()).toMatch(/live: \d+ chunks? embedded with all-MiniLM-L6-v2/);
    } finally {
      await client.close().catch(() => undefined);
      code = await host.stop();
    }
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(home, 'runtime.json'))).toBe(false);
  }, 240_000);
});
