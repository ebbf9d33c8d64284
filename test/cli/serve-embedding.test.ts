// `trove serve` embeds in the background by default and `--no-embed` turns it off; `trove status`
// reads the running host's live report (how much is embedded, what the stage is doing); `trove
// search --color` marks the engine's highlight spans. Real child processes on temp profiles, the
// real model. The host on either backend (`trove serve --database` on PostgreSQL; `trove status`
// on its profile reads that host's live report too); the colours on SQLite (the CLI's own).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { ensureBuilt, oneJson, REPO, runTrove, type CliResult } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from '../embed/models-dir.js';

const servers: ChildProcess[] = [];
const env = { TROVE_MODELS_DIR: modelsDir };

beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  await Promise.all(servers.map(stop));
  removeTempDirs();
});

function ok(r: CliResult): CliResult {
  expect(r.code, `exit ${r.code}; stderr: ${r.stderr}`).toBe(0);
  return r;
}

/** A profile whose collection of two notes is indexed (into `database` when given), not embedded. */
async function profileWithNotes(database?: string): Promise<string> {
  const home = tempDir('trove-serve-home-');
  const notes = tempDir('trove-serve-notes-');
  writeTree(notes, {
    'ps.md': '# Processes\n\nThe running processes of the computer, then their modules.\n',
    'retry.md': '# Retry policy\n\nRetry failed requests with exponential backoff.\n',
  });
  ok(await runTrove(['collection', 'add', notes, '--name', 'notes', '--json', ...(database ? ['--database', database] : [])], { home, env }));
  return home;
}

/** `trove serve` on the profile; resolves once it serves (it prints its address on stdout). */
async function serve(home: string, ...args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/trove.js'), 'serve', '--port', '0', '--json', ...args], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('"mcpUrl"') && resolve());
    child.once('exit', (code) => reject(new Error(`trove serve exited with ${code}: ${err}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function statusUntil(home: string, pred: (s: StatusReport) => boolean): Promise<StatusReport> {
  let last: StatusReport | null = null;
  for (let i = 0; i < 300; i++) {
    last = oneJson<StatusReport>(ok(await runTrove(['status', '--json'], { home, env })));
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`status never matched: ${JSON.stringify(last?.embeddings)}`);
}

describeBackends('trove serve and background embedding', (b) => {
  /** The index a test's host serves: a database of its own on PostgreSQL, the profile's file on SQLite. */
  const index = async (): Promise<string[]> => (b.name === 'postgres' ? ['--database', await freshDatabase('serve_embed', { migrated: true })] : []);

  it('embeds by default, and trove status shows the host\'s live report', async () => {
    const where = await index();
    const home = await profileWithNotes(where[1]);
    const server = await serve(home, ...where);
    const s = await statusUntil(home, (st) => st.embeddings.coverage.percent === 100);
    expect(s.embeddings.background).toEqual({ enabled: true, source: 'default', state: 'idle' });
    expect(s.embeddings.coverage).toMatchObject({ embedded: 2, chunks: 2 });
    expect(s.database.path).toBe(where[1] ?? path.join(home, 'index.sqlite')); // the index that host serves
    const human = ok(await runTrove(['status'], { home, env })).stdout;
    expect(human).toMatch(new RegExp(`^Live from the running host \\(pid ${server.pid}\\)`));
    expect(human).toMatch(/^Embeddings: 2 of 2 chunks embedded \(100%\); background embedding has nothing left to do$/m);
    expect(human).toMatch(/^ {2}embeddings: 2 of 2 chunks embedded \(100%\), all-MiniLM-L6-v2$/m);
    await stop(server);
    // no host: the index as it is on disk, and this process does not embed
    const offline = ok(await runTrove(['status'], { home, env })).stdout;
    expect(offline).toMatch(/^No host is running for this profile/);
  });

  it('--no-embed leaves the vectors to `trove embed`, and says so', async () => {
    const where = await index();
    const home = await profileWithNotes(where[1]);
    const server = await serve(home, '--no-embed', ...where);
    const s = oneJson<StatusReport>(ok(await runTrove(['status', '--json'], { home, env })));
    expect(s.embeddings.background).toEqual({ enabled: false, source: 'option', state: 'off' });
    expect(s).toMatchObject({ needsEmbedding: 2, hasVectorIndex: false });
    await stop(server);
  });
});

describe('trove search --color', () => {
  it('marks the engine\'s spans: the searched words, whole words, not the stop words', async () => {
    const home = await profileWithNotes();
    const colored = ok(await runTrove(['search', 'how', 'do', 'I', 'get', 'the', 'running', 'processes', '--color', 'always'], { home, env })).stdout;
    const marks = [...colored.matchAll(/\x1b\[1;33m(.*?)\x1b\[0m/g)].map((m) => m[1]);
    expect(marks).toEqual(['Processes', 'running', 'processes']);
    expect(colored).toContain('the computer, then their modules');
    const plain = ok(await runTrove(['search', 'running', 'processes'], { home, env })).stdout; // not a terminal: no colour
    expect(plain).not.toContain('\x1b[');
  });
});
