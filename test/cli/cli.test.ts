// The `trove` command contract, run as a real child process on a temp profile: every command,
// `--json` prints exactly one JSON document with the documented shape, exit codes 0/1/2.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionEmbeddingStatus, StatusReport } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { describeBackends } from '../helpers/backends.js';
import { ensureBuilt, oneJson, REPO, runTrove, type CliResult } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

let home: string;
let notes: string;
const trove = (...args: string[]) => runTrove(args, { home });
const trovEnv = (env: Record<string, string>, ...args: string[]) => runTrove(args, { home, env });

function ok(r: CliResult): CliResult {
  expect(r.code, `exit ${r.code}; stderr: ${r.stderr}`).toBe(0);
  return r;
}

beforeAll(async () => {
  ensureBuilt();
  home = tempDir('trove-cli-home-');
  notes = tempDir('trove-cli-notes-');
  writeTree(notes, {
    'retry.md': '---\ntags: [networking]\n---\n# Retry policy\n\nRetry failed requests with exponential backoff.\n',
    'lines.txt': Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n'),
    'docs/setup.md': '# Setup\n\nInstall the retry helper.\n',
    'docs/big.md': `# Big\n\n${'padding '.repeat(2000)}`,
    'drafts/wip.md': '# WIP\n\nnot for the index',
    'image.md': Buffer.from([0, 1, 2, 3, 0, 0, 0]),
  });
}, 120_000);

afterAll(removeTempDirs);

describe('collections', () => {
  it('collection add indexes the folder and prints one JSON document', async () => {
    const r = ok(await trove('collection', 'add', notes, '--name', 'notes', '--exclude', 'drafts/**', '--context', 'team notes', '--json'));
    const out = oneJson<{ collection: Record<string, unknown>; index: Record<string, unknown> }>(r);
    expect(out.collection).toMatchObject({ name: 'notes', root: fs.realpathSync(notes), context: 'team notes', documents: 4 });
    expect(out.index).toMatchObject({ collection: 'notes', scanned: 5, added: 4 });
    expect(out.index.skipped).toEqual([{ path: 'image.md', reason: 'binary content (not text)' }]);
    expect(r.stderr).toBe(''); // no progress bar when stderr is not a terminal
  });

  it('collection add with --include replaces the defaults; --no-index only registers', async () => {
    const r = ok(await trove('collection', 'add', notes, '--name', 'only-txt', '--include', '**/*.txt', '--no-index', '--json'));
    const out = oneJson<{ collection: { include: string[]; documents: number }; index: null }>(r);
    expect(out.collection.include).toEqual(['**/*.txt']);
    expect(out.collection.documents).toBe(0);
    expect(out.index).toBeNull();
    const idx = oneJson<{ reports: { collection: string; added: number }[] }>(ok(await trove('index', '--collection', 'only-txt', '--json')));
    expect(idx.reports).toEqual([expect.objectContaining({ collection: 'only-txt', added: 1 })]);
  });

  it('collection list, context, rename and remove', async () => {
    const list = oneJson<{ collections: { name: string }[] }>(ok(await trove('collection', 'list', '--json')));
    expect(list.collections.map((c) => c.name)).toEqual(['notes', 'only-txt']);
    const ctx = oneJson<{ collection: { context: string } }>(ok(await trove('collection', 'context', 'only-txt', 'plain text files', '--json')));
    expect(ctx.collection.context).toBe('plain text files');
    const renamed = oneJson<{ collection: { name: string; context: string } }>(ok(await trove('collection', 'rename', 'only-txt', 'texts', '--json')));
    expect(renamed.collection).toMatchObject({ name: 'texts', context: 'plain text files' });
    const removed = ok(await trove('collection', 'remove', 'texts'));
    expect(removed.stdout).toMatch(/Removed collection "texts".*untouched/);
    expect(fs.existsSync(path.join(notes, 'lines.txt'))).toBe(true);
    const after = ok(await trove('collection', 'list'));
    expect(after.stdout).toMatch(/^notes {2}/);
    expect(after.stdout).toMatch(/4 documents/);
    expect(after.stdout).not.toContain('texts');
  });

  it('collection errors: bad name is a usage error (2), unknown is not found (1), missing folder fails (1)', async () => {
    const [bad, unknown, missing] = await Promise.all([
      trove('collection', 'add', notes, '--name', 'bad name', '--json'),
      trove('collection', 'rename', 'ghost', 'x'),
      trove('collection', 'add', path.join(notes, 'no-such-dir'), '--name', 'm'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(JSON.parse(bad.stderr)).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringMatching(/not a valid collection name/) } });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no collection named "ghost"/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist/);
  });
});

describe('index', () => {
  it('reports what changed; a second run finds everything unchanged; an unknown --collection exits 1', async () => {
    fs.writeFileSync(path.join(notes, 'new.md'), '# New\n\nfreshly added page about kiwis');
    const first = oneJson<{ reports: Record<string, unknown>[] }>(ok(await trove('index', '--json')));
    expect(first.reports[0]).toMatchObject({ collection: 'notes', scanned: 6, added: 1, updated: 0 });
    const [second, ghost] = await Promise.all([trove('index'), trove('index', '--collection', 'ghost', '--json')]);
    expect(ok(second).stdout).toMatch(/notes: 6 files scanned .* 0 added, 0 updated, 0 renamed, 0 removed, 6 unchanged/); // the skipped image.md too
    expect(ghost.code).toBe(1);
    expect(ghost.stdout).toBe('');
    expect(JSON.parse(ghost.stderr).error.code).toBe('NOT_FOUND');
  });

  it('TROVE_MAX_FILE_BYTES skips big files with a reason', async () => {
    const home2 = tempDir('trove-cli-home-');
    const [r, bad] = await Promise.all([
      runTrove(['collection', 'add', notes, '--name', 'small', '--json'], { home: home2, env: { TROVE_MAX_FILE_BYTES: '4096' } }),
      runTrove(['status', '--json'], { home: home2, env: { TROVE_MAX_FILE_BYTES: 'ten' } }),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/TROVE_MAX_FILE_BYTES must be a positive whole number/);
    const out = oneJson<{ index: { skipped: { path: string; reason: string }[] } }>(ok(r));
    expect(out.index.skipped).toEqual(expect.arrayContaining([{ path: 'docs/big.md', reason: expect.stringMatching(/over the 4\.0 KB limit/) }]));
  });
});

describe('progress', () => {
  it('shows a progress bar with rate and ETA on a terminal (stderr is not a TTY elsewhere: no bar)', async () => {
    const ttyHome = tempDir('trove-cli-home-');
    // `script` runs the command on a pseudo-terminal, as a person at a shell would
    const command = [process.execPath, path.join(REPO, 'bin/trove.js'), 'collection', 'add', notes, '--name', 'tty'].map((a) => `'${a}'`).join(' ');
    const r = await new Promise<{ code: number; out: string }>((resolve, reject) => {
      const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
        cwd: ttyHome,
        env: { PATH: process.env.PATH ?? '', HOME: ttyHome, TROVE_HOME: ttyHome, TERM: 'xterm' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/tty \[.*\] 100% \| \d+\/\d+ files \| \d+ files\/s \| [\d.]+ MB \| ETA \d+s/);
    expect(r.out).toMatch(/Added collection "tty"/);
  });
});

describe('search', () => {
  it('--json prints {results: [{docid, collection, path, title, score, snippet, …}], has_more, …}', async () => {
    const out = oneJson<{ results: Record<string, unknown>[]; has_more: boolean; next_offset: number | null; total_estimated: number; query: string }>(
      ok(await trove('search', 'exponential', 'backoff', '--json')),
    );
    expect(out.query).toBe('exponential backoff');
    expect(out.results[0]).toMatchObject({
      docid: expect.stringMatching(/^[0-9a-f]{6,}$/),
      collection: 'notes',
      path: 'retry.md',
      title: 'Retry policy',
      score: 1,
      snippet: expect.stringMatching(/^\d+: /),
      uri: 'trove://notes/retry.md',
      line: expect.any(Number),
    });
    expect(out).toMatchObject({ has_more: false, next_offset: null, total_estimated: out.results.length });
  });

  it('--limit pages with has_more and next_offset; --collection and --syntax filter', async () => {
    const [pageRun, phraseRun, humanRun, ghost] = await Promise.all([
      trove('search', 'retry', '--limit', '1', '--json'),
      trove('search', 'retry helper', '--syntax', 'phrase', '--collection', 'notes', '--json'),
      trove('search', 'kiwis'),
      trove('search', 'retry', '--collection', 'ghost'),
    ]);
    const page = oneJson<{ results: unknown[]; has_more: boolean; next_offset: number }>(ok(pageRun));
    expect(page.results).toHaveLength(1);
    expect(page).toMatchObject({ has_more: true, next_offset: 1 });
    expect(oneJson<{ results: { path: string }[] }>(ok(phraseRun)).results.map((r) => r.path)).toEqual(['docs/setup.md']);
    expect(ok(humanRun).stdout).toMatch(/^1\. notes\/new\.md {2}#[0-9a-f]+ {2}score 1\.00\n/);
    expect(humanRun.stdout).toContain('freshly added page about kiwis');
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/no collection named "ghost"/);
  });

  it('usage errors exit 2: unknown option, bad --limit, bad --syntax, unusable query, unknown command', async () => {
    const cases = [
      ['search', 'retry', '--bogus'],
      ['search', 'retry', '--limit', 'ten'],
      ['search', 'retry', '--syntax', 'regex'],
      ['search', '"', '--syntax', 'boolean'],
      ['frobnicate'],
    ];
    const runs = await Promise.all(cases.map((args) => trove(...args, '--json')));
    runs.forEach((r, i) => {
      const what = cases[i]!.join(' ');
      expect(r.code, what).toBe(2);
      expect(r.stdout, what).toBe('');
      expect(r.stderr.length, what).toBeGreaterThan(0);
    });
    expect(JSON.parse(runs[3]!.stderr).error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/no searchable words/) });
  });
});

describe('get and multi-get', () => {
  it('get by path and #docid, with --from-line, --max-lines and path:LINE', async () => {
    const doc = oneJson<{ docid: string; path: string; text: string; uri: string }>(ok(await trove('get', 'retry.md', '--json')));
    expect(doc).toMatchObject({ path: 'retry.md', uri: 'trove://notes/retry.md' });
    expect(doc.text).toContain('exponential backoff');
    const [byDocid, slice, atLine] = await Promise.all([
      trove('get', `#${doc.docid}`, '--json'),
      trove('get', 'lines.txt', '--from-line', '3', '--max-lines', '2'),
      trove('get', 'trove://notes/lines.txt:11', '--json'),
    ]);
    expect(oneJson<{ path: string }>(ok(byDocid)).path).toBe('retry.md');
    expect(ok(slice).stdout).toBe('line 3\nline 4\n[... 8 more lines; --from-line 5]\n');
    expect(oneJson(ok(atLine))).toMatchObject({ fromLine: 11, text: 'line 11\nline 12' });
  });

  it('get: not found exits 1 with suggestions; traversal and bad options exit 2', async () => {
    const [nf, traversal, badLine] = await Promise.all([
      trove('get', 'retyr.md', '--json'),
      trove('get', 'trove://notes/%2e%2e/%2e%2e/etc/passwd'),
      trove('get', 'retry.md', '--from-line', 'x'),
    ]);
    expect(nf.code).toBe(1);
    expect(JSON.parse(nf.stderr).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/did you mean retry\.md/) });
    expect(traversal.code).toBe(2);
    expect(traversal.stdout).toBe('');
    expect(traversal.stderr).toMatch(/may not leave/);
    expect(badLine.code).toBe(2);
  });

  it('multi-get by glob and by list, with the maxBytes notice and line truncation', async () => {
    const [globRun, listRun, humanRun] = await Promise.all([
      trove('multi-get', 'docs/*.md', '--json'),
      trove('multi-get', 'retry.md,nope.md', '--json'),
      trove('multi-get', 'lines.txt', '--max-lines', '2'),
    ]);
    const r = oneJson<{ documents: { path: string; text?: string; skipped?: string }[] }>(ok(globRun));
    expect(r.documents.map((d) => d.path).sort()).toEqual(['docs/big.md', 'docs/setup.md']);
    expect(r.documents.find((d) => d.path === 'docs/big.md')!.skipped).toMatch(/over maxBytes \(10240\)/);
    const list = oneJson<{ documents: { path: string }[]; notFound: { locator: string }[] }>(ok(listRun));
    expect(list.documents.map((d) => d.path)).toEqual(['retry.md']);
    expect(list.notFound.map((n) => n.locator)).toEqual(['nope.md']);
    expect(ok(humanRun).stdout).toMatch(/^==> notes\/lines\.txt \(#[0-9a-f]+\) <==\nline 1\nline 2\n\n\[\.\.\. truncated 10 more lines\]\n$/);
  });
});

describe('status', () => {
  it('--json has totals, per-collection counts and failures with reasons; TROVE_HOME selects the profile', async () => {
    const other = tempDir('trove-cli-home-');
    const [json, human, otherRun] = await Promise.all([trove('status', '--json'), trove('status'), trovEnv({ TROVE_HOME: other }, 'status', '--json')]);
    const s = oneJson<{ profileDir: string; totals: Record<string, number>; collections: { name: string; documents: number; problems: unknown[] }[] }>(ok(json));
    expect(s.profileDir).toBe(home);
    expect(s.totals).toMatchObject({ collections: 1, documents: 5, skipped: 1, failed: 0 });
    expect(s.collections[0]).toMatchObject({ name: 'notes', documents: 5 });
    expect(s.collections[0]!.problems).toEqual([{ path: 'image.md', status: 'skipped', reason: 'binary content (not text)' }]);
    expect(ok(human).stdout).toMatch(/1 collections, 5 documents/);
    expect(human.stdout).toMatch(/skipped image\.md: binary content/);
    const o = oneJson<{ profileDir: string; totals: { collections: number } }>(ok(otherRun));
    expect(o.profileDir).toBe(other);
    expect(o.totals.collections).toBe(0);
    expect(fs.existsSync(path.join(other, 'index.sqlite'))).toBe(true);
  });
});

describe('token', () => {
  it('create --profile deep-research; a bad profile is a usage error (2)', async () => {
    const made = oneJson<{ token: string; name: string; profile: string }>(ok(await trove('token', 'create', '--name', 'chatgpt', '--profile', 'deep-research', '--json')));
    expect(made).toMatchObject({ name: 'chatgpt', profile: 'deep-research' });
    expect(made.token).toMatch(/^trove_/);
    expect(ok(await trove('token', 'list')).stdout).toMatch(/chatgpt .*deep-research profile \(search \+ fetch\)/);
    const bad = await trove('token', 'create', '--name', 'x', '--profile', 'everything');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--profile must be standard or deep-research/);
  });
});

// The commands that read and write the index, on either backend: every command takes the global
// --database (a PostgreSQL URL) in place of the profile's SQLite file and answers the same; an
// index run embeds only when asked (--embed), `trove embed` prints each collection's embedding
// status, and the tokens are the index's. (The rest of the contract above is the CLI's own: its
// options, output shapes and exit codes do not depend on the backend.)
describeBackends('the index through the CLI', (b) => {
  let home: string;
  let docs: string;
  let database: string | undefined;
  const run = (...args: string[]) => runTrove(database ? [...args, '--database', database] : args, { home, env: { TROVE_MODELS_DIR: modelsDir } });

  beforeAll(async () => {
    home = tempDir('trove-cli-backend-');
    docs = tempDir('trove-cli-backend-docs-');
    writeTree(docs, {
      'bread.md': '# Sourdough\n\nFeed the starter the night before; the dough rises slowly in a cool kitchen.\n',
      'bikes.md': '# Bicycle repair\n\nPatch the inner tube, then check the tyre for thorns.\n',
    });
    database = b.name === 'postgres' ? await freshDatabase('cli', { migrated: true }) : undefined;
  });

  it('collection add and index do not embed unless asked; --embed does; status and search read that index', async () => {
    const added = oneJson<{ collection: { name: string; documents: number }; index: { added: number } }>(ok(await run('collection', 'add', docs, '--name', 'kitchen', '--json')));
    expect(added).toMatchObject({ collection: { name: 'kitchen', documents: 2 }, index: { added: 2 } });
    expect(added).not.toHaveProperty('embedding');
    const before = oneJson<StatusReport>(ok(await run('status', '--json')));
    expect(before).toMatchObject({ totals: { collections: 1, documents: 2 }, needsEmbedding: 2, hasVectorIndex: false });
    expect(before.database.path).toBe(database ?? path.join(home, 'index.sqlite'));

    const indexed = oneJson<{ reports: { collection: string; unchanged: number }[]; embeddings: CollectionEmbeddingStatus[] }>(ok(await run('index', '--embed', '--json')));
    expect(indexed.reports).toEqual([expect.objectContaining({ collection: 'kitchen', unchanged: 2 })]);
    expect(indexed.embeddings).toEqual([expect.objectContaining({ collection: 'kitchen', model: 'all-MiniLM-L6-v2', vectors: 2, needsEmbedding: 0 })]);
    const found = oneJson<{ results: { path: string }[] }>(ok(await run('search', 'baking', 'bread', 'at', 'home', '--mode', 'vector', '--json')));
    expect(found.results[0]?.path).toBe('bread.md');

    writeTree(docs, { 'more/kettle.md': '# Kettle\n\nDescale the kettle with vinegar.\n' });
    const more = oneJson<{ index: { added: number }; embedding: CollectionEmbeddingStatus }>(ok(await run('collection', 'add', path.join(docs, 'more'), '--name', 'more', '--embed', '--json')));
    expect(more).toMatchObject({ index: { added: 1 }, embedding: { collection: 'more', vectors: 1, needsEmbedding: 0 } });
    const all = oneJson<{ collections: CollectionEmbeddingStatus[] }>(ok(await run('embed', '--json')));
    expect(all.collections.map((c) => [c.collection, c.vectors, c.needsEmbedding])).toEqual([
      ['kitchen', 2, 0],
      ['more', 1, 0],
    ]);
  });

  it('tokens are the index\'s: create, list, revoke', async () => {
    const made = oneJson<{ token: string; name: string; collections: string[] | null; memory: string }>(ok(await run('token', 'create', '--name', 'reader', '--collections', 'kitchen', '--json')));
    expect(made).toMatchObject({ name: 'reader', collections: ['kitchen'], memory: 'none' });
    expect(made.token).toMatch(/^trove_/);
    expect(oneJson<{ name: string }[]>(ok(await run('token', 'list', '--json'))).map((t) => t.name)).toEqual(['reader']);
    ok(await run('token', 'revoke', 'reader'));
    expect(oneJson<unknown[]>(ok(await run('token', 'list', '--json')))).toEqual([]);
  });
});
