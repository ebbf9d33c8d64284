// Signed int8 weights (signed-weights.ts): the rewrite must give bit-identical outputs, leave the
// file's bytes alone, skip tensors used elsewhere, and the kernel probe must be able to see the
// saturation that makes the rewrite unsafe on CPUs without VNNI.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../../src-main/engine/config.js';
import { modelSource } from '../../src-main/engine/embed/model-rewrites.js';
import { exactProduct, matMulIntegerModel, probeOperands, probeSignedKernel, shiftWeightsToSigned } from '../../src-main/engine/embed/signed-weights.js';
import { modelsDir } from './models-dir.js';

const miniLmFile = path.join(modelsDir, 'all-MiniLM-L6-v2', 'onnx/model_quantized.onnx');
const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, graphOptimizationLevel: 'all' };

describe('shiftWeightsToSigned on the real models', () => {
  it("leaves all-MiniLM-L6-v2's public int8 file alone: its MatMulInteger weights are int8 already, the fast kernel's", () => {
    const bytes = fs.readFileSync(miniLmFile);
    const before = crypto.hash('sha256', bytes);
    expect(shiftWeightsToSigned(bytes)).toBeNull();
    expect(crypto.hash('sha256', bytes)).toBe(before);
  });

  it('leaves files with nothing to shift as they are', () => {
    // the tiny models the tests build are fp32, with no MatMulInteger at all
    expect(shiftWeightsToSigned(fs.readFileSync(path.join(modelsDir, 'test-tiny-embedder/onnx/model.onnx')))).toBeNull();
    expect(shiftWeightsToSigned(fs.readFileSync(path.join(modelsDir, 'test-tiny-cross-encoder/onnx/model.onnx')))).toBeNull();
    expect(shiftWeightsToSigned(Buffer.from('not an onnx file'))).toBeNull();
  });
});

// A hand-built graph: Y = MatMulInteger(A, W, a_zp, W_zp) with uint8 W and W_zp (zero points in
// int32_data, as the MiniLM converter wrote them), plus optionally a second node that reads W.
function model(opts: { shareWeight: boolean; rawZeroPoints?: boolean }): { bytes: Uint8Array; a: Uint8Array } {
  const [m, k, n] = [3, 8, 4];
  const w = protobuf.Writer.create();
  const key = (no: number, wire: number) => (no << 3) | wire;
  const valueInfo = (field: number, name: string, elemType: number, dims: number[]) => {
    w.uint32(key(field, 2)).fork().uint32(key(1, 2)).string(name);
    w.uint32(key(2, 2)).fork().uint32(key(1, 2)).fork().uint32(key(1, 0)).uint32(elemType).uint32(key(2, 2)).fork();
    for (const d of dims) w.uint32(key(1, 2)).fork().uint32(key(1, 0)).uint32(d).ldelim();
    w.ldelim().ldelim().ldelim().ldelim();
  };
  const node = (op: string, inputs: string[], output: string) => {
    w.uint32(key(1, 2)).fork();
    for (const i of inputs) w.uint32(key(1, 2)).string(i);
    w.uint32(key(2, 2)).string(output).uint32(key(4, 2)).string(op).ldelim();
  };
  w.uint32(key(1, 0)).uint32(8).uint32(key(8, 2)).fork().uint32(key(2, 0)).uint32(17).ldelim();
  w.uint32(key(7, 2)).fork();
  node('MatMulInteger', ['A', 'W', 'AZP', 'WZP'], 'Y');
  if (opts.shareWeight) node('Identity', ['W'], 'W_OUT');
  const weights = Uint8Array.from({ length: k * n }, (_, i) => (i * 37 + 11) % 256);
  w.uint32(key(5, 2)).fork().uint32(key(1, 0)).uint32(k).uint32(key(1, 0)).uint32(n).uint32(key(2, 0)).uint32(2).uint32(key(8, 2)).string('W').uint32(key(9, 2)).bytes(weights).ldelim();
  if (opts.rawZeroPoints) {
    w.uint32(key(5, 2)).fork().uint32(key(1, 0)).uint32(n).uint32(key(2, 0)).uint32(2).uint32(key(8, 2)).string('WZP').uint32(key(9, 2)).bytes(Uint8Array.of(0, 127, 128, 255)).ldelim();
  } else {
    w.uint32(key(5, 2)).fork().uint32(key(1, 0)).uint32(n).uint32(key(2, 0)).uint32(2).uint32(key(5, 2)).fork();
    for (const zp of [0, 127, 128, 255]) w.int32(zp);
    w.ldelim().uint32(key(8, 2)).string('WZP').ldelim();
  }
  w.uint32(key(5, 2)).fork().uint32(key(2, 0)).uint32(2).uint32(key(8, 2)).string('AZP').uint32(key(9, 2)).bytes(Uint8Array.of(100)).ldelim();
  valueInfo(11, 'A', 2, [m, k]);
  valueInfo(12, 'Y', 6, [m, n]);
  if (opts.shareWeight) valueInfo(12, 'W_OUT', 2, [k, n]);
  w.ldelim();
  return { bytes: w.finish(), a: Uint8Array.from({ length: m * k }, (_, i) => (i * 53 + 7) % 256) };
}

async function runY(bytes: Uint8Array, a: Uint8Array): Promise<Int32Array> {
  const session = await ort.InferenceSession.create(bytes, options);
  const y = (await session.run({ A: new ort.Tensor('uint8', a, [3, 8]) })).Y!.data as Int32Array;
  await session.release();
  return y;
}

describe('shiftWeightsToSigned on hand-built graphs', () => {
  it('shifts a weight and its int32_data zero points (values across 0..255) exactly', async () => {
    const { bytes, a } = model({ shareWeight: false });
    const shifted = shiftWeightsToSigned(bytes);
    expect(shifted?.tensors).toBe(2);
    expect(Array.from(await runY(shifted!.bytes, a))).toEqual(Array.from(await runY(bytes, a)));
  });

  it('in place: raw tensors are changed in the given buffer (no copy), int32_data ones re-encoded in one copy; the same answers', async () => {
    const raw = model({ shareWeight: false, rawZeroPoints: true });
    const want = Array.from(await runY(raw.bytes, raw.a));
    const buffer = Uint8Array.from(raw.bytes);
    const inPlace = shiftWeightsToSigned(buffer, { inPlace: true });
    expect(inPlace?.tensors).toBe(2);
    expect(inPlace!.bytes).toBe(buffer);
    expect(Buffer.compare(buffer, raw.bytes)).not.toBe(0);
    expect(Array.from(await runY(inPlace!.bytes, raw.a))).toEqual(want);

    const mixed = model({ shareWeight: false });
    const copy = shiftWeightsToSigned(Uint8Array.from(mixed.bytes), { inPlace: true });
    expect(copy?.tensors).toBe(2);
    expect(Array.from(await runY(copy!.bytes, mixed.a))).toEqual(Array.from(await runY(mixed.bytes, mixed.a)));
  });

  it('leaves a weight that another node also reads (and so its MatMulInteger) untouched', () => {
    expect(shiftWeightsToSigned(model({ shareWeight: true }).bytes)).toBeNull();
  });
});

describe('probeSignedKernel', () => {
  it('uses operands that a saturating 16-bit kernel gets wrong', () => {
    // what pre-VNNI x86 kernels do: vpmaddubsw adds neighbouring u8 x s8 products into int16 with saturation
    const [m, k, n] = [8, 64, 32];
    const { a, b } = probeOperands(m, k, n);
    const saturating = new Int32Array(m * n);
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = 0; t < k; t += 2) s += Math.max(-32768, Math.min(32767, a[i * k + t]! * b[t * n + j]! + a[i * k + t + 1]! * b[(t + 1) * n + j]!));
      saturating[i * n + j] = s;
    }
    const exact = exactProduct(a, b, m, k, n);
    expect(exact.filter((v, i) => v !== saturating[i]).length).toBeGreaterThan(n);
  });

  it('runs the one-node probe model in ORT; exact here exactly when the probe says so', async () => {
    const [m, k, n] = [8, 64, 32];
    const { a, b } = probeOperands(m, k, n);
    const session = await ort.InferenceSession.create(matMulIntegerModel(m, k, n, b), options);
    const y = (await session.run({ A: new ort.Tensor('uint8', a, [m, k]) })).Y!.data as Int32Array;
    await session.release();
    const exact = exactProduct(a, b, m, k, n);
    const probe = await probeSignedKernel();
    expect(y.every((v, i) => v === exact[i])).toBe(process.arch === 'x64' ? probe : true);
  });

  it('can be switched off (TROVE_ONNX_SIGNED_WEIGHTS=0), and then the file is loaded as it is', async () => {
    expect(readEnvironment({ TROVE_ONNX_SIGNED_WEIGHTS: '0' }).engine.embeddings?.signedWeights).toBe(false);
    expect(await modelSource(miniLmFile, { quantized: true, signedWeights: false })).toBe(miniLmFile);
  });
});
