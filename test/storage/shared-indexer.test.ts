// Indexing into PostgreSQL (engine/shared/shared-indexer.ts) against the engine on SQLite: the
// same folder — Markdown, code, CJK, an e-mail with attachments, a PDF and a PDF that does not
// parse — indexed by both gives the same documents, texts, chunks, failures and search answers
// (SharedIndex.search against Engine.search); an edit, a move and a delete re-indexed by both
// stay the same (the moved document keeps its docid); a failing file is recorded and retried as
// on SQLite, and nothing else is lost. Watching (SharedIndexer.startWatching, `trove index --watch
// --database`) brings a new file, an edit, a move and a delete in by itself. Then the CLI: `trove
// collection add|rename|remove --database` and `trove index --database` / TROVE_DATABASE_URL, with
// no SQLite profile.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, openSharedIndex, openSharedIndexer, type SearchRequest, type SearchResponse, type SharedIndex, type SharedIndexer } from '../../src-main/engine/index.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { ensureBuilt, oneJson, REPO, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const FILES: Record<string, string> = {
  'docs/resilience.md': '---\ntags: [ops, http]\n---\n# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds; retries start after a timeout too.\n',
  'docs/client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections. Failed requests are logged.\n',
  'docs/backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  'notes/cells.md': '# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP. Cells divide by mitosis.\n',
  'notes/tokyo.md': '# 東京\n\n東京の天気は晴れです。全文検索の例。東京タワーは赤い。\n',
  'src/retry.ts': '// retry with exponential backoff\nexport async function retry(fn: () => Promise<void>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch { await sleep(2 ** i * 100); }\n  }\n}\n',
};
const FORMATS = path.join(REPO, 'test/fixtures/formats');

const QUERIES: SearchRequest[] = [
  { query: 'retries exponential backoff' },
  { query: 'http requests failed timeouts' },
  { query: '東京の天気' },
  { query: 'mitochondria' },
  { query: 'minutes meeting' },
  { query: 'backoff', path: 'docs/**' },
  { query: 'retr', syntax: 'prefix' },
];

let root: string;
let profile: string;
let url: string;
let engine: Engine;
let indexer: SharedIndexer;
let shared: SharedIndex;
let client: pg.Client;

beforeAll(async () => {
  root = tempDir('trove-pgindex-root-');
  writeTree(root, FILES);
  fs.copyFileSync(path.join(FORMATS, 'good/minutes.eml'), path.join(root, 'minutes.eml'));
  fs.copyFileSync(path.join(FORMATS, 'good/report.pdf'), path.join(root, 'report.pdf'));
  fs.copyFileSync(path.join(FORMATS, 'broken/truncated.pdf'), path.join(root, 'truncated.pdf'));
  profile = tempDir('trove-pgindex-profile-');
  engine = await Engine.open({ profileDir: profile });
  await engine.addCollection({ root, name: 'notes' });
  url = await freshDatabase('pgindex');
  indexer = await openSharedIndexer(url);
  await indexer.addCollection({ root, name: 'notes' });
  shared = await openSharedIndex(url, { profileDir: profile });
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await shared?.close();
  await indexer?.close();
  await engine?.close();
  removeTempDirs();
});

const DOCUMENTS = `SELECT d.path, d.title, d.kind, d.size, d.mtime_ms AS mtime, d.hash, d.status, d.error, d.warning, d.tags, p.path AS parent, t.text
  FROM documents d LEFT JOIN documents p ON p.id = d.parent_id LEFT JOIN contents t ON t.document_id = d.id ORDER BY d.path`;
const CHUNKS = `SELECT d.path, c.ordinal, c.char_start, c.char_end, c.line_start, c.line_end, c.heading_path, c.page, c.tokens
  FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.ordinal`;
const JOBS = "SELECT path, attempts, last_error, CASE WHEN next_run_at IS NULL THEN 1 ELSE 0 END AS gave_up FROM jobs WHERE kind = 'file' ORDER BY path";

/** Rows with every value as text (bigint, jsonb and integers come back differently from the two drivers). */
function normal(rows: Record<string, unknown>[]): Record<string, string>[] {
  const text = (k: string, v: unknown): string => (k === 'tags' && typeof v === 'string' ? JSON.stringify(JSON.parse(v)) : typeof v === 'string' || v === null ? String(v) : JSON.stringify(v));
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, text(k, v)])));
}

function sqliteRows(sql: string): Record<string, string>[] {
  const db = new Database(databasePath(profile), { readonly: true });
  try {
    return normal(db.prepare(sql).all() as Record<string, unknown>[]);
  } finally {
    db.close();
  }
}

async function postgresRows(sql: string): Promise<Record<string, string>[]> {
  return normal((await client.query(sql.replace('d.tags', 'd.tags::text'))).rows);
}

/** A hit as both backends must give it (docids are each index's own). */
function answers(r: SearchResponse) {
  return r.results.map((h) => ({ path: h.path, title: h.title, score: h.score.toFixed(4), snippet: h.snippet, line: h.line, page: h.page }));
}

async function expectSameIndex(reference: Engine = engine): Promise<void> {
  const docs = sqliteRows(DOCUMENTS);
  expect(docs.length).toBeGreaterThan(7);
  expect(await postgresRows(DOCUMENTS)).toEqual(docs);
  expect(await postgresRows(CHUNKS)).toEqual(sqliteRows(CHUNKS));
  expect(await postgresRows(JOBS)).toEqual(sqliteRows(JOBS));
  for (const q of QUERIES) expect(answers(await shared.search(q)), q.query).toEqual(answers(await reference.search(q)));
}

describe('trove index into PostgreSQL', () => {
  it('indexes a folder as the engine does on SQLite: documents, attachments, chunks, failures, search answers', async () => {
    const [local] = await engine.index();
    const progress: string[] = [];
    const [remote] = await indexer.index({ collection: 'notes', onProgress: (p) => progress.push(p.phase) });
    const { durationMs: _a, ...sqliteReport } = local!;
    const { durationMs: _b, ...postgresReport } = remote!;
    expect(postgresReport).toEqual(sqliteReport);
    expect(remote!.failed.map((f) => f.path)).toEqual(['truncated.pdf']);
    expect(progress).toContain('indexing');
    expect(progress.at(-1)).toBe('done');
    const docs = await postgresRows(DOCUMENTS);
    expect(docs.filter((d) => d.parent === 'minutes.eml').length).toBeGreaterThan(0); // the e-mail's attachments, as children
    await expectSameIndex();
    const [failure] = await postgresRows(JOBS);
    expect(failure).toMatchObject({ path: 'truncated.pdf', attempts: '1', gave_up: '0' });
    expect((await shared.search({ query: 'mitochondria' })).results.map((h) => h.path)).toEqual(['notes/cells.md']);
  });

  it('re-indexes an edit, a move and a delete as SQLite does; the moved document keeps its docid', async () => {
    const docidOf = async (p: string) => (await client.query<{ docid: string }>('SELECT docid FROM documents WHERE path = $1', [p])).rows[0]?.docid;
    const before = await docidOf('docs/backoff.md');
    fs.writeFileSync(path.join(root, 'docs/client.md'), '# HTTP client\n\nThe client now speaks HTTP/3 over QUIC. Failed requests are retried.\n');
    fs.renameSync(path.join(root, 'docs/backoff.md'), path.join(root, 'docs/waiting.md'));
    fs.rmSync(path.join(root, 'notes/cells.md'));
    const [local] = await engine.index();
    const [remote] = await indexer.index({ collection: 'notes' });
    expect(remote).toMatchObject({ updated: 1, renamed: 1, removed: 1, added: 0 });
    expect({ ...remote, durationMs: 0 }).toEqual({ ...local, durationMs: 0 });
    expect(await docidOf('docs/waiting.md')).toBe(before);
    expect(await docidOf('docs/backoff.md')).toBeUndefined();
    // a reader of its own: SharedIndex keeps term counts until another host's NOTIFY arrives, which is asynchronous
    await shared.close();
    shared = await openSharedIndex(url, { profileDir: profile });
    // rows are compared with the SQLite index updated the same way; search answers with the folder
    // indexed afresh on SQLite: FTS5's prefix counts still include a deleted row's terms until its
    // segments merge (a prefix query's score on the updated SQLite index differs in the 3rd decimal)
    const fresh = await Engine.open({ profileDir: tempDir('trove-pgindex-fresh-') });
    try {
      await fresh.addCollection({ root, name: 'notes' });
      await fresh.index();
      await expectSameIndex(fresh);
    } finally {
      await fresh.close();
    }
    expect((await shared.search({ query: 'QUIC' })).results.map((h) => h.path)).toEqual(['docs/client.md']);
    expect((await shared.search({ query: 'mitochondria' })).results).toEqual([]);
  });

  it('watches the folder: a new file, an edit, a move and a delete reach the index by themselves', async () => {
    const folder = tempDir('trove-pgindex-watch-');
    writeTree(folder, { 'first.md': '# First\n\nThe lighthouse keeper logs the weather.\n' });
    const watcher = await openSharedIndexer(url, { live: { debounceMs: 50, maxWaitMs: 200, goneGraceMs: 100 } });
    const paths = async (query: string) => (await shared.search({ query, collections: ['watched'] })).results.map((h) => h.path);
    const until = async (what: string, ok: () => Promise<boolean>) => {
      const deadline = Date.now() + 30_000;
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const settled: string[] = [];
    try {
      await watcher.addCollection({ root: folder, name: 'watched' });
      watcher.onProgress((e) => e.phase === 'idle' && settled.push(e.collection));
      await watcher.startWatching();
      expect(watcher.watching).toBe(true);
      await until('the start-up scan', async () => (await paths('lighthouse')).length === 1);
      fs.writeFileSync(path.join(folder, 'second.md'), '# Second\n\nA harbour pilot guides the ferry.\n');
      await until('the new file', async () => (await paths('ferry')).includes('second.md'));
      fs.writeFileSync(path.join(folder, 'first.md'), '# First\n\nThe lighthouse keeper now logs the tides.\n');
      await until('the edit', async () => (await paths('tides')).includes('first.md'));
      const docid = (await client.query<{ docid: string }>("SELECT docid FROM documents WHERE path = 'second.md'")).rows[0]!.docid;
      fs.renameSync(path.join(folder, 'second.md'), path.join(folder, 'moved.md'));
      await until('the move', async () => (await paths('ferry')).join() === 'moved.md');
      expect((await client.query<{ docid: string }>("SELECT docid FROM documents WHERE path = 'moved.md'")).rows[0]!.docid).toBe(docid);
      fs.rmSync(path.join(folder, 'first.md'));
      await until('the delete', async () => (await paths('lighthouse')).length === 0);
      await until('the queue to settle', async () => settled.includes('watched') && (await client.query("SELECT 1 FROM jobs j JOIN collections k ON k.id = j.collection_id WHERE k.name = 'watched'")).rowCount === 0);
    } finally {
      await watcher.stopWatching();
      await watcher.removeCollection('watched');
      await watcher.close();
    }
    expect(watcher.watching).toBe(false);
  });

  it('`trove index --watch --database` reports the first run, indexes later changes, and stops cleanly on SIGTERM', async () => {
    ensureBuilt();
    const home = tempDir('trove-pgindex-cliwatch-');
    const folder = tempDir('trove-pgindex-cliwatch-root-');
    writeTree(folder, { 'a.md': '# A\n\nThe first note.\n' });
    await indexer.addCollection({ root: folder, name: 'cliwatch' });
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'trove.js'), 'index', '--collection', 'cliwatch', '--watch', '--no-embed', '--json', '--database', url], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
      const deadline = Date.now() + 30_000;
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await until('the first report', () => lines.length >= 1); // a change before the watcher is live is found by its start-up scan
      expect((JSON.parse(lines[0]!) as { reports: unknown[] }).reports).toMatchObject([{ collection: 'cliwatch', added: 1 }]);
      writeTree(folder, { 'b.md': '# B\n\nThe second note about pelicans.\n' });
      await until('the change', async () => (await shared.search({ query: 'pelicans' })).results.some((h) => h.path === 'b.md'));
      await until('its progress line', () => lines.length >= 2);
      expect(JSON.parse(lines[1]!)).toMatchObject({ collection: 'cliwatch', phase: 'idle' });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    await indexer.removeCollection('cliwatch');
  });

  it('runs from the CLI with no SQLite profile: collection add, index, rename, remove', async () => {
    ensureBuilt();
    const home = tempDir('trove-pgindex-cli-');
    const folder = tempDir('trove-pgindex-cli-root-');
    writeTree(folder, { 'a.md': '# Alpha\n\nPostgreSQL holds this one.\n', 'b.md': '# Beta\n\nAnd this one too.\n' });
    const added = await runTrove(['collection', 'add', folder, '--name', 'team', '--json', '--database', url], { home });
    expect(added.code, added.stderr).toBe(0);
    expect(oneJson<{ collection: { name: string; documents: number }; index: { added: number } }>(added)).toMatchObject({
      collection: { name: 'team', documents: 2 },
      index: { added: 2 },
      // this host has no embedding model: said so, and the keyword index is there all the same
      embedding: { collection: 'team', error: expect.stringMatching(/model "all-MiniLM-L6-v2" is not available/) },
    });
    expect(added.stderr).toMatch(/trove: team: not embedded: model "all-MiniLM-L6-v2" is not available/);
    fs.writeFileSync(path.join(folder, 'c.md'), '# Gamma\n\nA third.\n');
    const again = await runTrove(['index', '--collection', 'team', '--json'], { home, env: { TROVE_DATABASE_URL: url } });
    expect(again.code, again.stderr).toBe(0);
    expect(oneJson<{ reports: { added: number; scanned: number }[] }>(again).reports).toMatchObject([{ added: 1, scanned: 3 }]);
    expect(fs.existsSync(databasePath(home))).toBe(false); // nothing went to SQLite
    const dup = await runTrove(['collection', 'add', folder, '--name', 'TEAM', '--database', url], { home });
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/a collection named "TEAM" already exists/);
    const renamed = await runTrove(['collection', 'rename', 'team', 'crew', '--json', '--database', url], { home });
    expect(renamed.code, renamed.stderr).toBe(0);
    expect((await shared.listCollections()).map((c) => c.name).sort()).toEqual(['crew', 'notes']);
    const removed = await runTrove(['collection', 'remove', 'crew', '--database', url], { home });
    expect(removed.code, removed.stderr).toBe(0);
    expect((await shared.listCollections()).map((c) => c.name)).toEqual(['notes']);
    expect((await client.query("SELECT count(*)::int AS n FROM documents WHERE path IN ('a.md', 'b.md', 'c.md')")).rows[0].n).toBe(0);
    const missing = await runTrove(['index', '--collection', 'nope', '--database', url], { home });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no collection named "nope" \(collections: notes\)/);
  });
});
