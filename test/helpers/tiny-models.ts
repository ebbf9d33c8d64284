// The two models the tests build themselves (the catalogue lists them as test-only, with the
// sha256 of these bytes): a second embedding model and a cross-encoder, tiny ONNX graphs with the
// inputs and outputs of the real ones, so model switching, the automatic choice's second model,
// CJK text and reranking run through the real loading, tokenising, batching and scoring code
// without downloading anything beyond the catalogue's public English model (whose tokenizer they
// share). Their weights are a fixed pseudo-random table, one row per token id hashed into BUCKETS
// rows; what they compute is written out again below in plain arithmetic (tinyEmbedding,
// tinyLogit), so a test checks ONNX Runtime's answers against an independent calculation.
//   test-tiny-embedder: a bag of tokens, each token its row; Trove mean-pools and normalises, so
//     texts that share tokens are near (it "finds" by shared words or CJK characters, not meaning).
//   test-tiny-cross-encoder: logit = 4 × cosine(sum of the query's rows, sum of the passage's
//     rows), the parts told apart by token_type_ids as in a real cross-encoder's input.
import fs from 'node:fs';
import path from 'node:path';
import { encodeModel, FLOAT, INT64, type Graph, type Initializer } from './onnx-graph.js';

/** Token ids are hashed (id mod BUCKETS, a prime) into a table of BUCKETS rows instead of the vocabulary's 30,522. */
export const BUCKETS = 1021;
const LOGIT_SCALE = 4;

export interface TinyModel {
  id: string;
  /** The weights file inside the model's folder (the catalogue's `weights.fp32`). */
  weights: string;
  /** The other files, copied from the public English model: they share its tokenizer. */
  shared: string[];
  dims: number;
  seed: number;
  build(): Uint8Array;
}

/** mulberry32: a small seeded generator, so a table (and so the file's sha256) never changes. */
function table(seed: number, dims: number): Float32Array {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Float32Array.from({ length: BUCKETS * dims }, () => next() * 2 - 1);
}

const int64 = (name: string, dims: number[], values: number[]): Initializer => ({ name, type: INT64, dims, values: BigInt64Array.from(values, BigInt) });
const float = (name: string, dims: number[], values: ArrayLike<number>): Initializer => ({ name, type: FLOAT, dims, values: Float32Array.from(values) });
const ids = { name: 'input_ids', type: INT64, shape: ['batch', 'seq'] } as const;
const mask = { name: 'attention_mask', type: INT64, shape: ['batch', 'seq'] } as const;
const types = { name: 'token_type_ids', type: INT64, shape: ['batch', 'seq'] } as const;

export const TINY_EMBEDDER: TinyModel = {
  id: 'test-tiny-embedder',
  weights: 'onnx/model.onnx',
  shared: ['tokenizer.json'],
  dims: 384,
  seed: 20260701,
  build() {
    const graph: Graph = {
      name: 'tiny-embedder',
      initializers: [float('rows', [BUCKETS, this.dims], table(this.seed, this.dims)), int64('buckets', [], [BUCKETS]), int64('axis_2', [1], [2])],
      inputs: [ids, mask],
      outputs: [{ name: 'last_hidden_state', type: FLOAT, shape: ['batch', 'seq', this.dims] }],
      nodes: [
        { op: 'Mod', inputs: ['input_ids', 'buckets'], outputs: ['bucket'] },
        { op: 'Gather', inputs: ['rows', 'bucket'], outputs: ['token_rows'] },
        { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], ints: { to: FLOAT } },
        { op: 'Unsqueeze', inputs: ['mask_f', 'axis_2'], outputs: ['mask_3d'] },
        { op: 'Mul', inputs: ['token_rows', 'mask_3d'], outputs: ['last_hidden_state'] },
      ],
    };
    return encodeModel(graph);
  },
};

export const TINY_CROSS_ENCODER: TinyModel = {
  id: 'test-tiny-cross-encoder',
  weights: 'onnx/model.onnx',
  shared: ['tokenizer.json'],
  dims: 64,
  seed: 20260702,
  build() {
    const sumOver = (input: string, weight: string, out: string) => [
      { op: 'Unsqueeze', inputs: [weight, 'axis_2'], outputs: [`${weight}_3d`] },
      { op: 'Mul', inputs: [input, `${weight}_3d`], outputs: [`${out}_rows`] },
      { op: 'ReduceSum', inputs: [`${out}_rows`, 'axis_1'], outputs: [out], ints: { keepdims: 0 } },
    ];
    const dotOf = (a: string, b: string, out: string) => [
      { op: 'Mul', inputs: [a, b], outputs: [`${out}_terms`] },
      { op: 'ReduceSum', inputs: [`${out}_terms`, 'axis_1'], outputs: [out], ints: { keepdims: 1 } },
    ];
    const graph: Graph = {
      name: 'tiny-cross-encoder',
      initializers: [
        float('rows', [BUCKETS, this.dims], table(this.seed, this.dims)),
        int64('buckets', [], [BUCKETS]),
        int64('axis_2', [1], [2]),
        int64('axis_1', [1], [1]),
        float('eps', [], [1e-12]),
        float('scale', [], [LOGIT_SCALE]),
      ],
      inputs: [ids, mask, types],
      outputs: [{ name: 'logits', type: FLOAT, shape: ['batch', 1] }],
      nodes: [
        { op: 'Mod', inputs: ['input_ids', 'buckets'], outputs: ['bucket'] },
        { op: 'Gather', inputs: ['rows', 'bucket'], outputs: ['token_rows'] },
        { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], ints: { to: FLOAT } },
        { op: 'Cast', inputs: ['token_type_ids'], outputs: ['type_f'], ints: { to: FLOAT } },
        { op: 'Mul', inputs: ['mask_f', 'type_f'], outputs: ['passage_w'] },
        { op: 'Sub', inputs: ['mask_f', 'passage_w'], outputs: ['query_w'] },
        ...sumOver('token_rows', 'query_w', 'query'),
        ...sumOver('token_rows', 'passage_w', 'passage'),
        ...dotOf('query', 'passage', 'qp'),
        ...dotOf('query', 'query', 'qq'),
        ...dotOf('passage', 'passage', 'pp'),
        { op: 'Mul', inputs: ['qq', 'pp'], outputs: ['norms'] },
        { op: 'Add', inputs: ['norms', 'eps'], outputs: ['norms_eps'] },
        { op: 'Sqrt', inputs: ['norms_eps'], outputs: ['denominator'] },
        { op: 'Div', inputs: ['qp', 'denominator'], outputs: ['cosine'] },
        { op: 'Mul', inputs: ['cosine', 'scale'], outputs: ['logits'] },
      ],
    };
    return encodeModel(graph);
  },
};

export const TINY_MODELS = [TINY_EMBEDDER, TINY_CROSS_ENCODER];

const rowsOf = new Map<TinyModel, Float32Array>();
function row(m: TinyModel, id: number): Float32Array {
  let t = rowsOf.get(m);
  if (!t) rowsOf.set(m, (t = table(m.seed, m.dims)));
  const at = (id % BUCKETS) * m.dims;
  return t.subarray(at, at + m.dims);
}

/** test-tiny-embedder's vector for these token ids, computed without ONNX: the mean of their rows, normalised. */
export function tinyEmbedding(tokenIds: readonly number[]): Float64Array {
  const v = new Float64Array(TINY_EMBEDDER.dims);
  for (const id of tokenIds) row(TINY_EMBEDDER, id).forEach((x, h) => (v[h]! += x));
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** test-tiny-cross-encoder's logit for a pair encoded as [CLS] q [SEP] p [SEP], computed without ONNX. */
export function tinyLogit(tokenIds: readonly number[], tokenTypes: readonly number[]): number {
  const [q, p] = [new Float64Array(TINY_CROSS_ENCODER.dims), new Float64Array(TINY_CROSS_ENCODER.dims)];
  tokenIds.forEach((id, t) => row(TINY_CROSS_ENCODER, id).forEach((x, h) => ((tokenTypes[t] ? p : q)[h]! += x)));
  const dot = (a: Float64Array, b: Float64Array) => a.reduce((s, x, h) => s + x * b[h]!, 0);
  return (LOGIT_SCALE * dot(q, p)) / Math.sqrt(dot(q, q) * dot(p, p) + 1e-12);
}

/**
 * Writes the tiny models into `dir` (<id>/onnx/model.onnx, plus the shared tokenizer copied from
 * `from`, the public English model's folder); a file already there with the same bytes is kept.
 */
export function writeTinyModels(dir: string, from: string): void {
  for (const m of TINY_MODELS) {
    const target = path.join(dir, m.id);
    fs.mkdirSync(path.join(target, path.dirname(m.weights)), { recursive: true });
    writeIfChanged(path.join(target, m.weights), m.build());
    for (const f of m.shared) writeIfChanged(path.join(target, f), fs.readFileSync(path.join(from, f)));
  }
}

function writeIfChanged(file: string, bytes: Uint8Array): void {
  if (fs.existsSync(file) && Buffer.from(bytes).equals(fs.readFileSync(file))) return;
  fs.writeFileSync(`${file}.part`, bytes);
  fs.renameSync(`${file}.part`, file);
}
