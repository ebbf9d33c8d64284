// Fusion and rerank blending on hand-made rankings.
import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion, weightedSumFusion } from '../../src-main/engine/search/fusion.js';
import { blendRerank, fusionWeightForRank } from '../../src-main/engine/search/rerank.js';
import type { RankedHit } from '../../src-main/engine/search/hit.js';

const hit = (documentId: number, score: number): RankedHit => ({
  documentId, chunkId: documentId, docid: `d${documentId}`, collection: 'c', path: `${documentId}.md`, title: '', kind: 'markdown', tags: [],
  modifiedMs: 0, score, snippet: '', highlights: [], line: 1, page: null, chunk: { ordinal: 0, lineStart: 1, lineEnd: 1, headingPath: [], page: null },
});

describe('reciprocal rank fusion', () => {
  it('rewards agreement, keeps each leg rank, and scores a document first in both legs 1', () => {
    const fused = reciprocalRankFusion([
      { name: 'keyword', weight: 1, hits: [hit(1, 1), hit(2, 0.5), hit(3, 0.1)] },
      { name: 'vector', weight: 1, hits: [hit(1, 0.9), hit(3, 0.8)] },
    ]);
    expect(fused.map((f) => f.hit.documentId)).toEqual([1, 3, 2]);
    expect(fused[0]!.score).toBe(1);
    expect(fused[1]!.legs).toEqual({ keyword: { rank: 3, score: 0.1 }, vector: { rank: 2, score: 0.8 } });
    expect(fused[1]!.score).toBeCloseTo((1 / 63 + 1 / 62) / (2 / 61), 10);
  });

  it('weights a leg (e.g. the original query x2)', () => {
    const fused = reciprocalRankFusion([
      { name: 'a', weight: 2, hits: [hit(1, 1)] },
      { name: 'b', weight: 1, hits: [hit(2, 1)] },
    ]);
    expect(fused.map((f) => f.hit.documentId)).toEqual([1, 2]);
  });
});

describe('weighted-sum fusion', () => {
  it('semantic 0.6 / keyword 0.4 over 0..1 scores; absent from a leg counts 0 there', () => {
    const fused = weightedSumFusion([
      { name: 'keyword', weight: 0.4, hits: [hit(1, 1), hit(2, 0.2)] },
      { name: 'vector', weight: 0.6, hits: [hit(2, 0.9)] },
    ]);
    expect(fused.map((f) => [f.hit.documentId, Math.round(f.score * 1000) / 1000])).toEqual([[2, 0.62], [1, 0.4]]);
  });
});

describe('rerank blending', () => {
  it('uses rank bands 75/25, 60/40, 40/60', () => {
    expect([1, 3, 4, 10, 11, 30].map(fusionWeightForRank)).toEqual([0.75, 0.75, 0.6, 0.6, 0.4, 0.4]);
  });

  it('a strong rerank score lifts a lower candidate; candidates past the rerank window keep their order after', () => {
    const fused = [1, 2, 3, 4, 5].map((id, i) => ({ hit: hit(id, 1), score: 1 - i * 0.05, legs: {} }));
    const out = blendRerank(fused, new Float32Array([-5, -5, -5, 8]));
    expect(out[0]!.hit.documentId).toBe(4);
    expect(out[4]!.hit.documentId).toBe(5);
    expect(out[0]!.rerank).toMatchObject({ fusionRank: 4 });
  });
});
