// The memory policy a host process applies (src-main/host/memory-policy.ts): its JavaScript heap
// stays near what it holds, and glibc's arenas are capped and their free pages given back where the
// addon was built.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CHILD = path.join(import.meta.dirname, 'fixtures', 'heap-churn.ts');
const ADDON = path.join(ROOT, 'native', 'build', 'trove_memory.node');

interface ChildReport {
  peakOldSpaceMb: number;
  liveArrays: number;
  policy: { heapGrowingPercent: number; mallocTuned: boolean } | null;
}

function churn(mode: 'lean' | 'default'): ChildReport {
  const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, mode], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildReport;
}

describe('host memory policy', () => {
  it('keeps the old generation near its live size under a churn of short-lived objects', () => {
    const lean = churn('lean');
    const plain = churn('default');
    expect(lean.policy?.heapGrowingPercent).toBe(30);
    expect(plain.policy).toBeNull();
    // the same ~80 MB live in both; V8's default lets the old generation reach 2-4x of it
    expect(lean.peakOldSpaceMb).toBeLessThan(plain.peakOldSpaceMb * 0.7);
  });

  it.runIf(process.platform === 'linux' && fs.existsSync(ADDON))('tunes glibc malloc with the built addon, and refuses bad settings', () => {
    expect(churn('lean').policy?.mallocTuned).toBe(true);
    const addon = createRequire(import.meta.url)(ADDON) as { tuneMalloc(...args: unknown[]): boolean };
    expect(() => addon.tuneMalloc(0, 1 << 20)).toThrow(/at least 1 arena/);
    expect(() => addon.tuneMalloc(2, 100)).toThrow(/at least 4096 bytes/);
    expect(() => addon.tuneMalloc('two', 1 << 20)).toThrow(TypeError);
    expect(() => addon.tuneMalloc(2)).toThrow(TypeError);
  });

  it.runIf(process.platform === 'linux' && fs.existsSync(ADDON))('gives the pages freed between live blocks back to the system', () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'malloc-fragments.ts'), ADDON], { cwd: ROOT, encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { before: number; after: number; trimmed: boolean; kept: number };
    // ~200 MB of 2 KiB blocks, one in eight kept (~25 MB): glibc kept the freed pages until trimmed
    expect(r.kept).toBe(12_500);
    expect(r.trimmed).toBe(true);
    expect(r.before - r.after).toBeGreaterThan(100);
  });
});
