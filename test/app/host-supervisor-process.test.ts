// The supervisor driving a real child process running the real app API on a real engine:
// the child is killed mid-life and comes back, with the index intact.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HostSupervisor, type HostProcess } from '../../src-main/app/host-supervisor.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-sup-'));
const notes = path.join(tmp, 'notes');
fs.mkdirSync(notes);
fs.writeFileSync(path.join(notes, 'retries.md'), '# Retries\n\nExponential backoff with jitter keeps a crashing worker from hammering the queue.\n');

const children: ReturnType<typeof fork>[] = [];
function launch(): HostProcess {
  const child = fork(path.join(import.meta.dirname, 'fixtures/forked-host.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, TROVE_HOME: path.join(tmp, 'profile') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  return {
    postMessage: (m) => child.send(m),
    onMessage: (l) => child.on('message', l),
    onExit: (l) => child.once('exit', (code, signal) => l(code ?? (signal ? 128 : 1))),
    kill: () => void child.kill('SIGKILL'),
  };
}

const sup = new HostSupervisor({ launch, initialBackoffMs: 50, stopTimeoutMs: 5000, log: () => undefined });

afterAll(async () => {
  await sup.stop();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

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
