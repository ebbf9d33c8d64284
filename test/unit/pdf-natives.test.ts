// pdf.js's legacy build brings core-js, whose polyfills replace some of the runtime's own
// functions for the whole thread (parsers/keep-natives.ts). After the parsers load it, a parse
// worker keeps V8's push and JSON, and pdf.js keeps what it added.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepingNatives } from '../../src-main/engine/ingest/parsers/keep-natives.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CHILD = path.join(import.meta.dirname, 'fixtures', 'pdf-natives.ts');

describe('loading pdf.js', () => {
  it('leaves Array.prototype.push, JSON and Function.prototype.toString as the runtime made them, and still reads a PDF', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD], { cwd: ROOT, encoding: 'utf8' });
    const report = JSON.parse(out.trim().split('\n').pop()!) as { text: string; kept: Record<string, boolean>; withResolvers: boolean };
    expect(report.text).toContain('Harbour lantern keeper');
    expect(report.kept).toEqual({ push: true, stringify: true, parse: true, toString: true });
    // what the runtime lacks (Node 20) pdf.js adds, and keeps
    expect(report.withResolvers).toBe(true);
  });
});

describe('keepingNatives', () => {
  it('puts back a replaced function and keeps an added one, also when the load fails', async () => {
    const ownSlice = Array.prototype.slice;
    const added = Symbol('added');
    const load = async (fail: boolean) => {
      Array.prototype.slice = function slowSlice() { return []; };
      (Array.prototype as unknown as Record<symbol, unknown>)[added] = () => 1;
      if (fail) throw new Error('import failed');
      return 'loaded';
    };
    try {
      await expect(keepingNatives(() => load(false))).resolves.toBe('loaded');
      expect(Array.prototype.slice).toBe(ownSlice);
      expect(typeof (Array.prototype as unknown as Record<symbol, unknown>)[added]).toBe('function');
      await expect(keepingNatives(() => load(true))).rejects.toThrow('import failed');
      expect(Array.prototype.slice).toBe(ownSlice);
    } finally {
      Array.prototype.slice = ownSlice;
      delete (Array.prototype as unknown as Record<symbol, unknown>)[added];
    }
  });
});
