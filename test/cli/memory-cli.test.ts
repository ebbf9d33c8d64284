// `trove memory list|search|export|import` and `trove token create --memory`, run as the real bin
// against a real profile: export writes JSON lines a second profile imports, a second import skips
// everything, bad lines import nothing and say where they are; with --database the same commands
// move that memory into PostgreSQL and work on it there.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type CollectionEmbeddingStatus } from '../../src-main/engine/index.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { modelsDir } from '../embed/models-dir.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

let home: string;
const PIXEL = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

beforeAll(async () => {
  ensureBuilt();
  home = tempDir('trove-cli-memory-');
  const engine = await Engine.open({ profileDir: home });
  await engine.memory.storeBatch([
    { threadId: 'deploy', source: 'agent', text: 'Blue-green deploys switch the load balancer after health checks pass.', tags: ['ops'] },
    { threadId: 'deploy', source: 'user', text: 'Roll back if error rates double.', metadata: { severity: 'high' } },
    { threadId: 'ui', source: 'agent', text: 'The settings page screenshot.', images: [{ data: PIXEL }] },
  ]);
  await engine.close();
}, 120_000);
afterAll(() => removeTempDirs());

describe('trove memory', () => {
  it('list: threads with counts; with --thread, entries newest first', async () => {
    const threads = await runTrove(['memory', 'list'], { home });
    expect(threads.code).toBe(0);
    expect(threads.stdout).toMatch(/2 threads:\n {2}(ui|deploy) {2}\d entr/);
    const json = oneJson<{ threadId: string; entries: number }[]>(await runTrove(['memory', 'list', '--json'], { home }));
    expect(json.map((t) => [t.threadId, t.entries]).sort()).toEqual([['deploy', 2], ['ui', 1]]);
    const entries = await runTrove(['memory', 'list', '--thread', 'deploy'], { home });
    expect(entries.stdout).toMatch(/2 entries in thread "deploy":\n#2 .* user\n {4}Roll back if error rates double\.\n#1 .* agent {2}\[ops\]/);
    expect((await runTrove(['memory', 'list', '--thread', 'nope'], { home })).stdout).toMatch(/No entries in thread "nope"/);
  });

  it('search: keyword with filters; a semantic mode without vectors says why', async () => {
    const r = await runTrove(['memory', 'search', 'load', 'balancer', '--thread', 'deploy'], { home });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1 entries for "load balancer" \(keyword\):\n1\.00 #1 deploy/);
    const j = oneJson<{ hits: { entry: { id: number } }[] }>(await runTrove(['memory', 'search', 'rollback', '--source', 'user', '--json'], { home }));
    expect(j.hits).toEqual([]);
    const v = await runTrove(['memory', 'search', 'rollback', '--mode', 'vector'], { home });
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/semantic search is off: no vectors yet for memory/);
    const bad = await runTrove(['memory', 'search', 'x', '--since', 'yesterday'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/start_date is not an ISO 8601 date/);
  });

  it('export then import moves memory, images included; importing again skips everything', async () => {
    const exported = await runTrove(['memory', 'export'], { home });
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; thread_id: string; images: { data: string }[] });
    expect(lines.map((l) => l.id)).toEqual([1, 2, 3]);
    expect(lines[2]!.images[0]!.data).toBe(PIXEL);
    const dir = tempDir('trove-cli-export-');
    const file = path.join(dir, 'memory.jsonl');
    expect((await runTrove(['memory', 'export', '--thread', 'deploy', '--output', file], { home })).stderr).toMatch(/Exported 2 entries/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600); // every conversation's notes: the owner's only
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    expect((await runTrove(['memory', 'export', '--output', file], { home })).code).toBe(1); // never overwrites
    fs.writeFileSync(file, exported.stdout);

    const other = tempDir('trove-cli-memory-');
    const first = await runTrove(['memory', 'import', file], { home: other });
    expect(first.stdout.trim()).toBe('Imported 3 entries.');
    const again = oneJson(await runTrove(['memory', 'import', file, '--json'], { home: other }));
    expect(again).toEqual({ imported: 0, skipped: 3 });
    const roundTrip = (await runTrove(['memory', 'export'], { home: other })).stdout;
    expect(roundTrip).toBe(exported.stdout);
  });

  it('import refuses a file with bad lines, saying which, and imports nothing', async () => {
    const other = tempDir('trove-cli-memory-');
    const file = path.join(other, 'bad.jsonl');
    fs.writeFileSync(file, '{"thread_id":"t","source":"agent","text":"fine"}\n{not json}\n\n{"thread_id":"t","source":"bot","text":"x"}\n');
    const r = await runTrove(['memory', 'import', file], { home: other });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing was imported: line 2: not JSON/);
    fs.writeFileSync(file, '{"thread_id":"t","source":"agent","text":"fine"}\n{"thread_id":"t","source":"bot","text":"x"}\n');
    const r2 = await runTrove(['memory', 'import', file], { home: other });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/nothing was imported: 1 line cannot be read\nline 2\.source must be "user" or "agent"/);
    expect(oneJson<unknown[]>(await runTrove(['memory', 'list', '--json'], { home: other }))).toEqual([]);
    expect((await runTrove(['memory', 'import', path.join(other, 'missing.jsonl')], { home: other })).stderr).toMatch(/no such file/);
  });

  it('status counts memory', async () => {
    expect((await runTrove(['status'], { home })).stdout).toMatch(/^Memory: {2}3 entries in 2 threads, 3 chunks waiting for embeddings \(trove embed\)/m);
    expect(oneJson<{ memory: unknown }>(await runTrove(['status', '--json'], { home })).memory).toEqual({ entries: 3, threads: 2, needsEmbedding: 3 });
  });

  it('token create --memory sets the grant; list shows it', async () => {
    const r = oneJson<{ memory: string }>(await runTrove(['token', 'create', '--name', 'reader', '--memory', 'read', '--json'], { home }));
    expect(r.memory).toBe('read');
    const open = oneJson<{ memory: string }>(await runTrove(['token', 'create', '--name', 'open', '--json'], { home }));
    expect(open.memory).toBe('write'); // a token of every collection writes memory unless told otherwise
    expect((await runTrove(['token', 'list'], { home })).stdout).toMatch(/reader .*memory read-only/);
    const bad = await runTrove(['token', 'create', '--name', 'x', '--memory', 'admin'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are none, read, write/);
  });

  it('token create with --memory and --expires-in together: both kept, both shown', async () => {
    const r = oneJson<{ memory: string; expiresAt: string }>(await runTrove(['token', 'create', '--name', 'temp', '--memory', 'none', '--expires-in', '2', '--json'], { home }));
    expect(r.memory).toBe('none');
    expect(Date.parse(r.expiresAt) - Date.now()).toBeGreaterThan(86_400_000);
    expect((await runTrove(['token', 'list'], { home })).stdout).toMatch(/temp .*no memory, expires \d{4}-/);
    const bad = await runTrove(['token', 'create', '--name', 'never', '--expires-in', '0'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expires after 0 to 3650 days/);
  });
});

describe('trove memory --database', () => {
  it('moves a profile\'s memory into PostgreSQL and works on it there: import, list, search, export (the same lines)', async () => {
    const url = await freshDatabase('memorycli');
    const empty = tempDir('trove-cli-memory-pg-');
    const exported = (await runTrove(['memory', 'export'], { home })).stdout;
    const file = path.join(tempDir('trove-cli-export-pg-'), 'memory.jsonl');
    fs.writeFileSync(file, exported);
    const first = await runTrove(['memory', 'import', file, '--json', '--database', url], { home: empty });
    expect(first.code, first.stderr).toBe(0);
    expect(oneJson(first)).toEqual({ imported: 3, skipped: 0 });
    expect(oneJson(await runTrove(['memory', 'import', file, '--json'], { home: empty, env: { TROVE_DATABASE_URL: url } }))).toEqual({ imported: 0, skipped: 3 });
    const threads = oneJson<{ threadId: string; entries: number }[]>(await runTrove(['memory', 'list', '--json', '--database', url], { home: empty }));
    expect(threads.map((t) => [t.threadId, t.entries]).sort()).toEqual([['deploy', 2], ['ui', 1]]);
    expect((await runTrove(['memory', 'list', '--thread', 'deploy', '--database', url], { home: empty })).stdout).toMatch(/2 entries in thread "deploy":/);
    const found = oneJson<{ hits: { entry: { text: string } }[] }>(await runTrove(['memory', 'search', 'load', 'balancer', '--json', '--database', url], { home: empty }));
    expect(found.hits.map((h) => h.entry.text)).toEqual(['Blue-green deploys switch the load balancer after health checks pass.']);
    // the same lines back (metadata compared as objects: jsonb keeps keys in its own order)
    const back = (await runTrove(['memory', 'export', '--database', url], { home: empty })).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(back).toEqual(exported.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>));
    // what an import wrote waits for vectors until a host embeds it: `trove embed --database` does, memory with the folders
    const embedded = await runTrove(['embed', '--json', '--database', url], { home: empty, env: { TROVE_MODELS_DIR: modelsDir } });
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(oneJson<{ collections: CollectionEmbeddingStatus[] }>(embedded).collections).toMatchObject([{ collection: '~memory', model: 'all-MiniLM-L6-v2', vectors: 3, needsEmbedding: 0 }]);
    const semantic = oneJson<{ hits: { entry: { text: string } }[] }>(await runTrove(['memory', 'search', 'switching traffic between deployments', '--mode', 'vector', '--json', '--database', url], { home: empty, env: { TROVE_MODELS_DIR: modelsDir } }));
    expect(semantic.hits[0]?.entry.text).toBe('Blue-green deploys switch the load balancer after health checks pass.');
  });
});
