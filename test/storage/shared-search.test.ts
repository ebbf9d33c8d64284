// The index on PostgreSQL, end to end: a profile indexed and embedded by the engine on SQLite is
// migrated (`trove migrate`), and SharedIndex (the storage interface on PostgreSQL) answers as the
// engine does on SQLite: keyword search in every syntax (the same documents in the same order,
// scores, snippets, highlights, plans, pages and freshness, with every filter), vector, hybrid and
// rerank search, get, multi-get, the collection list, the status and access tokens. Then the CLI:
// TROVE_DATABASE_URL / --database make `trove search`, `get`, `multi-get`, `collection list`,
// `token` and `status` use PostgreSQL; a bad URL is a usage error naming the variable, an unreachable server a
// failure that says so, and a command that does not run on PostgreSQL yet says that instead of
// quietly using SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, openSharedIndex, type SearchRequest, type SearchResponse, type SharedIndex, type TroveError } from '../../src-main/engine/index.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import { migrateToPostgres } from '../../src-main/engine/store/migrate/to-postgres.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { modelsDir } from '../embed/models-dir.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const FILES: Record<string, string> = {
  'docs/resilience.md': '---\ntags: [ops, http]\n---\n# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds; retries start after a timeout too.\n',
  'docs/client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections. Failed requests are logged.\n',
  'docs/backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  'notes/cells.md': '---\ntags: [biology]\n---\n# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP. Cells divide by mitosis.\n',
  'notes/tokyo.md': '# 東京\n\n東京の天気は晴れです。全文検索の例。東京タワーは赤い。\n',
  'notes/kyoto.md': '# 京都\n\n京都の天気は雨です。東京から新幹線で二時間。\n',
  'src/retry.ts': '// retry with exponential backoff\nexport async function retry(fn: () => Promise<void>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch { await sleep(2 ** i * 100); }\n  }\n}\n',
};

let profile: string;
let url: string;
let engine: Engine;
let shared: SharedIndex;
const embeddings = { modelsDir, defaultModel: 'all-MiniLM-L6-v2', rerankModel: 'test-tiny-cross-encoder', workers: 1 };

beforeAll(async () => {
  const root = tempDir('trove-shared-root-');
  writeTree(root, FILES);
  profile = tempDir('trove-shared-profile-');
  const indexer = await Engine.open({ profileDir: profile, embeddings });
  await indexer.addCollection({ root, name: 'notes' });
  await indexer.index();
  await indexer.embed(); // vectors copied by migrate: the semantic modes search them there
  await indexer.close();
  url = await freshDatabase('shared');
  await migrateToPostgres({ sqliteFile: databasePath(profile), url });
  engine = await Engine.open({ profileDir: profile, embeddings });
  shared = await openSharedIndex(url, { profileDir: profile, embeddings });
});

afterAll(async () => {
  await shared?.close();
  await engine?.close();
  removeTempDirs();
});

/** The response without its timing. */
function comparable(r: SearchResponse): Omit<SearchResponse, 'took_ms'> {
  const { took_ms: _took, ...rest } = r;
  return rest;
}

const CASES: SearchRequest[] = [
  { query: 'retries exponential backoff' }, // AND, then looser steps ranked below
  { query: 'http requests failed timeouts nonexistentword' }, // a term nowhere: dropped, partial matches ranked
  { query: 'the client' }, // a stop word and a common word
  { query: '東京の天気' }, // CJK bigrams
  { query: 'retr', syntax: 'prefix' },
  { query: 'backoff', limit: 1 },
  { query: 'backoff', limit: 1, offset: 1 },
  { query: 'backoff retries', explain: true },
  { query: 'backoff', path: 'docs/**' },
  { query: 'backoff', kinds: ['code'] },
  { query: 'requests', tags: ['ops'] },
  { query: 'cell mitochondria', collections: ['NOTES'], minScore: 0.5 },
  { query: 'requests', modifiedAfter: '2000-01-01', snippetChars: 60 },
  { query: 'nothing-matches-this' },
];

describe('the index on PostgreSQL (SharedIndex)', () => {
  it('answers as the engine does on SQLite, query by query', async () => {
    for (const req of CASES) {
      const lite = await engine.search({ ...req, mode: 'keyword' });
      const pg = await shared.search(req);
      expect(comparable(pg), JSON.stringify(req)).toEqual(comparable(lite));
    }
    // the cases are not vacuous: tiers, drops, CJK and pages all show up
    const partial = await engine.search({ query: 'http requests failed timeouts nonexistentword' });
    expect(partial.plan?.dropped).toContain('nonexistentword');
    expect(partial.plan?.strategy).toBe('any-term'); // no document has every word: the looser steps still rank some
    expect(partial.results.length).toBeGreaterThan(0);
    expect((await engine.search({ query: 'retries exponential backoff' })).results.length).toBeGreaterThan(1);
    expect((await engine.search({ query: '東京の天気' })).results[0]?.path).toBe('notes/tokyo.md');
    expect((await engine.search({ query: 'backoff', limit: 1 })).has_more).toBe(true);
  });

  it('runs the phrase and boolean syntaxes: the same documents as SQLite (a phrase is ranked by its words there)', async () => {
    const cases: SearchRequest[] = [
      { query: 'exponential backoff', syntax: 'phrase' },
      { query: 'exponential retries', syntax: 'phrase' }, // the words, but never in this order
      { query: 'exponential backoff', syntax: 'phrase', path: 'docs/**' },
      { query: '東京', syntax: 'phrase' },
      { query: 'retries -timeout', syntax: 'boolean' }, // a top-level NOT drops the whole document
      { query: '(cell OR client) AND NOT keep-alive', syntax: 'boolean' },
      { query: '"http client" OR mitochondria', syntax: 'boolean' },
      { query: 'retr* NOT jitter', syntax: 'boolean', tags: ['ops'] },
    ];
    const docs = (r: SearchResponse) => r.results.map((h) => h.path).sort();
    for (const req of cases) {
      const lite = await engine.search({ ...req, mode: 'keyword' });
      const pg = await shared.search(req);
      expect(docs(pg), JSON.stringify(req)).toEqual(docs(lite));
      expect(pg.plan, JSON.stringify(req)).toEqual(lite.plan);
    }
    // not vacuous: phrases match in order only, and negations drop documents
    expect(docs(await shared.search(cases[0]!))).toEqual(['docs/backoff.md', 'docs/resilience.md', 'src/retry.ts']);
    expect(docs(await shared.search(cases[1]!))).toEqual([]);
    expect(docs(await shared.search(cases[4]!))).toEqual(['src/retry.ts']);
    expect(docs(await shared.search(cases[5]!))).toEqual(['docs/resilience.md', 'notes/cells.md']);
    expect(docs(await shared.search(cases[3]!))).toEqual(['notes/kyoto.md', 'notes/tokyo.md']);
  });

  it('runs vector, hybrid and rerank search over pgvector: the same pages as SQLite (cosines within float rounding)', async () => {
    const cases: SearchRequest[] = [
      { query: 'how do cells make energy', mode: 'vector' },
      { query: 'waiting longer between attempts', mode: 'vector', path: 'docs/**' }, // filters pushed into the scan
      { query: 'waiting longer between attempts', mode: 'vector', tags: ['ops'], explain: true },
      { query: 'waiting longer between attempts', mode: 'vector', limit: 1, offset: 1 },
      { query: 'retries exponential backoff', mode: 'hybrid' },
      { query: 'retries exponential backoff', mode: 'hybrid', explain: true, snippetChars: 80 },
      { query: 'retries -timeout', syntax: 'boolean', mode: 'hybrid' },
      { query: '?!', mode: 'hybrid' }, // no words: no keyword leg, the vector leg answers
      { query: 'powerhouse of the cell', mode: 'rerank' },
    ];
    const scoreless = (r: SearchResponse) => ({ ...comparable(r), results: r.results.map(({ score: _s, explain, ...rest }) => ({ ...rest, explained: explain !== undefined })) });
    for (const req of cases) {
      const lite = await engine.search(req);
      const pg = await shared.search(req);
      expect(scoreless(pg), JSON.stringify(req)).toEqual(scoreless(lite));
      pg.results.forEach((h, i) => expect(h.score, JSON.stringify(req)).toBeCloseTo(lite.results[i]!.score, 3));
    }
    // not vacuous: the semantic match is found without shared words, filters and legs show up
    const cells = await shared.search(cases[0]!);
    expect(cells.results[0]?.path).toBe('notes/cells.md');
    expect((await shared.search(cases[1]!)).results.every((h) => h.path.startsWith('docs/'))).toBe(true);
    expect((await shared.search(cases[4]!)).plan?.strategy).toBe('hybrid:rrf');
    expect((await shared.search(cases[7]!)).notices?.[0]).toMatch(/keyword leg skipped/);
    const reranked = await shared.search({ ...cases[8]!, explain: true });
    expect(reranked.notices).toBeUndefined();
    expect(reranked.results[0]?.explain).toHaveProperty('rerank');
  });

  it('reads documents (get, multi-get) and lists collections as the engine does on SQLite', async () => {
    const docid = (await engine.search({ query: 'mitochondria' })).results[0]!.docid;
    const gets: [string, Parameters<Engine['get']>[1]][] = [
      ['docs/resilience.md', {}],
      ['notes/docs/resilience.md:5', { maxLines: 3, lineNumbers: true }],
      [`#${docid}`, { fromLine: 2, highlight: { query: 'powerhouse cell' } }],
      ['trove://notes/notes/tokyo.md', { collections: ['NOTES'] }],
    ];
    for (const [locator, opts] of gets) expect(await shared.get(locator, opts), locator).toEqual(await engine.get(locator, opts));
    const errorOf = async (p: Promise<unknown>) => (await p.then(() => null, (e: unknown) => e)) as TroveError;
    for (const [locator, opts] of [
      ['docs/resiliense.md', {}], // a typo: suggestions
      ['docs/resilience.md', { collections: ['other'] }], // out of scope: does not exist
      ['#abcdef12', {}],
      ['../etc/passwd', {}],
    ] as [string, Parameters<Engine['get']>[1]][]) {
      const lite = await errorOf(engine.get(locator, opts));
      expect(lite, locator).not.toBeNull();
      expect(await errorOf(shared.get(locator, opts)), locator).toMatchObject({ code: lite!.code, message: lite!.message });
    }
    for (const [pattern, opts] of [
      ['docs/*.md', {}],
      ['notes/**', { maxBytes: 80 }], // the longer notes are skipped with the reason
      ['docs/client.md, docs/missing.md, notes/cells.md', { maxLines: 2, lineNumbers: true }],
      ['src/nothing-*.ts', {}],
    ] as [string, Parameters<Engine['multiGet']>[1]][]) {
      expect(await shared.multiGet(pattern, opts), pattern).toEqual(await engine.multiGet(pattern, opts));
    }
    expect((await shared.multiGet('notes/**', { maxBytes: 80 })).documents.some((d) => 'skipped' in d && d.skipped)).toBe(true);
    expect(await shared.listCollections()).toEqual(await engine.listCollections());
  });

  it('keeps access tokens in the database, for every host on it, with the engine\'s checks and defaults', async () => {
    const scoped = await shared.createToken({ name: 'team-notes', collections: ['NOTES'], tools: ['search', 'get'], expiresInDays: 30 });
    expect(scoped.token).toMatch(/^trove_/);
    expect(scoped.info).toMatchObject({ name: 'team-notes', collections: ['notes'], tools: ['search', 'get'], memory: 'none', profile: 'standard', lastUsedAt: null });
    const everything = await shared.createToken({ name: 'team-all' });
    expect(everything.info).toMatchObject({ collections: null, tools: null, memory: 'write' });
    // another host sees them at once: they are rows in the database, not files in a profile
    const other = await openSharedIndex(url);
    try {
      expect(await other.verifyToken(scoped.token)).toMatchObject({ name: 'team-notes', collections: ['notes'] });
      expect(await other.verifyToken(`${scoped.token}x`)).toBeNull();
      expect(await other.verifyToken('not-a-token')).toBeNull();
      expect((await other.listTokens()).map((t) => t.name).sort()).toEqual(['team-all', 'team-notes']);
      await other.revokeToken('team-all');
    } finally {
      await other.close();
    }
    expect(await shared.verifyToken(everything.token)).toBeNull();
    expect((await shared.listTokens()).find((t) => t.name === 'team-notes')?.lastUsedAt).not.toBeNull();
    // the same refusals as the engine's
    const refused = async (p: Promise<unknown>) => (await p.then(() => null, (e: unknown) => e)) as TroveError;
    expect(await refused(shared.createToken({ name: 'team-notes' }))).toMatchObject({ code: 'CONFLICT', message: 'a token named "team-notes" already exists' });
    expect(await refused(shared.createToken({ name: 'x', collections: ['nope'] }))).toMatchObject({ code: 'NOT_FOUND', message: 'no collection named "nope" (collections: notes)' });
    expect(await refused(shared.createToken({ name: 'x', expiresInDays: -1 }))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(await refused(shared.revokeToken('nobody'))).toMatchObject({ code: 'NOT_FOUND', message: 'no token named "nobody"' });
  });

  it('reports the status as the engine does on SQLite (counts, problems, queue, embedding per collection)', async () => {
    const lite = await engine.status();
    const pg = await shared.status();
    expect(pg.collections).toEqual(lite.collections);
    expect(pg.totals).toEqual(lite.totals);
    expect(pg.indexing.collections).toEqual(lite.indexing.collections.map((c) => ({ ...c, progress: null })));
    expect({ needs: pg.needsEmbedding, has: pg.hasVectorIndex }).toEqual({ needs: lite.needsEmbedding, has: lite.hasVectorIndex });
    expect(pg.embeddings.collections.map(({ summary: _s, ...c }) => c)).toEqual(lite.embeddings.collections.map(({ summary: _s, ...c }) => c));
    expect(pg.embeddings.coverage).toMatchObject({ embedded: lite.embeddings.coverage.embedded, chunks: lite.embeddings.coverage.chunks });
    expect(pg.embeddings.summary).toMatch(/this process does not embed in the background/); // a one-shot reader: no loop of its own
    expect(pg.database.path).toBe(shared.location);
    expect(pg.database.bytes).toBeGreaterThan(0);
    expect(pg.hasVectorIndex).toBe(true); // not vacuous: the profile was embedded before it was copied
    const scoped = await shared.status({ collections: ['other'] });
    expect(scoped.collections).toEqual([]);
    expect(scoped.totals.documents).toBe(0);
  });

  it('sees what another host indexes: its NOTIFY drops the cached row and term counts', async () => {
    expect((await shared.search({ query: 'zeppelin' })).results).toEqual([]); // counted (as absent) and cached
    const other = await PostgresStorage.open(url);
    try {
      const notes = (await other.collections.get('notes'))!;
      await other.jobs.recordEvents([{ collectionId: notes.id, kind: 'file', path: 'notes/airships.md', priority: 0, changedAt: 1, gone: false, runAt: 0 }]);
      const claim = (await other.jobs.claim(Date.now(), 10, { only: notes.id }))!;
      const text = '# Airships\n\nA zeppelin is a rigid airship.\n';
      const p = prepareDocument(Buffer.from(text), 'notes/airships.md', DEFAULT_CHUNKING);
      if (!p.ok) throw new Error(p.reason);
      const document = { collectionId: notes.id, path: 'notes/airships.md', docid: 'a1b2c3', title: p.title, kind: p.kind, size: text.length, mtimeMs: 1, hash: 'h', status: 'indexed' as const, error: null, tags: [], metadata: {} };
      const job = claim.jobs.find((j) => j.path === 'notes/airships.md')!;
      await claim.complete({ write: { collectionId: notes.id, index: 'chunks_fts', at: Date.now(), writes: [{ op: 'index', document, text: p.text, chunks: p.chunks }] }, retire: [job] });
      await expect.poll(async () => (await shared.search({ query: 'zeppelin' })).results.map((r) => r.path), { timeout: 20_000 }).toEqual(['notes/airships.md']);
    } finally {
      await other.close();
    }
  });

  it('says what does not run there yet, and rejects bad input as the engine does', async () => {
    const fails = async (req: SearchRequest) => (await shared.search(req).catch((e: unknown) => e)) as TroveError;
    expect(await fails({ query: 'NOT backoff', syntax: 'boolean' })).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/at least one term that is not negated/) });
    expect(await fails({ query: 'backoff', mode: 'vector', collections: ['nope'] })).toMatchObject({ code: 'NOT_FOUND' });
    expect(await fails({ query: 'backoff', collections: ['nope'] })).toMatchObject({ code: 'NOT_FOUND', message: 'no collection named "nope" (collections: notes)' });
    expect(await fails({ query: 'backoff', kinds: ['spreadsheet-ish'] })).toMatchObject({ code: 'INVALID_INPUT' });
    expect(await fails({ query: '   ' })).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('runs as `trove search` with TROVE_DATABASE_URL or --database; bad and unreachable URLs say so', async () => {
    ensureBuilt();
    const args = ['search', 'retries', 'exponential', 'backoff', '--json'];
    const lite = oneJson<SearchResponse>(await runTrove(args, { home: profile }));
    const viaEnv = await runTrove(args, { home: tempDir('trove-shared-empty-'), env: { TROVE_DATABASE_URL: url } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(comparable(oneJson<SearchResponse>(viaEnv))).toEqual(comparable(lite));
    const viaFlag = await runTrove([...args, '--database', url], { home: tempDir('trove-shared-empty-') });
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(oneJson<SearchResponse>(viaFlag).results.map((r) => r.docid)).toEqual(lite.results.map((r) => r.docid));

    const bad = await runTrove(['search', 'x'], { home: profile, env: { TROVE_DATABASE_URL: 'mysql://u@h/db' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^trove: TROVE_DATABASE_URL must start with postgresql:\/\//);
    const badFlag = await runTrove(['search', 'x', '--database', 'postgresql://host-without-db'], { home: profile });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--database names no database/);
    const down = await runTrove(['search', 'x'], { home: profile, env: { TROVE_DATABASE_URL: 'postgresql://trove:secret@127.0.0.1:1/none' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach PostgreSQL at postgresql:\/\/trove:\*\*\*@127\.0\.0\.1:1\/none/);
    expect(down.stderr).not.toMatch(/secret/);
    const get = await runTrove(['get', 'docs/backoff.md', '--json'], { home: tempDir('trove-shared-empty-'), env: { TROVE_DATABASE_URL: url } });
    expect(get.code, get.stderr).toBe(0);
    expect(oneJson<{ text: string }>(get).text).toMatch(/Exponential backoff doubles the wait/);
    const many = await runTrove(['multi-get', 'docs/*.md', '--json', '--database', url], { home: tempDir('trove-shared-empty-') });
    expect(oneJson<{ documents: { path: string }[] }>(many).documents.map((d) => d.path).sort()).toEqual(['docs/backoff.md', 'docs/client.md', 'docs/resilience.md']);
    const listed = await runTrove(['collection', 'list', '--json'], { home: tempDir('trove-shared-empty-'), env: { TROVE_DATABASE_URL: url } });
    expect(oneJson<{ collections: { name: string; documents: number }[] }>(listed).collections).toMatchObject([{ name: 'notes', documents: 8 }]); // the seven files and the one another host indexed above
    const made = await runTrove(['token', 'create', '--name', 'cli-token', '--collections', 'notes', '--json', '--database', url], { home: tempDir('trove-shared-empty-') });
    expect(made.code, made.stderr).toBe(0);
    expect(await shared.verifyToken(oneJson<{ token: string }>(made).token)).toMatchObject({ name: 'cli-token', collections: ['notes'] });
    const tokens = await runTrove(['token', 'list', '--json'], { home: tempDir('trove-shared-empty-'), env: { TROVE_DATABASE_URL: url } });
    expect(oneJson<{ name: string }[]>(tokens).map((t) => t.name)).toContain('cli-token');
    const status = await runTrove(['status', '--json'], { home: tempDir('trove-shared-empty-'), env: { TROVE_DATABASE_URL: url } });
    expect(status.code, status.stderr).toBe(0);
    expect(oneJson<{ totals: { documents: number } }>(status).totals.documents).toBe(8);
    const other = await runTrove(['failures'], { home: profile, env: { TROVE_DATABASE_URL: url } });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/TROVE_DATABASE_URL is set, and this command does not run on PostgreSQL yet/);
  });
});
