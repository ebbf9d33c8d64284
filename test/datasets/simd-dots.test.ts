// The scan's SIMD kernel (datasets/simd-dots.ts) against the plain JavaScript loop it replaces:
// the same inner products (to float32 rounding) on every row, the same best documents, and no
// kernel where the loop must do (a dimension that is not a multiple of 8, an empty matrix).
import { describe, expect, it } from 'vitest';
import { dotKernel } from '../../src-main/engine/datasets/simd-dots.js';
import { innerProducts, topGroups } from '../../src-main/engine/datasets/vector-scan.js';

function matrix(n: number, d: number, seed: number): Float32Array {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  return Float32Array.from({ length: n * d }, rand);
}

describe('dotKernel', () => {
  it('gives the loop’s inner products on every row and the same best rows', () => {
    const [n, d] = [1013, 384];
    const vectors = matrix(n, d, 3);
    const kernel = dotKernel(vectors, d, n);
    expect(kernel).not.toBeNull();
    expect(kernel!.vectors).toEqual(vectors); // rows are read back from its copy
    for (const seed of [5, 11, 17]) {
      const q = matrix(1, d, seed);
      const [plain, simd] = [new Float32Array(n), new Float32Array(n)];
      innerProducts(vectors, d, n, q, plain);
      kernel!.innerProducts(q, simd);
      for (let r = 0; r < n; r++) expect(Math.abs(simd[r]! - plain[r]!)).toBeLessThan(1e-4);
      const groups = Int32Array.from({ length: n }, (_, r) => r >> 1); // two rows a document
      const best = (keys: Float32Array) => topGroups(keys, groups, Math.ceil(n / 2), 10).hits.map((h) => h.group);
      expect(best(simd)).toEqual(best(plain));
    }
  });

  it('is not made where the JavaScript loop must do', () => {
    expect(dotKernel(matrix(10, 12, 1), 12, 10)).toBeNull(); // 12 is not a multiple of 8
    expect(dotKernel(new Float32Array(0), 384, 0)).toBeNull();
  });

  it('reads only the matrix: a query’s products are not mixed with the previous query’s', () => {
    const [n, d] = [64, 16];
    const vectors = matrix(n, d, 7);
    const kernel = dotKernel(vectors, d, n)!;
    const out = new Float32Array(n);
    kernel.innerProducts(matrix(1, d, 9), out);
    const zero = new Float32Array(d);
    kernel.innerProducts(zero, out);
    expect([...out].every((x) => x === 0)).toBe(true);
  });
});
