// Temp folders for tests: real files on disk, removed when the test file is done.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

/** A fresh folder under the OS temp dir. `worldAccessible` lets another user (nobody) read and write it. */
export function tempDir(prefix = 'trove-test-', worldAccessible = false): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (worldAccessible) fs.chmodSync(dir, 0o777);
  made.push(dir);
  return dir;
}

/** Writes files (relative path → text or bytes) under root, creating folders as needed. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, ...rel.split('/'));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
}

/** Sets a file's mtime to a fixed moment (so date filters and change detection are deterministic). */
export function setMtime(file: string, when: Date): void {
  fs.utimesSync(file, when, when);
}

export function removeTempDirs(): void {
  while (made.length) {
    const dir = made.pop()!;
    // chmod'ed-away folders must be given back before they can be removed
    try {
      fs.chmodSync(dir, 0o700);
    } catch {
      /* already gone */
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
