// Shared set-up for the MCP tests: a temp profile with two small collections, indexed by the real
// engine (on the profile's SQLite file, or on a backend of describeBackends), and an in-process
// host on a free port. Everything lives in a temp dir and is removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../../src-main/engine/index.js';
import { startHost, type Host, type HostOptions } from '../../src-main/host/host.js';
import type { TestBackend } from '../helpers/backends.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TROVE_BIN = path.join(REPO, 'bin', 'trove.js');

export interface Fixture {
  dir: string;
  profileDir: string;
  engine: Engine;
  cleanup(): Promise<void>;
}

/** notes: retries.md, guide/intro.md, big.md (over 10 KB); secret: plans.md. On `backend`'s index when given. */
export async function makeFixture(backend?: TestBackend): Promise<Fixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-mcp-'));
  const notes = path.join(dir, 'notes');
  const secret = path.join(dir, 'secret');
  fs.mkdirSync(path.join(notes, 'guide'), { recursive: true });
  fs.mkdirSync(secret);
  fs.writeFileSync(path.join(notes, 'retries.md'), '# Retry policy\n\nWe retry HTTP calls with exponential backoff.\nJitter avoids thundering herds.\n');
  fs.writeFileSync(path.join(notes, 'guide', 'intro.md'), '# Intro\n\nWelcome to the guide. Backoff is explained in retries.\n');
  fs.writeFileSync(path.join(notes, 'big.md'), `# Big\n\n${'A long line about backoff and other things.\n'.repeat(400)}`);
  fs.writeFileSync(path.join(secret, 'plans.md'), '# Merger plans\n\nThe acquisition closes in spring. Backoff negotiations.\n');
  const profileDir = path.join(dir, 'profile');
  const engine = backend ? await backend.open({ profileDir }) : await Engine.open({ profileDir });
  await engine.addCollection({ root: notes, name: 'notes', context: 'Engineering notes' });
  await engine.addCollection({ root: secret, name: 'secret' });
  await engine.index();
  return {
    dir,
    profileDir,
    engine,
    async cleanup() {
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startTestHost(f: Fixture, opts: Partial<HostOptions> = {}): Promise<Host> {
  return startHost({ engine: f.engine, port: 0, writeRuntimeFile: false, token: 'test-runtime-token-0123456789', ...opts });
}

/** Text of the first content block of a tool result. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}
