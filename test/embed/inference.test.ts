// Real ONNX inference in worker threads against each model's reference.json (../shared/models).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModel, loadManifest } from '../../src-main/engine/embed/manifest.js';
import { ModelPool } from '../../src-main/engine/embed/pool.js';
import { resolveModel } from '../../src-main/engine/embed/resolver.js';
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

const dot = (a: Float32Array, b: ArrayLike<number>) => a.reduce((s, x, i) => s + x * b[i]!, 0);

interface Reference {
  texts: string[];
  vectors_int8: number[][];
}

function reference(id: string): Reference {
  return JSON.parse(fs.readFileSync(path.join(modelsDir, id, 'reference.json'), 'utf8')) as Reference;
}

describe('all-MiniLM-L6-v2', () => {
  let pool: ModelPool;
  beforeAll(async () => {
    pool = await start('all-MiniLM-L6-v2', 2);
  });

  it('matches the reference vectors (cosine >= 0.9999), unit length, deterministic', async () => {
    const ref = reference('all-MiniLM-L6-v2');
    const vecs = await Promise.all(ref.texts.map((t) => pool.embed([t], 'passage')));
    vecs.forEach((v, i) => {
      expect(v.length).toBe(384);
      expect(dot(v, v)).toBeCloseTo(1, 5);
      expect(dot(v, ref.vectors_int8[i]!)).toBeGreaterThanOrEqual(0.9999);
    });
    const again = await pool.embed([ref.texts[0]!], 'passage');
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

describe('multilingual-e5-small', () => {
  let pool: ModelPool;
  beforeAll(async () => {
    pool = await start('multilingual-e5-small');
  });

  it('adds the query:/passage: prefixes and matches the reference vectors', async () => {
    const ref = reference('multilingual-e5-small');
    // the reference texts carry their prefix; the embedder adds it from the kind
    const picks = [0, 1, 2, 3, 10, 20, 31].filter((i) => i < ref.texts.length);
    for (const i of picks) {
      const text = ref.texts[i]!;
      const kind = text.startsWith('query: ') ? 'query' : 'passage';
      const v = await pool.embed([text.replace(/^(query|passage): /, '')], kind);
      expect(dot(v, ref.vectors_int8[i]!)).toBeGreaterThanOrEqual(0.9999);
    }
    const asQuery = await pool.embed(['retry settings'], 'query');
    const asPassage = await pool.embed(['retry settings'], 'passage');
    expect(dot(asQuery, asPassage)).toBeLessThan(0.9999); // different prefixes, different vectors
  });

  it('ranks Chinese and Japanese paraphrases above unrelated passages', async () => {
    const cases = [
      ['如何配置重试次数', '客户端在请求失败后会自动重试三次，并使用指数退避。', '长城是中国古代的军事防御工程。'],
      ['再試行の設定方法', 'クライアントは失敗したリクエストを三回まで自動的に再送します。', '富士山は日本で一番高い山です。'],
    ];
    for (const [query, para, other] of cases) {
      const q = await pool.embed([query!], 'query');
      const p = await pool.embed([para!], 'passage');
      const o = await pool.embed([other!], 'passage');
      expect(dot(q, p)).toBeGreaterThan(dot(q, o));
    }
  });
});

describe('test-tiny-cross-encoder', () => {
  it('reproduces the reference logits (±1e-4)', async () => {
    const pool = await start('test-tiny-cross-encoder');
    const ref = JSON.parse(fs.readFileSync(path.join(modelsDir, 'test-tiny-cross-encoder', 'reference.json'), 'utf8')) as { pairs: [string, string][]; logits: number[] };
    for (const [i, [q, p]] of ref.pairs.entries()) {
      const [logit] = await pool.score(q, [p]);
      expect(Math.abs(logit! - ref.logits[i]!)).toBeLessThan(1e-4);
    }
  });
});
