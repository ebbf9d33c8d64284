// bench:embed [--chunks 300] [--model all-MiniLM-L6-v2]: embedding throughput on real chunks of
// the cpp-docs corpus, Trove's worker pool side by side with the transformers.js
// feature-extraction pipeline on the same ONNX file, with the vectors compared (cosine).
// Prints a summary and ends with one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { env, pipeline } from '@huggingface/transformers';
import Database from 'better-sqlite3';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { findModel, loadManifest } from '../src-main/engine/embed/manifest.js';
import { ModelPool } from '../src-main/engine/embed/pool.js';
import { resolveModel } from '../src-main/engine/embed/resolver.js';
import { loadTokenizer } from '../src-main/engine/embed/tokenizer.js';
import { databasePath } from '../src-main/engine/profile.js';
import { registerBlockFunctions, wholeTextSql } from '../src-main/engine/store/content-blocks.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '300' },
    model: { type: 'string', default: 'all-MiniLM-L6-v2' },
    corpus: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/bench/corpora/cpp-docs/docs') },
    workers: { type: 'string', default: String(Math.min(2, os.availableParallelism())) },
  },
});
const modelsDir = process.env.TROVE_MODELS_DIR || path.resolve(import.meta.dirname, '../../shared/models');
const n = Number(values.chunks);

// real chunks (the same ones every run: ordered by path): index a slice of the corpus with the engine's own chunker
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-embed-bench-'));
const docs = path.join(work, 'docs');
fs.mkdirSync(docs);
const files = fs.readdirSync(values.corpus!, { recursive: true, withFileTypes: true }).filter((f) => f.isFile() && f.name.endsWith('.md')).slice(0, Math.ceil(n / 2));
files.forEach((f, i) => fs.copyFileSync(path.join(f.parentPath, f.name), path.join(docs, `${i}.md`)));
const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: path.join(work, 'home') });
await engine.addCollection({ root: docs, name: 'cpp' });
await engine.index();
await engine.close();
const db = new Database(databasePath(path.join(work, 'home')), { readonly: true });
registerBlockFunctions(db);
const texts = db
  .prepare<[number], { text: string; char_start: number; char_end: number }>(`SELECT ${wholeTextSql('d.id')} AS text, c.char_start, c.char_end FROM chunks c JOIN documents d ON d.id = c.document_id WHERE ${wholeTextSql('d.id')} IS NOT NULL ORDER BY d.path, c.ordinal LIMIT ?`)
  .all(n)
  .map((r) => r.text.slice(r.char_start, r.char_end));
db.close();
console.error(`${texts.length} chunks from ${files.length} cpp-docs files (mean ${Math.round(texts.reduce((s, t) => s + t.length, 0) / texts.length)} chars)`);

const spec = findModel(loadManifest(), values.model!);
const model = await resolveModel(spec, { modelsDir, cacheDir: path.join(work, 'cache') });

// Trove: worker pool, one chunk per request (exact vectors; see onnx-model.ts), first with the
// weights as the file stores them, then as Trove runs (uint8 weights made signed where exact; see signed-weights.ts)
async function troveRun(signedWeights: boolean): Promise<{ vectors: Float32Array[]; seconds: number }> {
  const pool = await ModelPool.start(model, { workers: Number(values.workers), intraOpThreads: 1, signedWeights });
  await Promise.all(texts.slice(0, 4).map((t) => pool.embed([t], 'passage'))); // warm-up
  const t0 = performance.now();
  const vectors = await Promise.all(texts.map((t) => pool.embed([t], 'passage')));
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  return { vectors, seconds };
}
const asStored = await troveRun(false);
const { vectors: ours, seconds: oursSeconds } = await troveRun(true);
const signedCosineMin = Math.min(...ours.map((v, i) => v.reduce((s, x, k) => s + x * asStored.vectors[i]![k]!, 0)));

// transformers.js: the same file through its pipeline, offline, one text per call (batched int8 runs change vectors)
env.allowRemoteModels = false;
env.localModelPath = modelsDir + '/';
env.useFSCache = false;
const extractor = await pipeline('feature-extraction', spec.id, { dtype: model.variant === 'int8' ? 'q8' : 'fp32', device: 'cpu' });
// its truncation reads model_max_length (512 for MiniLM) and would cut elsewhere than the model's 256
(extractor.tokenizer as unknown as { _tokenizerConfig: { model_max_length: number } })._tokenizerConfig.model_max_length = spec.maxTokens!;
const prefix = spec.prefixes.passage;
await extractor(prefix + texts[0]!, { pooling: 'mean', normalize: true });
const t0 = performance.now();
const theirs: Float32Array[] = [];
for (const t of texts) theirs.push((await extractor(prefix + t, { pooling: 'mean', normalize: true })).data as Float32Array);
const theirSeconds = (performance.now() - t0) / 1000;

// transformers.js cuts over-long inputs without keeping the final [SEP] (Trove keeps it, as the
// reference vectors do): compare the chunks that fit the model's window separately
const tok = loadTokenizer(model.dir);
const fits = texts.map((t) => tok.encode(prefix + t).ids.length <= spec.maxTokens!);
const cosAll = ours.map((v, i) => v.reduce((s, x, k) => s + x * theirs[i]![k]!, 0));
const cos = cosAll.filter((_, i) => fits[i]).sort((a, b) => a - b);
const cosLong = cosAll.filter((_, i) => !fits[i]).sort((a, b) => a - b);
const result = {
  model: spec.id,
  chunks: texts.length,
  trove_chunks_per_s: Math.round((texts.length / oursSeconds) * 10) / 10,
  transformers_js_chunks_per_s: Math.round((texts.length / theirSeconds) * 10) / 10,
  speedup: Math.round((theirSeconds / oursSeconds) * 100) / 100,
  trove_weights_as_stored_chunks_per_s: Math.round((texts.length / asStored.seconds) * 10) / 10,
  speedup_weights_as_stored: Math.round((theirSeconds / asStored.seconds) * 100) / 100,
  signed_vs_stored_cosine_min: Math.round(signedCosineMin * 1e6) / 1e6,
  chunks_within_max_tokens: cos.length,
  cosine_min: Math.round(cos[0]! * 1e6) / 1e6,
  below_0_9999: cos.filter((c) => c < 0.9999).length,
  truncated_chunks: cosLong.length,
  truncated_cosine_min: cosLong.length ? Math.round(cosLong[0]! * 1e6) / 1e6 : null,
  trove_setup: `${values.workers} workers x 1 thread, batch 1, uint8 weights made signed where exact`,
  transformers_js_setup: 'pipeline feature-extraction, main thread, ORT default threads, one text per call',
};
console.error(`Trove with the weights as stored: ${result.trove_weights_as_stored_chunks_per_s} chunks/s (${result.speedup_weights_as_stored}x); signed weights give the same vectors (min cosine ${result.signed_vs_stored_cosine_min})`);
console.error(`Trove ${result.trove_chunks_per_s} chunks/s vs transformers.js ${result.transformers_js_chunks_per_s} chunks/s (${result.speedup}x); min cosine ${result.cosine_min} over ${cos.length} chunks within ${spec.maxTokens} tokens (${cosLong.length} longer ones: min ${result.truncated_cosine_min}, truncation differs)`);
console.log(JSON.stringify(result));
fs.rmSync(work, { recursive: true, force: true });
