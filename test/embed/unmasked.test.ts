// The mask-free graph (unmasked.ts) on the real English model: bit-identical hidden states for
// unpadded runs, kept by preparedModelFile only after its probe, and used by OnnxEmbedder only for
// runs without padding (a padded run through it would be wrong, so the routing is checked too).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModel, loadManifest } from '../../src-main/engine/embed/manifest.js';
import { preparedModelFile } from '../../src-main/engine/embed/model-rewrites.js';
import { OnnxEmbedder, padBatch } from '../../src-main/engine/embed/onnx-model.js';
import { encodeSingle, loadTokenizer } from '../../src-main/engine/embed/tokenizer.js';
import { dropAttentionMask } from '../../src-main/engine/embed/unmasked.js';
import { modelsDir } from './models-dir.js';

const dir = path.join(modelsDir, 'all-MiniLM-L6-v2');
const weightsFile = path.join(dir, 'onnx/model_quantized.onnx');
const spec = findModel(loadManifest(), 'all-MiniLM-L6-v2');
const texts = [
  'How do I configure retries for the HTTP client?',
  'A resource template is a customized resource that you have saved as an .rct file.',
  'x',
  'The quick brown fox jumps over the lazy dog. '.repeat(30), // past the model's 256 tokens
];
const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, graphOptimizationLevel: 'all' };

async function hidden(model: Uint8Array | string, rows: number[][]): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model as Uint8Array, options);
  const p = padBatch(rows, 0);
  const feeds: Record<string, ort.Tensor> = { input_ids: new ort.Tensor('int64', p.ids, [p.batch, p.seq]), token_type_ids: new ort.Tensor('int64', p.types, [p.batch, p.seq]) };
  if (session.inputNames.includes('attention_mask')) feeds.attention_mask = new ort.Tensor('int64', p.mask, [p.batch, p.seq]);
  const out = new Float32Array((await session.run(feeds)).last_hidden_state!.data as Float32Array);
  await session.release();
  return out;
}

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-unmasked-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('dropAttentionMask', () => {
  it('takes the mask out of all-MiniLM-L6-v2; unpadded runs are bit-identical, padded ones would not be', async () => {
    const full = fs.readFileSync(weightsFile);
    const dropped = dropAttentionMask(full);
    expect(dropped?.removed).toBeGreaterThanOrEqual(6); // one Add a layer, and the mask's subgraph
    const tok = loadTokenizer(dir);
    const enc = texts.map((t) => encodeSingle(tok, t, spec.maxTokens!));
    for (const e of enc) {
      const want = await hidden(full, [e]);
      const got = await hidden(dropped!.bytes, [e]);
      expect(got.every((v, i) => Object.is(v, want[i])), `${e.length} tokens`).toBe(true);
    }
    // a padded batch needs its mask: the mask-free graph, fed the same mask, reads none of it and answers otherwise
    const padded = [enc[0]!, enc[2]!];
    const want = await hidden(full, padded);
    const got = await hidden(dropped!.bytes, padded);
    expect(got.some((v, i) => v !== want[i])).toBe(true);
  });

  it('finds nothing in bytes that are not a model', () => {
    expect(dropAttentionMask(Buffer.from('not an onnx file'))).toBeNull();
  });
});

describe('OnnxEmbedder with the mask-free copy', () => {
  it('preparedModelFile keeps the copy after its probe; vectors equal the full graph one by one and in padded batches', async () => {
    const copy = path.join(work, 'model.onnx');
    fs.copyFileSync(weightsFile, copy);
    const prepared = await preparedModelFile(copy, 'feed01', path.join(work, 'cache'), { quantized: true, signedWeights: true });
    expect(prepared.unmasked).toBe(path.join(work, 'cache', path.basename(prepared.file).replace(/\.onnx$/, '.unmasked.onnx')));
    const opts = { intraOpThreads: 1, quantized: true, prepared: true };
    const plain = await OnnxEmbedder.load(spec, dir, prepared.file, opts);
    const fast = await OnnxEmbedder.load(spec, dir, prepared.file, { ...opts, unmaskedFile: prepared.unmasked });
    try {
      for (const t of texts) expect(Array.from(await fast.embed([t], 'passage')), t.slice(0, 30)).toEqual(Array.from(await plain.embed([t], 'passage')));
      // runs of 4 are padded: they go to the full graph, loaded on the first such run
      expect(Array.from(await fast.embed(texts, 'passage', 4))).toEqual(Array.from(await plain.embed(texts, 'passage', 4)));
    } finally {
      await plain.release();
      await fast.release();
    }
  });
});
