// bench:embed-batching <index.sqlite> [chunks=600]: what batching would buy the embedding stage,
// which runs one chunk per model run. On one thread (as each pool worker runs), a sample of an
// indexed profile's chunks (every 37th) is tokenised, embedded one by one, then in length-sorted,
// dynamically padded batches of 4-32 (onnx-model.ts's embed), with each batched vector's cosine to
// its one-by-one vector: the int8 files quantise activations per batch tensor, so a batched vector
// depends on its neighbours. Prints one line per setting, after how many of all the profile's
// chunks have a text another chunk has too (what the stage's reuse saves).
import Database from 'better-sqlite3';
import { findModel, loadManifest } from '../src-main/engine/embed/manifest.js';
import { resolveModel } from '../src-main/engine/embed/resolver.js';
import { OnnxEmbedder } from '../src-main/engine/embed/onnx-model.js';
import { loadTokenizer, encodeSingle } from '../src-main/engine/embed/tokenizer.js';
import { textHash } from '../src-main/engine/embed/embedding-stage.js';
import { registerBlockFunctions, wholeTextSql } from '../src-main/engine/store/content-blocks.js';
const db = new Database(process.argv[2] ?? '', { readonly: true });
registerBlockFunctions(db);
const n = Number(process.argv[3] ?? 600);
const rows = db.prepare<[number], { text: string; s: number; e: number }>(`SELECT ${wholeTextSql('c.document_id')} AS text, c.char_start s, c.char_end e FROM chunks c WHERE c.id % 37 = 0 ORDER BY c.id LIMIT ?`).all(n);
const texts = rows.map((r) => r.text.slice(r.s, r.e));
{
  const all = db.prepare<[], { text: string; s: number; e: number }>(`SELECT ${wholeTextSql('c.document_id')} AS text, c.char_start s, c.char_end e FROM chunks c WHERE ${wholeTextSql('c.document_id')} IS NOT NULL`).iterate();
  let chunks = 0;
  const distinct = new Set<string>();
  for (const r of all) {
    chunks++;
    distinct.add(textHash(r.text.slice(r.s, r.e)));
  }
  console.log('chunks', chunks, 'distinct texts', distinct.size, `(${(100 * (1 - distinct.size / chunks)).toFixed(1)}% copies)`);
}
const spec = findModel(loadManifest(), 'all-MiniLM-L6-v2');
const model = await resolveModel(spec, { modelsDir: process.env.TROVE_MODELS_DIR!, cacheDir: '/nonexistent-trove-cache' });
const emb = await OnnxEmbedder.load(spec, model.dir, model.weightsFile, { intraOpThreads: 1, quantized: model.variant === 'int8', signedWeights: true });
const tok = loadTokenizer(model.dir);
let t0 = performance.now();
const lens = texts.map((t) => encodeSingle(tok, spec.prefixes.passage + t, spec.maxTokens!).length);
console.log('tokenize ms per chunk', ((performance.now() - t0) / texts.length).toFixed(3), 'mean tokens', lens.reduce((a, b) => a + b, 0) / lens.length, 'at max', lens.filter((l) => l >= spec.maxTokens!).length);
await emb.embed(texts.slice(0, 8), 'passage', 1);
t0 = performance.now();
const single: Float32Array[] = [];
for (const t of texts) single.push(await emb.embed([t], 'passage', 1));
const s1 = (performance.now() - t0) / 1000;
console.log('batch 1', (texts.length / s1).toFixed(1), 'chunks/s');
for (const b of [4, 8, 16, 32]) {
  t0 = performance.now();
  const all = await emb.embed(texts, 'passage', b);
  const s = (performance.now() - t0) / 1000;
  const cos = single.map((v, i) => v.reduce((acc, x, k) => acc + x * all[i * 384 + k]!, 0)).sort((a, c) => a - c);
  console.log('batch', b, (texts.length / s).toFixed(1), 'chunks/s', 'cos min', cos[0]!.toFixed(4), 'p10', cos[Math.floor(cos.length * 0.1)]!.toFixed(4), 'median', cos[Math.floor(cos.length / 2)]!.toFixed(5));
}
await emb.release();
