// The native index.faiss reader over files faiss.write_index wrote (test/fixtures/datasets, made by
// make-fixtures.py with faiss-cpu), and the exact scan that searches them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFaissIndex } from '../../src-main/engine/datasets/faiss-format.js';
import { searchGraph, VisitMarks } from '../../src-main/engine/datasets/hnsw-search.js';
import { innerProducts, topGroups } from '../../src-main/engine/datasets/vector-scan.js';
import { troveError } from '../helpers/engine.js';

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'datasets', 'datasets');
const read = (...p: string[]) => fs.readFileSync(path.join(FIXTURES, ...p));

describe('parseFaissIndex', () => {
  const ip = parseFaissIndex(read('ip', 'docs.index', 'index.faiss'));

  it('reads an IndexFlatIP: dimensions, count, metric and the vectors themselves', () => {
    expect(ip).toMatchObject({ type: 'IndexFlatIP', d: 384, ntotal: 24, metric: 'ip', ids: null, hnsw: null });
    expect(ip.vectors.length).toBe(24 * 384);
    // the fixture's vectors are MiniLM's unit vectors
    for (let r = 0; r < 24; r++) {
      let n = 0;
      for (let j = 0; j < 384; j++) n += ip.vectors[r * 384 + j]! ** 2;
      expect(Math.sqrt(n)).toBeCloseTo(1, 3);
    }
  });

  it('reads an IndexFlatL2 holding the same vectors', () => {
    const l2 = parseFaissIndex(read('l2', 'index.faiss'));
    expect(l2).toMatchObject({ type: 'IndexFlatL2', d: 384, ntotal: 24, metric: 'l2', ids: null });
    expect(Array.from(l2.vectors)).toEqual(Array.from(ip.vectors));
  });

  it('reads IndexIDMap and IndexIDMap2: each stored vector with its id', () => {
    for (const [dir, type, metric] of [['idmap', 'IndexIDMap(IndexFlatIP)', 'ip'], ['idmap2-l2', 'IndexIDMap2(IndexFlatL2)', 'l2']] as const) {
      const m = parseFaissIndex(read(dir, 'index.faiss'));
      expect(m).toMatchObject({ type, d: 384, ntotal: 24, metric });
      expect([...m.ids!].sort((a, b) => a - b)).toEqual([...Array(24).keys()]);
      expect([...m.ids!]).not.toEqual([...Array(24).keys()]); // added in shuffled order
      for (let r = 0; r < 24; r++) {
        const id = m.ids![r]!;
        expect(Array.from(m.vectors.subarray(r * 384, (r + 1) * 384))).toEqual(Array.from(ip.vectors.subarray(id * 384, (id + 1) * 384)));
      }
    }
  });

  it('reads an IndexHNSWFlat: the graph is stepped over, its storage holds every vector', () => {
    const h = parseFaissIndex(read('hnsw', 'index', 'index.faiss'));
    expect(h).toMatchObject({ type: 'IndexHNSWFlat(IndexFlatIP)', d: 384, ntotal: 24, metric: 'ip', ids: null });
    const g = h.hnsw!;
    expect(g.nodeLevels.length).toBe(24);
    expect(Math.min(...g.nodeLevels)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...g.nodeLevels)).toBe(g.maxLevel + 1);
    expect(g.offsets.length).toBe(25);
    expect(g.neighbors.length).toBe(g.offsets[24]);
    expect(g.entryPoint).toBeGreaterThanOrEqual(0);
    expect(Array.from(h.vectors)).toEqual(Array.from(ip.vectors));
  });

  it("walks faiss's HNSW graph to the same nearest neighbours as an exact scan", () => {
    const h = parseFaissIndex(read('hnsw', 'index', 'index.faiss'));
    const marks = new VisitMarks(24);
    for (const target of [0, 7, 23]) {
      const q = h.vectors.subarray(target * 384, (target + 1) * 384);
      const key = (row: number) => {
        let s = 0;
        for (let j = 0; j < 384; j++) s += h.vectors[row * 384 + j]! * q[j]!;
        return s;
      };
      const exact = [...Array(24).keys()].map((row) => ({ row, key: key(row) })).sort((a, b) => b.key - a.key);
      expect(searchGraph(h.hnsw!, key, 64, marks).map((x) => x.row)).toEqual(exact.map((x) => x.row)); // a beam as wide as the graph sees it all
      const narrow = searchGraph(h.hnsw!, key, 4, marks);
      expect(narrow.length).toBe(4);
      expect(narrow[0]!.row).toBe(target);
      expect(narrow.map((x) => x.key)).toEqual([...narrow.map((x) => x.key)].sort((a, b) => b - a));
    }
  });

  it('names an unsupported index type and what is supported', () => {
    const err = troveError(() => parseFaissIndex(read('unsupported', 'index.faiss')));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toMatch(/unsupported FAISS index type IndexIVFFlat \(type code "IwFl"\).*IndexFlatIP, IndexFlatL2, IndexIDMap/);
  });

  it('refuses a truncated file wherever it ends, never returning half an index', () => {
    const whole = read('ip', 'docs.index', 'index.faiss');
    for (const cut of [0, 3, 4, 10, 20, 40, 45, 46, 1000, whole.length - 1]) {
      const err = troveError(() => parseFaissIndex(whole.subarray(0, cut)));
      expect(err.message, `cut at ${cut}`).toMatch(/index\.faiss cannot be read: the file is truncated: .* needs \d+ bytes at offset \d+, but the file ends at \d+/);
    }
    expect(troveError(() => parseFaissIndex(read('truncated', 'index.faiss'))).message).toMatch(/truncated/);
    const hnsw = read('hnsw', 'index', 'index.faiss');
    expect(troveError(() => parseFaissIndex(hnsw.subarray(0, hnsw.length - 5))).message).toMatch(/truncated/);
  });

  it('refuses a file that is not a FAISS index, and counts that do not add up', () => {
    expect(troveError(() => parseFaissIndex(Buffer.from('{"not": "an index"}'))).message).toMatch(/not a FAISS index Trove knows: it starts with the type code "\{"no"/);
    const bad = Buffer.from(read('ip', 'docs.index', 'index.faiss'));
    bad.writeBigInt64LE(25n, 8); // ntotal 25 while 24 vectors are stored
    expect(troveError(() => parseFaissIndex(bad)).message).toMatch(/holds 9216 floats, but 25 vectors of 384 dimensions need 9600/);
    const metric = Buffer.from(read('ip', 'docs.index', 'index.faiss'));
    metric.writeInt32LE(2, 4 + 4 + 8 * 3 + 1); // METRIC_L1
    expect(troveError(() => parseFaissIndex(metric)).message).toMatch(/metric type 2; Trove reads inner-product \(0\) and L2 \(1\)/);
  });
});

describe('vector scan', () => {
  it('inner products match a plain loop for any dimension', () => {
    for (const d of [1, 3, 4, 7, 384]) {
      const n = 9;
      const vectors = Float32Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.37));
      const q = Float32Array.from({ length: d }, (_, i) => Math.cos(i * 0.11));
      const out = new Float32Array(n);
      innerProducts(vectors, d, n, q, out);
      for (let r = 0; r < n; r++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += vectors[r * d + j]! * q[j]!;
        expect(out[r]).toBeCloseTo(s, 4);
      }
    }
  });

  it('topGroups keeps each group best row and the best groups, as a full sort would', () => {
    const keys = Float32Array.from({ length: 200 }, (_, i) => Math.sin(i * 12.9898) * 43758.5453 % 1);
    const groupOf = Int32Array.from({ length: 200 }, (_, i) => (i * 7) % 61);
    const { hits, matched } = topGroups(keys, groupOf, 64, 10);
    expect(matched).toBe(61);
    const best = new Map<number, { row: number; key: number }>();
    keys.forEach((k, r) => {
      const g = groupOf[r]!;
      if (!best.has(g) || k > best.get(g)!.key) best.set(g, { row: r, key: k });
    });
    const expected = [...best.entries()].sort((a, b) => b[1].key - a[1].key || a[0] - b[0]).slice(0, 10);
    expect(hits.map((h) => [h.group, h.row])).toEqual(expected.map(([g, b]) => [g, b.row]));
    expect(topGroups(keys, groupOf, 64, 0).hits).toEqual([]);
  });
});
