// Files at rest: the profile folder is 0700 and the index, its WAL and shm, the settings, the host
// token and the runtime file are 0600 — created so, and tightened when an older profile (made
// world-readable) is opened — so on a shared machine no other local user can read the documents.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { startHost } from '../../src-main/host/host.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

afterAll(removeTempDirs);

const mode = (p: string) => fs.statSync(p).mode & 0o777;

async function useProfile(profileDir: string): Promise<void> {
  const docs = tempDir('trove-rest-docs-');
  writeTree(docs, { 'a.md': '# Private\n\nSalary review notes.\n' });
  const engine = await Engine.open({ profileDir });
  try {
    if (!(await engine.listCollections()).length) await engine.addCollection({ root: docs, name: 'notes' });
    await engine.index();
    engine.settings.update({ maxFileBytes: 2_000_000 });
    const host = await startHost({ engine, port: 0 });
    expect(fs.existsSync(path.join(profileDir, 'runtime.json'))).toBe(true);
    // checked while the host runs: the WAL and shm files exist only while the database is open
    for (const f of ['index.sqlite', 'index.sqlite-wal', 'index.sqlite-shm', 'settings.json', 'host-token', 'runtime.json']) {
      expect([f, mode(path.join(profileDir, f))]).toEqual([f, 0o600]);
    }
    expect(mode(profileDir)).toBe(0o700);
    await host.close();
  } finally {
    await engine.close();
  }
}

describe('files at rest (POSIX modes)', () => {
  it('creates the profile folder 0700 and its files 0600, whatever the umask', async () => {
    const old = process.umask(0o000); // the most permissive umask a user could have
    try {
      await useProfile(path.join(tempDir('trove-rest-'), 'profile'));
    } finally {
      process.umask(old);
    }
  });

  it('tightens a profile an older version left world-readable', async () => {
    const profileDir = path.join(tempDir('trove-rest-old-'), 'profile');
    const engine = await Engine.open({ profileDir });
    engine.settings.update({ port: 9123 });
    await engine.close();
    fs.chmodSync(profileDir, 0o755);
    for (const f of ['index.sqlite', 'settings.json']) fs.chmodSync(path.join(profileDir, f), 0o644);
    fs.writeFileSync(path.join(profileDir, 'host-token'), 'trove_an-old-token-written-world-readable\n', { mode: 0o644 });
    fs.chmodSync(path.join(profileDir, 'host-token'), 0o644);
    await useProfile(profileDir);
  });
});
