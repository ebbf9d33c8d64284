// Real ONNX inference in worker threads. all-MiniLM-L6-v2's public int8 file (the pretest step
// downloads it) against reference input ids and vectors that Python onnxruntime and the Rust
// `tokenizers` made for it (test/fixtures/models/make-reference.py); the tiny models the tests build
// against the same arithmetic written out in test/helpers/tiny-models.ts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModel, loadManifest } from '../../src-main/engine/embed/manifest.js';
import { ModelPool } from '../../src-main/engine/embed/pool.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
import { encodePair, encodeSingle, loadTokenizer } from '../../src-main/engine/embed/tokenizer.js';
import { TINY_CROSS_ENCODER, TINY_EMBEDDER, TINY_MODELS, tinyEmbedding, tinyLogit } from '../helpers/tiny-models.js';
import { modelsDir } from './models-dir.js';

const manifest = loadManifest();
const loc = { modelsDir, cacheDir: '/nonexistent-trove-cache' };
const pools: ModelPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

async function start(id: string, workers = 1): Promise<ModelPool> {
  const pool = await ModelPool.start(await resolveModel(findModel(manifest, id), loc), { workers, intraOpThreads: 1, signedWeights: true });
  pools.push(pool);
  return pool;
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

interface Reference {
  sha256: string;
  max_tokens: number;
  texts: string[];
  input_ids: number[][];
  vectors: number[][];
}
const reference = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/models/all-MiniLM-L6-v2.reference.json'), 'utf8')) as Reference;

describe('all-MiniLM-L6-v2 (the public int8 file)', () => {
  let pool: ModelPool;
  beforeAll(async () => {
    pool = await start('all-MiniLM-L6-v2', 2);
  });

  it('is the file the reference was made from, and tokenises as the Rust tokenizer does (without tokenizer_config.json)', async () => {
    const resolved = await resolveModel(findModel(manifest, 'all-MiniLM-L6-v2'), loc);
    expect(resolved.weightsSha256).toBe(reference.sha256);
    expect(fs.existsSync(path.join(resolved.dir, 'tokenizer_config.json'))).toBe(false); // the jar holds none: optional
    const tok = loadTokenizer(resolved.dir);
    reference.texts.forEach((t, i) => expect(encodeSingle(tok, t, reference.max_tokens), t.slice(0, 40)).toEqual(reference.input_ids[i]));
  });

  it('matches the reference vectors (cosine >= 0.9999), unit length, deterministic', async () => {
    const vecs = await Promise.all(reference.texts.map((t) => pool.embed([t], 'passage')));
    vecs.forEach((v, i) => {
      expect(v.length).toBe(384);
      expect(dot(v, v)).toBeCloseTo(1, 5);
      expect(dot(v, reference.vectors[i]!), reference.texts[i]!.slice(0, 40)).toBeGreaterThanOrEqual(0.9999);
    });
    const again = await pool.embed([reference.texts[0]!], 'passage');
    expect([...again]).toEqual([...vecs[0]!]);
  });

  it('ranks a paraphrase above an unrelated passage', async () => {
    const [q, para, other] = await Promise.all(
      ['how do I configure retries', 'Resilience settings: the client retries failed requests three times with backoff.', 'The mitochondria is the powerhouse of the cell.'].map((t, i) =>
        pool.embed([t], i ? 'passage' : 'query'),
      ),
    );
    expect(dot(q!, para!)).toBeGreaterThan(dot(q!, other!) + 0.1);
  });
});

describe('the tiny models the tests build', () => {
  it('are the builds the catalogue names (the same bytes every time)', () => {
    for (const m of TINY_MODELS) {
      const file = findModel(manifest, m.id).files.find((f) => f.path === m.weights)!;
      const bytes = m.build();
      expect({ id: m.id, bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') }).toEqual({ id: m.id, bytes: file.bytes, sha256: file.sha256 });
    }
  });

  it('test-tiny-embedder: ONNX Runtime, the tokenizer and mean pooling give the vectors the plain arithmetic gives, CJK included', async () => {
    const pool = await start(TINY_EMBEDDER.id);
    const tok = loadTokenizer(path.join(modelsDir, TINY_EMBEDDER.id));
    const texts = [...reference.texts.slice(0, 5), '客户端在请求失败后会自动重试三次', '再試行の設定方法'];
    for (const t of texts) {
      const v = await pool.embed([t], 'passage');
      const expected = tinyEmbedding(encodeSingle(tok, t, findModel(manifest, TINY_EMBEDDER.id).maxTokens!));
      expect(v.length).toBe(384);
      expect(dot(v, expected), t).toBeGreaterThan(0.99999);
    }
    // a padded batch pools over each row's own tokens only
    const batch = await pool.embed(texts, 'passage', { batchSize: texts.length });
    texts.forEach((t, i) => expect(dot(batch.subarray(i * 384, (i + 1) * 384), tinyEmbedding(encodeSingle(tok, t, 512)))).toBeGreaterThan(0.99999));
    // shared characters bring texts near: what the CJK tests rely on
    const [q, near, far] = await Promise.all(['如何配置重试次数', '客户端在请求失败后会自动重试三次', '长城是中国古代的军事防御工程'].map((t) => pool.embed([t], 'passage')));
    expect(dot(q!, near!)).toBeGreaterThan(dot(q!, far!));
  });

  it('test-tiny-cross-encoder: logits as the plain arithmetic gives them, alone and in a padded batch', async () => {
    const pool = await start(TINY_CROSS_ENCODER.id);
    const tok = loadTokenizer(path.join(modelsDir, TINY_CROSS_ENCODER.id));
    const query = 'how do I configure retries';
    const passages = ['Resilience settings: the client retries failed requests three times.', 'The mitochondria is the powerhouse of the cell.', 'テキスト', 'b'];
    const expected = passages.map((p) => {
      const e = encodePair(tok, query, p, 512);
      return tinyLogit(e.ids, e.types);
    });
    const alone = await Promise.all(passages.map(async (p) => (await pool.score(query, [p]))[0]!));
    const batched = await pool.score(query, passages, passages.length);
    passages.forEach((p, i) => {
      expect(Math.abs(alone[i]! - expected[i]!), p).toBeLessThan(1e-4);
      expect(Math.abs(batched[i]! - expected[i]!), p).toBeLessThan(1e-4);
    });
    expect(alone[0]).toBeGreaterThan(alone[1]!); // the passage sharing the query's words scores higher
  });
});
