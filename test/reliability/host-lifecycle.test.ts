// The host's lifecycle as a user meets it: a host that `trove mcp` started for a client stops by
// itself once no client has used it for TROVE_IDLE_EXIT_MINUTES (here about a second), while a
// `trove serve` under the same setting stays; and any host whose profile folder is deleted shuts
// down cleanly (exit code 0, runtime file gone) instead of serving an index nobody can find.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive, readRuntimeFile } from '../../src-main/host/runtime-file.js';
import { ensureBuilt } from '../helpers/cli.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/trove.js');
const IDLE = { TROVE_IDLE_EXIT_MINUTES: '0.02' }; // 1.2 s
const children: ChildProcess[] = [];

beforeAll(() => ensureBuilt());
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  removeTempDirs();
});

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function profileWithNotes(): string {
  const root = tempDir('trove-life-');
  writeTree(path.join(root, 'notes'), { 'a.md': '# Lighthouse\n\nThe keeper logs the wind.\n' });
  return path.join(root, 'profile');
}

function serve(profileDir: string): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', TROVE_HOME: profileDir, ...IDLE },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return { child, exited: new Promise((r) => child.once('exit', (code) => r(code))), stderr: () => err };
}

describe('host lifecycle', () => {
  it('a host started by `trove mcp` stops once idle; `trove serve` under the same setting stays', async () => {
    const shimProfile = profileWithNotes();
    const served = serve(profileWithNotes());
    await until('trove serve to start', () => served.stderr().includes('serving MCP'));

    const client = new Client({ name: 'lifecycle', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: { PATH: process.env.PATH ?? '', TROVE_HOME: shimProfile, TROVE_PORT: '0', ...IDLE } }));
    const info = readRuntimeFile(shimProfile)!;
    expect(processAlive(info.pid)).toBe(true);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search');
    await client.close(); // the client exits; its host is left with no one

    await until('the shim-started host to exit', () => !processAlive(info.pid));
    expect(readRuntimeFile(shimProfile)).toBeNull(); // it cleaned up after itself
    expect(fs.readFileSync(path.join(shimProfile, 'host.log'), 'utf8')).toMatch(/shutting down: no clients and no indexing work/);
    // the person's own host has been idle at least as long, and is still there
    expect(served.child.exitCode).toBeNull();
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('a host whose profile folder is deleted shuts down cleanly', async () => {
    const profileDir = profileWithNotes();
    const served = serve(profileDir);
    await until('trove serve to start', () => served.stderr().includes('serving MCP'));
    fs.rmSync(profileDir, { recursive: true, force: true });
    expect(await served.exited).toBe(0);
    expect(served.stderr()).toMatch(/shutting down: its profile folder .* is gone/);
    expect(fs.existsSync(profileDir)).toBe(false); // nothing re-created it on the way out
  });
});
