// No network at run time: the engine reads a page in a process that has no network at all (a new
// network namespace: not even loopback is up), with an empty download cache. Tesseract's
// WebAssembly and English come from node_modules; if anything tried a CDN, the page would fail.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { LETTER_TEXT } from './helpers.js';

afterAll(() => removeTempDirs());

const sandbox = spawnSync('unshare', ['-n', 'true']).status === 0 ? ['-n'] : spawnSync('unshare', ['-rn', 'true']).status === 0 ? ['-rn'] : null;

describe('offline', () => {
  it.skipIf(!sandbox)('recognises a page in a process without any network', () => {
    const child = path.join(import.meta.dirname, 'offline-child.ts');
    const run = spawnSync('unshare', [...sandbox!, process.execPath, '--import', 'tsx', child, tempDir('trove-ocr-empty-cache-')], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).not.toMatch(/Error/);
    const out = JSON.parse(run.stdout) as { reachable: boolean; text: string; failed: unknown[] };
    expect(out.reachable).toBe(false); // the sandbox really has no network
    expect(out.failed).toEqual([]);
    expect(out.text).toBe(LETTER_TEXT);
  });
});
