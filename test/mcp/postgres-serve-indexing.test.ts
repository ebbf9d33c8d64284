// `trove serve --database` keeps the index in PostgreSQL fresh, as `trove serve` does its SQLite
// file: a collection created in the database (and never indexed) is scanned when the host starts,
// a file written into its folder afterwards is found by keyword search through the host's watcher,
// its chunks are embedded in the background so vector search finds it too, and the host stops
// cleanly on SIGTERM. A real `trove serve` process, a real SDK client over HTTP, the real model.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSharedIndexer } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { BIN, ensureBuilt } from '../helpers/cli.js';
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
    const child = spawn(process.execPath, [BIN, 'serve', '--database', url, '--port', '0', '--json'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: home, TROVE_MODELS_DIR: modelsDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const client = new Client({ name: 'pg-serve-live', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      const { mcpUrl } = JSON.parse(line) as { mcpUrl: string };
      const token = (JSON.parse(fs.readFileSync(path.join(home, 'runtime.json'), 'utf8')) as { token: string }).token;
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
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
      expect(stderr).toMatch(/live: \d+ chunks? embedded with all-MiniLM-L6-v2/);
    } finally {
      await client.close().catch(() => undefined);
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(home, 'runtime.json'))).toBe(false);
  }, 240_000);
});
