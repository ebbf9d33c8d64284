// ONNX inference for one model: an embedder (mean or CLS pooling, L2 norm, query/passage
// prefixes) or a cross-encoder (pair logits). session.run and session creation block the
// thread they run on, so this module is only used inside embedding workers (see worker.ts).
//
// Batching: the int8 files quantise activations with one scale per batch tensor, so a chunk's
// vector depends on the chunks it is batched with (cosine 0.96-0.99 to its single-run vector,
// measured). Batch size 1 gives exact, reproducible vectors that match reference.json
// (cosine 1.0) and was also the fastest setting on the 2-core machine (two workers of one
// thread each), so it is the default; larger batches are length-sorted and dynamically padded.
import * as ort from 'onnxruntime-node';
import type { Tokenizer } from '@huggingface/tokenizers';
import { TroveError } from '../errors.js';
import type { ModelSpec } from './manifest.js';
import { modelSource } from './model-rewrites.js';
import { encodePair, encodeSingle, loadTokenizer, padId } from './tokenizer.js';

export interface SessionOptions {
  /** Threads per session; workers x threads should not exceed the cores. */
  intraOpThreads: number;
  /** The file is an int8 variant: its uint8 weights may be made signed (exact, faster; signed-weights.ts). */
  quantized: boolean;
  /** Allow that rewrite (default true; TROVE_ONNX_SIGNED_WEIGHTS=0 turns it off). */
  signedWeights?: boolean;
  /** The file is a pool's prepared copy, rewritten already (model-rewrites.ts): load it as it is. */
  prepared?: boolean;
}

export type TextKind = 'query' | 'passage';

async function createSession(file: string, opts: SessionOptions): Promise<ort.InferenceSession> {
  try {
    const source = opts.prepared ? file : await modelSource(file, { quantized: opts.quantized, signedWeights: opts.signedWeights ?? true });
    const options: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: opts.intraOpThreads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    };
    // create() has one overload for a path and one for bytes, none for the union
    return await (typeof source === 'string' ? ort.InferenceSession.create(source, options) : ort.InferenceSession.create(source, options));
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `cannot load ONNX model ${file}: ${(err as Error).message}`);
  }
}

interface Padded {
  batch: number;
  seq: number;
  ids: BigInt64Array;
  mask: BigInt64Array;
  types: BigInt64Array;
}

/** Right-pads every row to the longest row of this batch. */
export function padBatch(rows: readonly number[][], pad: number, typeRows?: readonly number[][]): Padded {
  const batch = rows.length;
  const seq = Math.max(...rows.map((r) => r.length));
  const ids = new BigInt64Array(batch * seq).fill(BigInt(pad));
  const mask = new BigInt64Array(batch * seq);
  const types = new BigInt64Array(batch * seq);
  rows.forEach((r, b) => {
    for (let t = 0; t < r.length; t++) {
      ids[b * seq + t] = BigInt(r[t]!);
      mask[b * seq + t] = 1n;
      if (typeRows) types[b * seq + t] = BigInt(typeRows[b]![t]!);
    }
  });
  return { batch, seq, ids, mask, types };
}

/** Pools [batch, seq, dims] hidden states into unit vectors written to out at row offsets. */
export function poolInto(hidden: Float32Array, p: Padded, dims: number, pooling: 'mean' | 'cls', out: Float32Array, rows: readonly number[]): void {
  for (let b = 0; b < p.batch; b++) {
    const v = out.subarray(rows[b]! * dims, (rows[b]! + 1) * dims);
    v.fill(0);
    if (pooling === 'cls') {
      v.set(hidden.subarray(b * p.seq * dims, b * p.seq * dims + dims));
    } else {
      let n = 0;
      for (let t = 0; t < p.seq; t++) {
        if (p.mask[b * p.seq + t] === 0n) continue;
        n++;
        const off = (b * p.seq + t) * dims;
        for (let h = 0; h < dims; h++) v[h]! += hidden[off + h]!;
      }
      for (let h = 0; h < dims; h++) v[h]! /= Math.max(n, 1);
    }
    let norm = 0;
    for (let h = 0; h < dims; h++) norm += v[h]! * v[h]!;
    norm = Math.sqrt(norm) || 1;
    for (let h = 0; h < dims; h++) v[h]! /= norm;
  }
}

export class OnnxEmbedder {
  /** The full graph, for runs with padding: `session` itself, or loaded on the first such run when `session` is the mask-free copy. */
  private padded: Promise<ort.InferenceSession> | null;

  private constructor(
    readonly spec: ModelSpec,
    private readonly tok: Tokenizer,
    /** The graph every unpadded run uses (one text a run, the default: every run). */
    private readonly session: ort.InferenceSession,
    private readonly pad: number,
    readonly dims: number,
    private readonly fullGraph: (() => Promise<ort.InferenceSession>) | null,
  ) {
    this.padded = fullGraph ? null : Promise.resolve(session);
  }

  static async load(spec: ModelSpec, dir: string, weightsFile: string, opts: SessionOptions & { unmaskedFile?: string | null }): Promise<OnnxEmbedder> {
    const tok = loadTokenizer(dir);
    const unmasked = opts.unmaskedFile ?? null;
    const session = await createSession(unmasked ?? weightsFile, unmasked ? { ...opts, prepared: true } : opts);
    if (!session.outputNames.includes('last_hidden_state')) {
      await session.release();
      throw new TroveError('UNAVAILABLE', `model "${spec.id}" (${weightsFile}) has no last_hidden_state output; it is not an embedding model`);
    }
    const e = new OnnxEmbedder(spec, tok, session, padId(tok), spec.dims!, unmasked ? () => createSession(weightsFile, opts) : null);
    // a probe run: catches a file whose width differs from the manifest before any vector is stored
    const probe = await e.hidden([encodeSingle(tok, 'dimension check', spec.maxTokens!)]);
    if (probe.dims !== spec.dims) {
      await session.release();
      throw new TroveError('UNAVAILABLE', `model "${spec.id}" makes ${probe.dims}-dimensional vectors, the manifest says ${spec.dims}: wrong model file ${weightsFile}`);
    }
    return e;
  }

  /** Token counts (with special tokens, after truncation), e.g. to sort a batch by length. */
  tokenCount(text: string, kind: TextKind): number {
    return encodeSingle(this.tok, this.spec.prefixes[kind] + text, this.spec.maxTokens!).length;
  }

  /** Unit vectors, flat [texts.length * dims]; the model's prefix for `kind` is added here. */
  async embed(texts: readonly string[], kind: TextKind, batchSize = 1): Promise<Float32Array> {
    const enc = texts.map((t) => encodeSingle(this.tok, this.spec.prefixes[kind] + t, this.spec.maxTokens!));
    const order = enc.map((_, i) => i).sort((a, b) => enc[a]!.length - enc[b]!.length);
    const out = new Float32Array(texts.length * this.dims);
    for (let i = 0; i < order.length; i += batchSize) {
      const rows = order.slice(i, i + batchSize);
      const { padded, data, dims } = await this.hidden(rows.map((r) => enc[r]!));
      if (dims !== this.dims) throw new TroveError('INTERNAL', `model "${this.spec.id}" returned ${dims} dims, expected ${this.dims}`);
      poolInto(data, padded, dims, this.spec.pooling!, out, rows);
    }
    return out;
  }

  private async hidden(rows: number[][]): Promise<{ padded: Padded; data: Float32Array; dims: number }> {
    const padded = padBatch(rows, this.pad);
    // every row as long as the run: an all-ones mask, which the mask-free graph answers exactly
    const session = rows.every((r) => r.length === padded.seq) ? this.session : await (this.padded ??= this.fullGraph!().catch((err: unknown) => {
      this.padded = null; // a later padded run tries again
      throw err;
    }));
    const shape = [padded.batch, padded.seq];
    const feeds: Record<string, ort.Tensor> = { input_ids: new ort.Tensor('int64', padded.ids, shape) };
    // feed only what the graph declares: e5 has no token_type_ids, the mask-free copy may read no mask
    if (session.inputNames.includes('attention_mask')) feeds.attention_mask = new ort.Tensor('int64', padded.mask, shape);
    if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', padded.types, shape);
    const res = await session.run(feeds);
    const hs = res.last_hidden_state!;
    const data = new Float32Array(hs.data as Float32Array);
    const dims = hs.dims[2]!;
    for (const t of Object.values(res)) t.dispose();
    return { padded, data, dims };
  }

  async release(): Promise<void> {
    const full = this.padded ? await this.padded.catch(() => null) : null;
    await this.session.release();
    if (full && full !== this.session) await full.release();
  }
}

export class OnnxCrossEncoder {
  private constructor(
    readonly spec: ModelSpec,
    private readonly tok: Tokenizer,
    private readonly session: ort.InferenceSession,
    private readonly pad: number,
  ) {}

  static async load(spec: ModelSpec, dir: string, weightsFile: string, opts: SessionOptions): Promise<OnnxCrossEncoder> {
    const tok = loadTokenizer(dir);
    const session = await createSession(weightsFile, opts);
    if (!session.outputNames.includes('logits')) {
      await session.release();
      throw new TroveError('UNAVAILABLE', `model "${spec.id}" (${weightsFile}) has no logits output; it is not a cross-encoder`);
    }
    return new OnnxCrossEncoder(spec, tok, session, padId(tok));
  }

  /** Raw relevance logits, one per passage. Batch size 1 by default for the same reason as embeddings. */
  async score(query: string, passages: readonly string[], batchSize = 1): Promise<Float32Array> {
    const enc = passages.map((p) => encodePair(this.tok, query, p, this.spec.maxTokens!));
    const out = new Float32Array(passages.length);
    for (let i = 0; i < enc.length; i += batchSize) {
      const part = enc.slice(i, i + batchSize);
      const p = padBatch(part.map((e) => e.ids), this.pad, part.map((e) => e.types));
      const res = await this.session.run({
        input_ids: new ort.Tensor('int64', p.ids, [p.batch, p.seq]),
        attention_mask: new ort.Tensor('int64', p.mask, [p.batch, p.seq]),
        token_type_ids: new ort.Tensor('int64', p.types, [p.batch, p.seq]),
      });
      const logits = res.logits!.data as Float32Array;
      for (let k = 0; k < part.length; k++) out[i + k] = logits[k]!;
      for (const t of Object.values(res)) t.dispose();
    }
    return out;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
