// Reads an index.faiss as faiss.write_index writes it (faiss/impl/index_read.cpp), natively: the
// flat indexes (IndexFlatIP, IndexFlatL2), IndexIDMap / IndexIDMap2 over either, and IndexHNSWFlat
// (whose storage is a flat index holding every vector). Anything else is an error naming the type,
// and a short or inconsistent file is an error saying where it ends, never half an index.
//
// The format: each index starts with a four-character code naming its class, then the common
// header (d: int32, ntotal: int64, two unused int64, is_trained: 1 byte, metric_type: int32, and
// metric_arg: float32 when metric_type > 1), then the class's own fields. A vector is written as
// its length (uint64) followed by its elements. Everything is little-endian (as written on x86 and ARM).
import { TroveError } from '../errors.js';

export type FaissMetric = 'ip' | 'l2';

export interface FaissIndex {
  /** e.g. "IndexFlatIP", "IndexIDMap(IndexFlatL2)", "IndexHNSWFlat(IndexFlatIP)". */
  type: string;
  d: number;
  ntotal: number;
  metric: FaissMetric;
  /** ntotal × d floats, in storage order (row i is the i-th vector added). */
  vectors: Float32Array;
  /** IndexIDMap: the id of each stored vector; null: the id is the row number. */
  ids: Float64Array | null;
  /** IndexHNSWFlat: its graph (hnsw-search.ts walks it for large indexes; small ones are searched exactly). */
  hnsw: HnswGraph | null;
}

/** faiss's HNSW graph as written (faiss/impl/HNSW.h): node i's neighbours at level l are
 *  neighbors[offsets[i] + cum[l] .. offsets[i] + cum[l + 1]), padded with -1. */
export interface HnswGraph {
  /** Cumulative neighbour slots per level. */
  cum: Int32Array;
  /** Levels of each node (its top level + 1). */
  nodeLevels: Int32Array;
  offsets: Float64Array;
  neighbors: Int32Array;
  entryPoint: number;
  /** The graph's top level. */
  maxLevel: number;
  efSearch: number;
}

/** Class names of the fourccs faiss writes, for an error that names what it got. */
const UNSUPPORTED: Record<string, string> = {
  IxHE: 'IndexLSH', IxHe: 'IndexLSH', IxPQ: 'IndexPQ', IxPo: 'IndexPQ', IxPq: 'IndexPQ',
  IxRQ: 'IndexResidualQuantizer', IxRq: 'IndexResidualQuantizer', IxLS: 'IndexLocalSearchQuantizer',
  IxPR: 'IndexProductResidualQuantizer', IxPL: 'IndexProductLocalSearchQuantizer', ImRQ: 'ResidualCoarseQuantizer',
  ILfs: 'IndexLocalSearchQuantizerFastScan', IRfs: 'IndexResidualQuantizerFastScan',
  IPRf: 'IndexProductResidualQuantizerFastScan', IPLf: 'IndexProductLocalSearchQuantizerFastScan',
  IVLf: 'IndexIVFLocalSearchQuantizerFastScan', IVRf: 'IndexIVFResidualQuantizerFastScan',
  NPLf: 'IndexIVFProductLocalSearchQuantizerFastScan', NPRf: 'IndexIVFProductResidualQuantizerFastScan',
  IvFl: 'IndexIVFFlat', IvFL: 'IndexIVFFlat', IwFl: 'IndexIVFFlat', IwFd: 'IndexIVFFlatDedup',
  IxSQ: 'IndexScalarQuantizer', IxLa: 'IndexLattice', IvSQ: 'IndexIVFScalarQuantizer', IwSQ: 'IndexIVFScalarQuantizer',
  IwSq: 'IndexIVFScalarQuantizer', IwLS: 'IndexIVFLocalSearchQuantizer', IwRQ: 'IndexIVFResidualQuantizer',
  IwPL: 'IndexIVFProductLocalSearchQuantizer', IwPR: 'IndexIVFProductResidualQuantizer', IwSh: 'IndexIVFSpectralHash',
  IvPQ: 'IndexIVFPQ', IwPQ: 'IndexIVFPQ', IvQR: 'IndexIVFPQR', IwQR: 'IndexIVFPQR', IwIQ: 'IndexIVFIndependentQuantizer',
  IxPT: 'IndexPreTransform', Imiq: 'MultiIndexQuantizer', IxRF: 'IndexRefine', Ix2L: 'Index2Layer',
  IHNp: 'IndexHNSWPQ', IHNs: 'IndexHNSWSQ', IHN2: 'IndexHNSW2Level', IHNc: 'IndexHNSWCagra',
  INSf: 'IndexNSGFlat', INSp: 'IndexNSGPQ', INSs: 'IndexNSGSQ', INNf: 'IndexNNDescentFlat',
  IPfs: 'IndexPQFastScan', IwPf: 'IndexIVFPQFastScan', IRMf: 'IndexRowwiseMinMax', IRMh: 'IndexRowwiseMinMaxFP16',
  IBxF: 'IndexBinaryFlat', IBwF: 'IndexBinaryIVF', IBFf: 'IndexBinaryFromFloat', IBHf: 'IndexBinaryHNSW',
  IBMp: 'IndexBinaryIDMap', IBM2: 'IndexBinaryIDMap2', IBHh: 'IndexBinaryHash', IBHm: 'IndexBinaryMultiHash',
  null: 'an empty index ("null")',
};

const SUPPORTED = 'IndexFlatIP, IndexFlatL2, IndexIDMap / IndexIDMap2 over either, and IndexHNSWFlat';

/** Vectors and ids beyond this are refused before anything is allocated (a corrupt length). */
const MAX_ROWS = 2 ** 31;

class Cursor {
  at = 0;
  constructor(private readonly buf: Buffer) {}

  get left(): number {
    return this.buf.length - this.at;
  }

  private need(bytes: number, what: string): void {
    if (bytes > this.left) {
      throw formatError(`the file is truncated: ${what} needs ${bytes} bytes at offset ${this.at}, but the file ends at ${this.buf.length}`);
    }
  }

  fourcc(): string {
    this.need(4, 'an index type code');
    const s = this.buf.toString('latin1', this.at, this.at + 4);
    this.at += 4;
    return s;
  }

  i32(what: string): number {
    this.need(4, what);
    const v = this.buf.readInt32LE(this.at);
    this.at += 4;
    return v;
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf[this.at++]!;
  }

  f32(what: string): number {
    this.need(4, what);
    const v = this.buf.readFloatLE(this.at);
    this.at += 4;
    return v;
  }

  /** A 64-bit count or id as a safe integer. */
  i64(what: string): number {
    this.need(8, what);
    const v = this.buf.readBigInt64LE(this.at);
    this.at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw formatError(`${what} is out of range (${v})`);
    return Number(v);
  }

  /** A vector's length prefix, checked against what is left of the file before anything is allocated. */
  length(elementBytes: number, what: string): number {
    const n = this.i64(`the length of ${what}`);
    if (n < 0 || n > MAX_ROWS * 4096) throw formatError(`${what} has an impossible length (${n})`);
    this.need(n * elementBytes, what);
    return n;
  }

  floats(count: number, what: string): Float32Array {
    this.need(count * 4, what);
    const offset = this.buf.byteOffset + this.at;
    this.at += count * 4;
    // a view when aligned (no copy of a large index), else a copy
    if (offset % 4 === 0) return new Float32Array(this.buf.buffer, offset, count);
    return new Float32Array(this.buf.buffer.slice(offset, offset + count * 4));
  }

  int32s(count: number, what: string): Int32Array {
    this.need(count * 4, what);
    const offset = this.buf.byteOffset + this.at;
    this.at += count * 4;
    if (offset % 4 === 0) return new Int32Array(this.buf.buffer, offset, count);
    return new Int32Array(this.buf.buffer.slice(offset, offset + count * 4));
  }

  int64s(count: number, what: string): Float64Array {
    this.need(count * 8, what);
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = this.i64(`${what} #${i}`);
    return out;
  }

  skip(bytes: number, what: string): void {
    this.need(bytes, what);
    this.at += bytes;
  }
}

interface Header {
  d: number;
  ntotal: number;
  metric: FaissMetric;
}

function readHeader(c: Cursor, type: string): Header {
  const d = c.i32(`${type}: the dimension`);
  const ntotal = c.i64(`${type}: the vector count`);
  c.i64(`${type}: header`);
  c.i64(`${type}: header`);
  c.u8(`${type}: is_trained`);
  const metricType = c.i32(`${type}: the metric`);
  if (metricType > 1) c.f32(`${type}: the metric argument`);
  if (d <= 0 || d > 65_536) throw formatError(`${type} has an impossible dimension (${d})`);
  if (ntotal < 0 || ntotal > MAX_ROWS) throw formatError(`${type} has an impossible vector count (${ntotal})`);
  if (metricType !== 0 && metricType !== 1) {
    throw new TroveError('UNAVAILABLE', `${type} uses metric type ${metricType}; Trove reads inner-product (0) and L2 (1) indexes`);
  }
  return { d, ntotal, metric: metricType === 0 ? 'ip' : 'l2' };
}

function readIndex(c: Cursor, depth: number): FaissIndex {
  if (depth > 4) throw formatError('indexes nest too deeply');
  const code = c.fourcc();
  switch (code) {
    case 'IxFI':
    case 'IxF2':
    case 'IxFl': {
      const type = code === 'IxFI' ? 'IndexFlatIP' : code === 'IxF2' ? 'IndexFlatL2' : 'IndexFlat';
      const h = readHeader(c, type);
      const n = c.length(4, `${type}'s vectors`);
      if (n !== h.ntotal * h.d) throw formatError(`${type} holds ${n} floats, but ${h.ntotal} vectors of ${h.d} dimensions need ${h.ntotal * h.d}`);
      const name = code === 'IxFl' ? `IndexFlat(${h.metric === 'ip' ? 'inner product' : 'L2'})` : type;
      return { type: name, ...h, vectors: c.floats(n, `${type}'s vectors`), ids: null, hnsw: null };
    }
    case 'IxMp':
    case 'IxM2': {
      const type = code === 'IxMp' ? 'IndexIDMap' : 'IndexIDMap2';
      const h = readHeader(c, type);
      const inner = readIndex(c, depth + 1);
      if (inner.ids) throw formatError(`${type} over another IndexIDMap is not something faiss writes`);
      const n = c.length(8, `${type}'s ids`);
      if (n !== inner.ntotal || n !== h.ntotal) throw formatError(`${type} maps ${n} ids, but its index holds ${inner.ntotal} vectors`);
      return { ...inner, type: `${type}(${inner.type})`, ids: c.int64s(n, `${type}'s ids`) };
    }
    case 'IHNf': {
      const h = readHeader(c, 'IndexHNSWFlat');
      const hnsw = readHnswGraph(c, h.ntotal);
      const storage = readIndex(c, depth + 1);
      if (storage.ids || storage.hnsw) throw formatError(`IndexHNSWFlat's storage is ${storage.type}, not a flat index`);
      if (storage.ntotal !== h.ntotal || storage.d !== h.d) {
        throw formatError(`IndexHNSWFlat holds ${h.ntotal} vectors of ${h.d} dimensions, but its storage ${storage.ntotal} of ${storage.d}`);
      }
      return { ...storage, type: `IndexHNSWFlat(${storage.type})`, metric: h.metric, hnsw };
    }
    default: {
      const known = UNSUPPORTED[code];
      if (known) throw new TroveError('UNAVAILABLE', `unsupported FAISS index type ${known} (type code "${code}"); Trove reads ${SUPPORTED}`);
      throw formatError(`this is not a FAISS index Trove knows: it starts with the type code "${printable(code)}" (Trove reads ${SUPPORTED})`);
    }
  }
}

/** The HNSW graph's fields (index_read.cpp read_HNSW), checked for consistency. */
function readHnswGraph(c: Cursor, ntotal: number): HnswGraph {
  c.skip(c.length(8, 'the HNSW level probabilities') * 8, 'the HNSW level probabilities');
  const cum = c.int32s(c.length(4, 'the HNSW neighbours per level'), 'the HNSW neighbours per level');
  const levels = c.length(4, 'the HNSW node levels');
  if (levels !== ntotal) throw formatError(`the HNSW graph has levels for ${levels} nodes, but the index holds ${ntotal} vectors`);
  const nodeLevels = c.int32s(levels, 'the HNSW node levels');
  const offsetCount = c.length(8, 'the HNSW offsets');
  if (offsetCount !== ntotal + 1) throw formatError(`the HNSW graph has ${offsetCount} offsets for ${ntotal} vectors`);
  const offsets = c.int64s(offsetCount, 'the HNSW offsets');
  const neighbors = c.int32s(c.length(4, 'the HNSW neighbour lists'), 'the HNSW neighbour lists');
  const entryPoint = c.i32('the HNSW entry point');
  const maxLevel = c.i32('the HNSW top level');
  c.i32('HNSW efConstruction');
  const efSearch = c.i32('HNSW efSearch');
  c.i32('HNSW upper_beam');
  if (offsets[ntotal] !== neighbors.length) throw formatError(`the HNSW graph's offsets end at ${offsets[ntotal]}, but it holds ${neighbors.length} neighbour slots`);
  if (ntotal > 0 && (entryPoint < 0 || entryPoint >= ntotal)) throw formatError(`the HNSW entry point ${entryPoint} is not one of its ${ntotal} vectors`);
  if (maxLevel + 1 >= cum.length) throw formatError(`the HNSW graph's top level ${maxLevel} has no neighbour slots`);
  return { cum, nodeLevels, offsets, neighbors, entryPoint, maxLevel, efSearch };
}

/** Parses a whole index.faiss. Throws UNAVAILABLE with the reason: unsupported type, truncated or inconsistent file. */
export function parseFaissIndex(buf: Buffer): FaissIndex {
  const c = new Cursor(buf);
  return readIndex(c, 0);
}

function formatError(message: string): TroveError {
  return new TroveError('UNAVAILABLE', `index.faiss cannot be read: ${message}`);
}

function printable(code: string): string {
  return [...code].map((ch) => (ch >= ' ' && ch <= '~' ? ch : '?')).join('');
}
