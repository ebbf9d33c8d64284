// bench:embed-cpu <index.sqlite> [--chunks 2000] [--variants base,head] [--profile]: CPU
// milliseconds of one model run a chunk, for variants of the session the embedding workers make
// (onnx-model.ts), A/B on the same chunks. One thread, batch 1, the default English model from
// TROVE_MODELS_DIR; chunks are an even sample of the profile (every k-th chunk id). Variants run
// interleaved chunk by chunk (their order rotating), so load that comes and goes falls on all of
// them alike; each run's CPU time is the process's (nothing else runs in it meanwhile). Prints one
// line a variant: CPU ms a chunk (mean), the median of its per-chunk ratio to the first variant,
// and how its vectors compare with the first's (bit-identical count, smallest cosine).
// Variants: base (the file as workers loaded it before: weights signed where exact), nanless (NaN
// guards out), head (also mask-free: what workers run now), and session options on top of head:
// noskipln (not exact), daz, extended, nopattern, noarena.
// --profile: ORT's own profile of the first variant, summed by op type.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import * as ort from 'onnxruntime-node';
import { findModel, loadManifest } from '../src-main/engine/embed/manifest.js';
import { resolveModel } from '../src-main/engine/embed/resolver.js';
import { padBatch, poolInto } from '../src-main/engine/embed/onnx-model.js';
import { probeSignedKernel, shiftWeightsToSigned } from '../src-main/engine/embed/signed-weights.js';
import { dropNanGuards } from '../src-main/engine/embed/nan-guards.js';
import { dropAttentionMask } from '../src-main/engine/embed/unmasked.js';
import { encodeSingle, loadTokenizer } from '../src-main/engine/embed/tokenizer.js';
import { registerBlockFunctions, wholeTextSql } from '../src-main/engine/store/content-blocks.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    chunks: { type: 'string', default: '2000' },
    variants: { type: 'string', default: 'base,head' },
    model: { type: 'string', default: 'all-MiniLM-L6-v2' },
    profile: { type: 'boolean', default: false },
  },
});
const db = new Database(positionals[0] ?? '', { readonly: true });
registerBlockFunctions(db);
const n = Number(values.chunks);
const { count } = db.prepare<[], { count: number }>('SELECT count(*) count FROM chunks').get()!;
const step = Math.max(1, Math.floor(count / n));
const rows = db.prepare<[number, number], { text: string; s: number; e: number }>(`SELECT ${wholeTextSql('c.document_id')} AS text, c.char_start s, c.char_end e FROM chunks c WHERE c.id % ? = 0 ORDER BY c.id LIMIT ?`).all(step, n);
db.close();
const texts = rows.map((r) => r.text.slice(r.s, r.e));

const spec = findModel(loadManifest(), values.model!);
const model = await resolveModel(spec, { modelsDir: process.env.TROVE_MODELS_DIR!, cacheDir: '/nonexistent-trove-cache' });
const tok = loadTokenizer(model.dir);
let t0 = performance.now();
const enc = texts.map((t) => encodeSingle(tok, spec.prefixes.passage + t, spec.maxTokens!));
const tokenizeMs = (performance.now() - t0) / texts.length;
const tokens = enc.reduce((a, e) => a + e.length, 0) / enc.length;
console.log(`${texts.length} chunks of ${count} (every ${step}th), mean ${tokens.toFixed(1)} tokens, ${enc.filter((e) => e.length >= spec.maxTokens!).length} cut at ${spec.maxTokens}; tokenising ${tokenizeMs.toFixed(3)} ms a chunk; load ${os.loadavg()[0]!.toFixed(2)}`);

const baseOptions: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-embed-cpu-'));

/** A variant: the model bytes it loads and the session options it adds. */
async function variant(name: string, first: boolean): Promise<ort.InferenceSession> {
  // base: what workers loaded before the NaN guards were dropped (weights signed where exact)
  const file = fs.readFileSync(model.weightsFile);
  const bytes = model.variant === 'int8' && (await probeSignedKernel()) ? (shiftWeightsToSigned(file, { inPlace: true })?.bytes ?? file) : file;
  const options = { ...baseOptions, ...(first && values.profile ? { enableProfiling: true, profileFilePrefix: path.join(profileDir, 'p') } : {}) };
  const nanless = dropNanGuards(bytes)?.bytes ?? bytes;
  // head: what a pool's workers load for unpadded runs now (model-rewrites.ts); the option variants add to it
  const head = dropAttentionMask(nanless)?.bytes ?? nanless;
  switch (name) {
    case 'base':
      return ort.InferenceSession.create(bytes, options);
    case 'nanless':
      return ort.InferenceSession.create(nanless, options);
    case 'head':
      return ort.InferenceSession.create(head, options);
    case 'noskipln': // not exact: Add + LayerNormalization instead of ORT's fused SkipLayerNormalization
      return ort.InferenceSession.create(head, { ...options, extra: { optimization: { disable_specified_optimizers: 'SkipLayerNormFusion' } } });
    case 'daz':
      return ort.InferenceSession.create(head, { ...options, extra: { session: { set_denormal_as_zero: '1' } } });
    case 'extended':
      return ort.InferenceSession.create(head, { ...options, graphOptimizationLevel: 'extended' });
    case 'nopattern':
      return ort.InferenceSession.create(head, { ...options, enableMemPattern: false });
    case 'noarena':
      return ort.InferenceSession.create(head, { ...options, enableCpuMemArena: false });
    default:
      throw new Error(`unknown variant ${name}`);
  }
}

const names = values.variants!.split(',');
const sessions = await Promise.all(names.map((v, i) => variant(v, i === 0)));
const dims = 384;

async function run(s: ort.InferenceSession, ids: number[], out: Float32Array, row: number): Promise<number> {
  const c0 = process.cpuUsage();
  const p = padBatch([ids], 0);
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', p.ids, [1, p.seq]),
    attention_mask: new ort.Tensor('int64', p.mask, [1, p.seq]),
  };
  if (s.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', p.types, [1, p.seq]);
  const res = await s.run(feeds);
  poolInto(res.last_hidden_state!.data as Float32Array, p, dims, spec.pooling!, out, [row]);
  for (const t of Object.values(res)) t.dispose();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

for (const s of sessions) for (const e of enc.slice(0, 10)) await run(s, e, new Float32Array(dims), 0); // warm-up
const cpu = names.map(() => new Float64Array(enc.length));
const vectors = names.map(() => new Float32Array(enc.length * dims));
t0 = performance.now();
for (let i = 0; i < enc.length; i++) {
  for (let k = 0; k < names.length; k++) {
    const v = (i + k) % names.length;
    cpu[v]![i] = await run(sessions[v]!, enc[i]!, vectors[v]!, i);
  }
}
const wall = (performance.now() - t0) / 1000;
for (let v = 0; v < names.length; v++) {
  const mean = cpu[v]!.reduce((a, b) => a + b, 0) / enc.length;
  const ratios = Array.from(cpu[v]!, (c, i) => c / cpu[0]![i]!).sort((a, b) => a - b);
  let identical = 0;
  let minCos = 1;
  for (let i = 0; i < enc.length; i++) {
    const a = vectors[0]!.subarray(i * dims, (i + 1) * dims);
    const b = vectors[v]!.subarray(i * dims, (i + 1) * dims);
    if (a.every((x, h) => x === b[h])) identical++;
    minCos = Math.min(minCos, a.reduce((acc, x, h) => acc + x * b[h]!, 0));
  }
  console.log(`${names[v]!.padEnd(10)} ${mean.toFixed(2)} CPU ms a chunk; per-chunk ratio to ${names[0]} median ${ratios[ratios.length >> 1]!.toFixed(3)}; vectors: ${identical}/${enc.length} bit-identical, min cosine ${minCos.toFixed(6)}`);
}
console.log(`wall ${wall.toFixed(1)} s for ${enc.length * names.length} runs; load ${os.loadavg()[0]!.toFixed(2)}`);
if (values.profile) {
  sessions[0]!.endProfiling();
  const file = fs.readdirSync(profileDir).map((f) => path.join(profileDir, f))[0]!;
  const events = JSON.parse(fs.readFileSync(file, 'utf8')) as { cat: string; name: string; dur: number; args?: { op_name?: string } }[];
  const byOp = new Map<string, number>();
  let runs = 0;
  let total = 0;
  for (const e of events) {
    if (e.cat === 'Session' && e.name === 'model_run') runs++;
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    byOp.set(e.args!.op_name!, (byOp.get(e.args!.op_name!) ?? 0) + e.dur);
    total += e.dur;
  }
  for (const [op, us] of [...byOp].sort((a, b) => b[1] - a[1]).slice(0, 16)) console.log(`  ${op.padEnd(28)} ${(us / runs / 1000).toFixed(3)} ms  ${((100 * us) / total).toFixed(1)}%`);
}
fs.rmSync(profileDir, { recursive: true, force: true });
await Promise.all(sessions.map((s) => s.release()));
