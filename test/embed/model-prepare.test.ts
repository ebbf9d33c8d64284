// A pool's rewritten model files are made in a thread of their own (embed/model-prepare.ts): the
// thread that starts the pool — a host's engine thread, serving calls — never loads ONNX Runtime
// nor spends the rewrite's CPU. Each pool start runs in a child process, whose own thread is then
// looked at; and a cache folder that cannot be written fails the preparation with the reason while
// the pool still starts (its workers rewrite in memory).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareModelFiles } from '../../src-main/engine/embed/model-prepare.js';
import { threadNiceness } from '../helpers/threads.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

afterAll(() => removeTempDirs());

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CHILD = path.join(import.meta.dirname, 'fixtures/pool-start.ts');

function startPool(cacheDir: string): { ortHere: boolean; made: string[]; sha256: string; length: number } {
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', CHILD, modelsDir, cacheDir], { cwd: ROOT, encoding: 'utf8' }));
}

describe('a model pool\'s preparation', () => {
  it('makes the rewritten files in another thread: the starting thread never loads ONNX Runtime, and the pool embeds', () => {
    const cacheDir = path.join(tempDir('trove-prepare-'), 'signed');
    const first = startPool(cacheDir);
    expect(first.ortHere).toBe(false);
    expect(first.length).toBe(384);
    expect(first.made.some((f) => f.startsWith(`${first.sha256}.r`) && f.endsWith('.onnx'))).toBe(true);
    // made once: a second start finds them and writes nothing
    const mtimes = first.made.map((f) => fs.statSync(path.join(cacheDir, f)).mtimeMs);
    const again = startPool(cacheDir);
    expect(again.ortHere).toBe(false);
    expect(again.made).toEqual(first.made);
    expect(again.made.map((f) => fs.statSync(path.join(cacheDir, f)).mtimeMs)).toEqual(mtimes);
  });

  it.runIf(process.platform === 'linux')('runs niced, as background work: a burst of calls meeting a fresh profile keeps both cores', async () => {
    const model = path.join(modelsDir, 'all-MiniLM-L6-v2');
    const weights = fs.readdirSync(path.join(model, 'onnx')).map((f) => path.join(model, 'onnx', f)).find((f) => f.endsWith('.onnx'))!;
    const own = threadNiceness();
    const base = own.get(process.pid)!;
    let settled = false;
    const prepared = prepareModelFiles({ file: weights, sha256: 'feed03', cacheDir: path.join(tempDir('trove-prepare-'), 'signed'), rewrites: { quantized: true, signedWeights: true }, nice: 7 })
      .finally(() => (settled = true));
    const seen = new Set<number>();
    // the thread lowers its priority first thing, then reads, rewrites and probes the model for a good while
    while (!settled) {
      for (const [tid, nice] of threadNiceness()) if (!own.has(tid)) seen.add(nice);
      await new Promise((r) => setImmediate(r));
    }
    await prepared;
    expect(seen).toContain(Math.min(19, base + 7));
  });

  it('fails with the reason when the cache folder cannot be written; the pool starts all the same', async () => {
    const blocker = path.join(tempDir('trove-prepare-'), 'a-file');
    fs.writeFileSync(blocker, 'not a folder');
    const cacheDir = path.join(blocker, 'signed');
    const model = path.join(modelsDir, 'all-MiniLM-L6-v2');
    const weights = fs.readdirSync(path.join(model, 'onnx')).map((f) => path.join(model, 'onnx', f)).find((f) => f.endsWith('.onnx'))!;
    await expect(prepareModelFiles({ file: weights, sha256: 'feed02', cacheDir, rewrites: { quantized: true, signedWeights: true }, nice: 0 })).rejects.toThrow(/ENOTDIR|not a directory/i);
    const started = startPool(cacheDir);
    expect(started.length).toBe(384);
    expect(started.made).toEqual([]);
    expect(started.ortHere).toBe(false);
  });
});
