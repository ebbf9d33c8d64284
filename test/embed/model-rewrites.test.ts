// The load-time rewrites (model-rewrites.ts): the softmax NaN guards an SDPA export adds are taken
// out with outputs bit-identical and nothing else touched (nan-guards.ts), and a pool's prepared
// copy is written once, reused, replaces older copies and leaves the original alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { preparedModelFile, rewriteModel } from '../../src-main/engine/embed/model-rewrites.js';
import { dropNanGuards } from '../../src-main/engine/embed/nan-guards.js';
import { fields, text, topLevel } from '../../src-main/engine/embed/onnx-proto.js';
import { modelsDir } from './models-dir.js';

const key = (no: number, wire: number) => (no << 3) | wire;
const FLOAT = 1;

/**
 * X [2, 5] float in; P = Softmax(X) guarded as the PyTorch export does (Where(IsNaN(P), 0, P)),
 * then MatMul by a weight so the guard's output has a reader; optionally an unguarded Where of the
 * same shape (over X, not a softmax) that must stay, and the guard's output also a graph output.
 */
function guardedModel(opts: { otherWhere?: boolean; guardIsOutput?: boolean } = {}): Uint8Array {
  const w = protobuf.Writer.create();
  const valueInfo = (field: number, name: string, dims: number[]) => {
    w.uint32(key(field, 2)).fork().uint32(key(1, 2)).string(name);
    w.uint32(key(2, 2)).fork().uint32(key(1, 2)).fork().uint32(key(1, 0)).uint32(FLOAT).uint32(key(2, 2)).fork();
    for (const d of dims) w.uint32(key(1, 2)).fork().uint32(key(1, 0)).uint32(d).ldelim();
    w.ldelim().ldelim().ldelim().ldelim();
  };
  const node = (op: string, inputs: string[], output: string, constant?: number) => {
    w.uint32(key(1, 2)).fork();
    for (const i of inputs) w.uint32(key(1, 2)).string(i);
    w.uint32(key(2, 2)).string(output).uint32(key(3, 2)).string(`${op}_${output}`).uint32(key(4, 2)).string(op);
    if (constant !== undefined) {
      const value = new Uint8Array(new Float32Array([constant]).buffer);
      w.uint32(key(5, 2)).fork().uint32(key(1, 2)).string('value').uint32(key(20, 0)).uint32(4);
      w.uint32(key(5, 2)).fork().uint32(key(2, 0)).uint32(FLOAT).uint32(key(9, 2)).bytes(value).ldelim().ldelim();
    }
    w.ldelim();
  };
  w.uint32(key(1, 0)).uint32(8).uint32(key(8, 2)).fork().uint32(key(2, 0)).uint32(17).ldelim();
  w.uint32(key(7, 2)).fork();
  node('Constant', [], 'ZERO', 0);
  node('Softmax', ['X'], 'P');
  node('IsNaN', ['P'], 'P_NAN');
  node('Where', ['P_NAN', 'ZERO', 'P'], 'P_SAFE');
  node('MatMul', ['P_SAFE', 'W'], 'Y');
  if (opts.otherWhere) {
    node('IsNaN', ['X'], 'X_NAN');
    node('Where', ['X_NAN', 'ZERO', 'X'], 'X_SAFE');
  }
  const weights = Float32Array.from({ length: 5 * 3 }, (_, i) => Math.sin(i + 1) * 3);
  w.uint32(key(5, 2)).fork().uint32(key(1, 0)).uint32(5).uint32(key(1, 0)).uint32(3).uint32(key(2, 0)).uint32(FLOAT).uint32(key(8, 2)).string('W').uint32(key(9, 2)).bytes(new Uint8Array(weights.buffer)).ldelim();
  valueInfo(11, 'X', [2, 5]);
  valueInfo(12, 'Y', [2, 3]);
  if (opts.otherWhere) valueInfo(12, 'X_SAFE', [2, 5]);
  if (opts.guardIsOutput) valueInfo(12, 'P_SAFE', [2, 5]);
  w.ldelim();
  return w.finish();
}

function opTypes(model: Uint8Array): string[] {
  const { graph } = topLevel(model);
  return [...fields(model, graph!.start, graph!.end)].filter((f) => f.no === 1).map((n) => text(model, [...fields(model, n.start, n.end)].find((f) => f.no === 4)!));
}

const input = Float32Array.from({ length: 10 }, (_, i) => Math.cos(i * 1.7) * 40); // large logits: some softmax outputs underflow towards 0

async function outputs(model: Uint8Array): Promise<Record<string, number[]>> {
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const res = await session.run({ X: new ort.Tensor('float32', input, [2, 5]) });
  await session.release();
  return Object.fromEntries(Object.entries(res).map(([k, t]) => [k, Array.from(t.data as Float32Array)]));
}

describe('dropNanGuards', () => {
  it('takes out Where(IsNaN(softmax), 0, softmax) and its fill constant; the outputs are bit-identical', async () => {
    const model = guardedModel();
    const dropped = dropNanGuards(model);
    expect(dropped?.removed).toBe(1);
    expect(opTypes(dropped!.bytes)).toEqual(['Softmax', 'MatMul']);
    const want = await outputs(model);
    expect(await outputs(dropped!.bytes)).toEqual(want);
    expect(want.Y!.some((v) => v !== 0)).toBe(true);
  });

  it('leaves a Where over anything but a softmax, a constant another node still reads, and a guard the graph outputs', async () => {
    const model = guardedModel({ otherWhere: true });
    const dropped = dropNanGuards(model);
    expect(dropped?.removed).toBe(1);
    expect(opTypes(dropped!.bytes)).toEqual(['Constant', 'Softmax', 'MatMul', 'IsNaN', 'Where']);
    expect(await outputs(dropped!.bytes)).toEqual(await outputs(model));
    expect(dropNanGuards(guardedModel({ guardIsOutput: true }))).toBeNull();
  });

  it('finds nothing in files without guards, or in bytes that are not a model', () => {
    // the catalogue's public all-MiniLM-L6-v2 was exported without SDPA: no guards
    expect(dropNanGuards(fs.readFileSync(path.join(modelsDir, 'all-MiniLM-L6-v2', 'onnx/model_quantized.onnx')))).toBeNull();
    expect(dropNanGuards(fs.readFileSync(path.join(modelsDir, 'test-tiny-embedder/onnx/model.onnx')))).toBeNull();
    expect(dropNanGuards(Buffer.from('not an onnx file'))).toBeNull();
  });
});

describe('preparedModelFile', () => {
  it('writes the rewritten copy once for workers to load by path, replaces older copies, and leaves the original alone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-rewrites-'));
    try {
      const bytes = guardedModel();
      const original = path.join(dir, 'model.onnx');
      fs.writeFileSync(original, bytes);
      const cache = path.join(dir, 'cache');
      fs.mkdirSync(cache);
      fs.writeFileSync(path.join(cache, 'abc123.onnx'), 'a copy an older Trove made');
      const opts = { quantized: false, signedWeights: true };
      const { file, unmasked } = await preparedModelFile(original, 'abc123', cache, opts);
      expect(path.dirname(file)).toBe(cache);
      expect(unmasked).toBeNull(); // no attention_mask input: nothing to take out
      expect(fs.readdirSync(cache).sort()).toEqual([path.basename(file), path.basename(file).replace(/\.onnx$/, '.unmasked.none')]);
      expect(Buffer.compare(fs.readFileSync(original), bytes)).toBe(0);
      expect(opTypes(fs.readFileSync(file))).toEqual(['Softmax', 'MatMul']);
      expect(await outputs(fs.readFileSync(file))).toEqual(await outputs(bytes));
      const written = fs.statSync(file).mtimeMs;
      expect(await preparedModelFile(original, 'abc123', cache, opts)).toEqual({ file, unmasked: null });
      expect(fs.statSync(file).mtimeMs).toBe(written);
      // nothing to rewrite, no mask: the original path, nothing written
      const plain = path.join(dir, 'plain.onnx');
      fs.writeFileSync(plain, guardedModel({ guardIsOutput: true }));
      expect(await preparedModelFile(plain, 'def456', cache, opts)).toEqual({ file: plain, unmasked: null });
      expect(await rewriteModel(fs.readFileSync(plain), opts)).toBeNull();
      expect(fs.readdirSync(cache)).toHaveLength(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
