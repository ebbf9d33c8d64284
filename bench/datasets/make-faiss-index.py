#!/usr/bin/env python3
"""Writes a FAISS index with faiss.write_index from raw float32 vectors, for bench:datasets.

    python3 bench/datasets/make-faiss-index.py --vectors vectors.f32 --dims 384 --out index.faiss [--type flat-ip|flat-l2|hnsw]

--vectors is n x dims little-endian float32 rows (as bench/datasets-bench.ts exports Trove's own
vectors). Needs faiss-cpu and numpy from PyPI (python3 -m venv /tmp/faiss-venv && /tmp/faiss-venv/bin/pip
install faiss-cpu numpy). Bench only: the product never runs Python.
"""
import argparse

import faiss
import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--vectors', required=True)
    p.add_argument('--dims', type=int, required=True)
    p.add_argument('--out', required=True)
    p.add_argument('--type', default='flat-ip', choices=['flat-ip', 'flat-l2', 'hnsw'])
    a = p.parse_args()
    x = np.fromfile(a.vectors, dtype='<f4').reshape(-1, a.dims)
    if a.type == 'flat-ip':
        index = faiss.IndexFlatIP(a.dims)
    elif a.type == 'flat-l2':
        index = faiss.IndexFlatL2(a.dims)
    else:
        index = faiss.IndexHNSWFlat(a.dims, 32, faiss.METRIC_INNER_PRODUCT)
    index.add(x)
    faiss.write_index(index, a.out)
    print('%s: %d vectors of %d dimensions (faiss %s, %s)' % (a.out, index.ntotal, a.dims, faiss.__version__, a.type))


if __name__ == '__main__':
    main()
