// The supervisor driving a real child process running the real app API on a real engine:
// the child is killed mid-life and comes back, with the index intact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { supervisedHost, until } from '../helpers/supervised-host.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-sup-'));
const notes = path.join(tmp, 'notes');
fs.mkdirSync(notes);
fs.writeFileSync(path.join(notes, 'retries.md'), '# Retries\n\nExponential backoff with jitter keeps a crashing worker from hammering the queue.\n');

const host = supervisedHost(path.join(import.meta.dirname, 'fixtures/forked-host.ts'), {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, TROVE_HOME: path.join(tmp, 'profile') },
});
const { sup, children } = host;

afterAll(async () => {
  await host.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('HostSupervisor with a real child process', () => {
  it('relays calls, survives the host being killed, and keeps the index', async () => {
    sup.start();
    const added = await sup.call('collections.add', { root: notes, name: 'notes' });
    expect(added).toMatchObject({ ok: true, result: { name: 'notes' } });
    await until(async () => {
      const r = await sup.call('collections.list', {});
      return r.ok && (r.result as { documents: number }[])[0]?.documents === 1;
    }, 'the first index run');

    const first = children[0]!;
    first.kill('SIGKILL');
    await until(() => sup.status().state === 'restarting' || children.length > 1, 'the crash to be noticed');
    await until(() => sup.status().state === 'ready' && children.length === 2, 'the restarted host');
    expect(sup.status().restarts).toBe(1);

    const found = await sup.call('search', { query: 'backoff jitter' });
    expect(found.ok).toBe(true);
    expect((found as { result: { results: { path: string }[] } }).result.results.map((r) => r.path)).toEqual(['retries.md']);
  });

  it('answers a bad call with the engine’s clear error, not a crash', async () => {
    const r = await sup.call('collections.add', { root: path.join(tmp, 'missing') });
    expect(r).toMatchObject({ ok: false, error: { code: 'IO', message: expect.stringContaining('does not exist') } });
    expect(sup.status().state).toBe('ready');
  });

  it('stops the host cleanly', async () => {
    const last = children.at(-1)!;
    await sup.stop();
    expect(last.exitCode).toBe(0);
    expect(sup.status().state).toBe('stopped');
  });
});
