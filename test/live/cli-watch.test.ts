// `trove index --watch` and `trove failures` through the real bin, on the profile's SQLite index
// and on PostgreSQL (the global --database, or TROVE_DATABASE_URL), where nothing goes to SQLite.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { databasePath } from '../../src-main/engine/profile.js';
import { describeBackends } from '../helpers/backends.js';
import { ensureBuilt, REPO, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

beforeAll(() => ensureBuilt(), 180_000);

describeBackends('trove index --watch and trove failures', (b) => {
  /** A database of its own on PostgreSQL (the CLI opens the engine: no engine of the test's). */
  const database = async () => (b.name === 'postgres' ? await freshDatabase('cli', { migrated: true }) : undefined);
  /** The global option, on PostgreSQL. */
  const on = (url: string | undefined) => (url ? ['--database', url] : []);

  test('index --watch reports the first run, indexes later changes, and stops cleanly on SIGTERM', async () => {
    const url = await database();
    const home = tempDir('trove-home-');
    const root = tempDir('trove-cli-root-');
    writeTree(root, { 'a.md': 'the first note' });
    expect((await runTrove(['collection', 'add', root, '--name', 'notes', '--no-index', ...on(url)], { home })).code).toBe(0);

    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'trove.js'), 'index', '--watch', '--json', ...on(url)], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts.filter(Boolean));
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const waitLines = async (n: number) => {
      const deadline = Date.now() + 20_000;
      while (lines.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} lines, got ${lines.length}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      await waitLines(1);
      const first = JSON.parse(lines[0]!) as { reports: { collection: string; added: number }[] };
      expect(first.reports).toMatchObject([{ collection: 'notes', added: 1 }]);
      // the watcher is live once the first report is out and "watching" was said
      const deadline = Date.now() + 10_000;
      while (!stderr.includes('watching') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      writeTree(root, { 'b.md': 'the second note about pelicans' });
      await waitLines(2);
      const event = JSON.parse(lines[1]!) as { collection: string; phase: string; done: number };
      expect(event).toMatchObject({ collection: 'notes', phase: 'idle' });
      expect(event.done).toBeGreaterThanOrEqual(1);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const search = await runTrove(['search', 'pelicans', '--json', ...on(url)], { home });
    expect(JSON.parse(search.stdout).results.map((r: { path: string }) => r.path)).toEqual(['b.md']);
    expect(fs.existsSync(databasePath(home))).toBe(b.name === 'sqlite'); // on PostgreSQL nothing went to SQLite
  });

  test('trove failures lists unreadable files with attempts and next retry', async () => {
    const url = await database();
    const home = tempDir('trove-home-', true);
    const root = tempDir('trove-cli-root-', true);
    writeTree(root, { 'ok.md': 'fine', 'locked.md': 'secret' });
    fs.chmodSync(path.join(root, 'locked.md'), 0o000);
    const nobody = { uid: 65534, gid: 65534 };
    const env = url ? { TROVE_DATABASE_URL: url } : undefined; // the variable, as the flag is taken above
    expect((await runTrove(['collection', 'add', root, '--name', 'notes'], { home, user: nobody, env })).code).toBe(0);
    const r = await runTrove(['failures', '--json'], { home, user: nobody, env });
    expect(r.code).toBe(0);
    const { failures } = JSON.parse(r.stdout) as { failures: { path: string; attempts: number; nextRetryAt: string | null }[] };
    expect(failures).toMatchObject([{ collection: 'notes', path: 'locked.md', reason: 'permission denied', attempts: 1 }]);
    expect(failures[0]!.nextRetryAt).not.toBeNull();
    const human = await runTrove(['failures'], { home, user: nobody, env });
    expect(human.stdout).toMatch(/notes\/locked\.md: permission denied \(1 attempt; next retry /);
  });
});
