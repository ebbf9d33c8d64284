// Unreadable files, folders and roots, through the real CLI. Tests run as root here, and root
// reads files whatever their mode; so when we are root the CLI runs as user `nobody`, over
// world-accessible temp folders, and chmod 000 then does stop it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, nobody, oneJson, runTrove, type CliOptions } from '../helpers/cli.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const asRoot = process.getuid?.() === 0;
let opts: CliOptions;
let notes: string;
let lockedRoot: string;

beforeAll(() => {
  ensureBuilt();
  const home = tempDir('trove-cli-home-', true);
  notes = tempDir('trove-cli-notes-', true);
  writeTree(notes, {
    'good.md': '# Good\n\nreadable file about otters',
    'private.md': '# Locked\n\nnobody may read this',
    'locked/inside.md': 'inside a locked folder',
    'open/also-good.md': 'another readable file about beavers',
  });
  fs.chmodSync(path.join(notes, 'open'), 0o755);
  fs.chmodSync(path.join(notes, 'private.md'), 0o000);
  fs.chmodSync(path.join(notes, 'locked'), 0o000);
  lockedRoot = tempDir('trove-cli-locked-', true);
  writeTree(lockedRoot, { 'a.md': 'a' });
  fs.chmodSync(lockedRoot, 0o000);
  opts = { home, ...(asRoot ? { user: nobody() } : {}) };
}, 120_000);

afterAll(() => {
  for (const p of [path.join(notes, 'private.md'), path.join(notes, 'locked'), lockedRoot]) fs.chmodSync(p, 0o755);
  removeTempDirs();
});

describe('unreadable input', () => {
  it('an unreadable file fails with a reason; an unreadable folder is a notice; the rest is indexed', async () => {
    const r = await runTrove(['collection', 'add', notes, '--name', 'notes', '--json'], opts);
    expect(r.code, r.stderr).toBe(0);
    const out = oneJson<{ index: { added: number; failed: unknown[]; notices: unknown[] } }>(r);
    expect(out.index.failed).toEqual([{ path: 'private.md', reason: 'permission denied' }]);
    expect(out.index.notices).toEqual([{ path: 'locked', reason: 'folder not readable: EACCES' }]);
    expect(out.index.added).toBe(2);

    const [search, status, get] = await Promise.all([
      runTrove(['search', 'otters OR beavers', '--syntax', 'boolean', '--json'], opts),
      runTrove(['status', '--json'], opts),
      runTrove(['get', 'private.md'], opts),
    ]);
    expect(oneJson<{ results: { path: string }[] }>(search).results.map((h) => h.path).sort()).toEqual(['good.md', 'open/also-good.md']);
    const s = oneJson<{ totals: { documents: number; failed: number }; collections: { problems: unknown[] }[] }>(status);
    expect(s.totals).toMatchObject({ documents: 2, failed: 1 });
    expect(s.collections[0]!.problems).toEqual([{ path: 'private.md', status: 'failed', reason: 'permission denied' }]);
    expect(get.code).toBe(1);
    expect(get.stderr).toMatch(/not indexed: permission denied/);
  });

  it('an unreadable collection root is a clear error (exit 1)', async () => {
    const r = await runTrove(['collection', 'add', lockedRoot, '--name', 'locked', '--json'], opts);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toEqual({ code: 'IO', message: expect.stringMatching(/cannot be read \(EACCES\)/) });
  });
});
