// An exact speed-up for int8 ONNX files whose weights are stored as uint8 (per-channel QUInt8
// conversions such as ../shared/models' all-MiniLM-L6-v2; the catalogue's public all-MiniLM-L6-v2
// file and multilingual-e5-small's already have int8 weights, and are left as they are).
//
// ORT's x86 kernels multiply the uint8 activations by int8 weights with VNNI dot products, but
// uint8 x uint8 goes through a widening AVX-512/AVX2 path at about half the speed; profiled, the
// MatMulInteger family is two thirds of a MiniLM run. MatMulInteger computes
// sum((a - a_zp) * (w - w_zp)), so shifting a weight tensor and its zero points by -128 (in bytes:
// flipping the top bit) turns them into int8 without changing any product: the hidden states are
// bit-identical (tested) and a run is ~1.65x faster (bench/RESULTS.md).
//
// The shift is only made where the int8 kernel is exact: before VNNI, x86 kernels add u8 x s8
// pairs in saturating 16-bit lanes (vpmaddubsw) and would change results. probeSignedKernel
// multiplies extreme values on this machine's ORT once per process and checks them; other
// architectures are left as they are (their kernels were not measured).
import * as ort from 'onnxruntime-node';
import protobuf from 'protobufjs/minimal.js';
import { type Field, fields, key, lengthDelimited, text, topLevel, varint, withGraph, WIRE_LEN, WIRE_VARINT } from './onnx-proto.js';

const UINT8 = 2;
const INT8 = 3;
const INT32 = 6;

interface Node {
  opType: string;
  domain: string;
  inputs: string[];
}

interface Initializer {
  field: Field;
  dataType: number;
  /** Where data_type's varint lies (to change it in place). */
  typeField: Field | null;
  external: boolean;
  /** Its values as stored: raw_data bytes, or int32_data fields (packed or one per value). */
  raw: Field | null;
  int32: Field[];
}

// field numbers: see onnx-proto.ts
function readGraph(buf: Uint8Array, graph: Field): { nodes: Node[]; inits: Map<string, Initializer>; declared: Set<string> } {
  const nodes: Node[] = [];
  const inits = new Map<string, Initializer>();
  const declared = new Set<string>();
  for (const g of fields(buf, graph.start, graph.end)) {
    if (g.wire !== WIRE_LEN) continue;
    if (g.no === 1) {
      const node: Node = { opType: '', domain: '', inputs: [] };
      for (const f of fields(buf, g.start, g.end)) {
        if (f.no === 1) node.inputs.push(text(buf, f));
        else if (f.no === 4) node.opType = text(buf, f);
        else if (f.no === 7) node.domain = text(buf, f);
      }
      nodes.push(node);
    } else if (g.no === 5) {
      let name = '';
      const init: Initializer = { field: g, dataType: 0, typeField: null, external: false, raw: null, int32: [] };
      for (const f of fields(buf, g.start, g.end)) {
        if (f.no === 8) name = text(buf, f);
        else if (f.no === 2 && f.wire === WIRE_VARINT) {
          init.dataType = varint(buf, f);
          init.typeField = f;
        }
        else if (f.no === 5) init.int32.push(f);
        else if (f.no === 9 && f.wire === WIRE_LEN) init.raw = f;
        else if (f.no === 14 && f.wire === WIRE_VARINT) init.external = varint(buf, f) === 1;
      }
      inits.set(name, init);
    } else if (g.no === 11 || g.no === 12 || g.no === 13) {
      for (const f of fields(buf, g.start, g.end)) if (f.no === 1 && f.wire === WIRE_LEN) declared.add(text(buf, f));
    }
  }
  return { nodes, inits, declared };
}

/** Names of the uint8 tensors that only ever serve as a MatMulInteger's weight (input 1) or its zero point (input 3). */
function weightsToShift(nodes: Node[], inits: Map<string, Initializer>, declared: Set<string>): Set<string> {
  // subgraphs could use these tensors out of sight of this walk
  if (nodes.some((n) => n.opType === 'If' || n.opType === 'Loop' || n.opType === 'Scan')) return new Set();
  const eligible = (name: string | undefined): boolean => {
    const t = name ? inits.get(name) : undefined;
    return !!t && t.dataType === UINT8 && !t.external && (!!t.raw || t.int32.length > 0) && !declared.has(name!);
  };
  const isMatMulInteger = (n: Node): boolean => n.opType === 'MatMulInteger' && (n.domain === '' || n.domain === 'ai.onnx');
  const candidates = new Set(nodes.filter((n) => isMatMulInteger(n) && eligible(n.inputs[1]) && eligible(n.inputs[3])));
  const names = new Set([...candidates].flatMap((n) => [n.inputs[1]!, n.inputs[3]!]));
  // a tensor read anywhere else (another op, or a MatMulInteger's activation side) stays as it is
  for (const n of nodes) {
    n.inputs.forEach((name, i) => {
      if (!(candidates.has(n) && (i === 1 || i === 3))) names.delete(name);
    });
  }
  // a node shifts both its weight and its zero point or neither; dropping one can drop others
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of candidates) {
      if (names.has(n.inputs[1]!) && names.has(n.inputs[3]!)) continue;
      candidates.delete(n);
      names.delete(n.inputs[1]!);
      names.delete(n.inputs[3]!);
      changed = true;
    }
  }
  return names;
}

/** Flips the top bit of every byte in place, four bytes at a time where the range is aligned for it. */
function flipTopBits(bytes: Uint8Array): void {
  const lead = Math.min(bytes.length, (4 - (bytes.byteOffset % 4)) % 4);
  for (let i = 0; i < lead; i++) bytes[i]! ^= 0x80;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + lead, (bytes.length - lead) >>> 2);
  for (let i = 0; i < words.length; i++) words[i]! ^= 0x80808080;
  for (let i = lead + words.length * 4; i < bytes.length; i++) bytes[i]! ^= 0x80;
}

/** The tensor's uint8 values as int8 shifted by -128 (the top bit flipped). */
function shiftedValues(buf: Uint8Array, t: Initializer): Uint8Array {
  if (t.raw) {
    const out = new Uint8Array(buf.subarray(t.raw.start, t.raw.end)); // a copy with its own aligned buffer: flip four bytes at a time
    const words = new Uint32Array(out.buffer, out.byteOffset, out.length >>> 2);
    for (let i = 0; i < words.length; i++) words[i]! ^= 0x80808080;
    for (let i = words.length * 4; i < out.length; i++) out[i]! ^= 0x80;
    return out;
  }
  const values: number[] = [];
  for (const f of t.int32) {
    if (f.wire === WIRE_VARINT) values.push(varint(buf, f));
    else for (const r = protobuf.Reader.create(buf.subarray(f.start, f.end)); r.pos < r.len; ) values.push(r.int32());
  }
  return Uint8Array.from(values, (v) => (v & 0xff) ^ 0x80);
}

/** The tensor re-encoded as int8 with raw_data; its other fields (name, dims, ...) are copied as they are. */
function shiftedTensor(buf: Uint8Array, t: Initializer): Uint8Array {
  const kept = [...fields(buf, t.field.start, t.field.end)].filter((f) => f.no !== 2 && f.no !== 5 && f.no !== 9).map((f) => buf.subarray(f.tagAt, f.end));
  const data = protobuf.Writer.create().uint32(key(2, WIRE_VARINT)).uint32(INT8).uint32(key(9, WIRE_LEN)).bytes(shiftedValues(buf, t)).finish();
  return lengthDelimited(5, Buffer.concat([...kept, data]));
}


/**
 * The model with every uint8 weight of a MatMulInteger (input B) and its zero point (input 3)
 * stored as int8 shifted by -128, or null when there is nothing to shift. A tensor is only
 * shifted when every use of it is such an input and it is a plain initializer (not external, not
 * a declared graph input or value); everything else is copied byte for byte.
 */
export function shiftWeightsToSigned(model: Uint8Array, opts: { inPlace?: boolean } = {}): { bytes: Uint8Array; tensors: number } | null {
  try {
    return shiftParsed(model, opts.inPlace ?? false);
  } catch {
    return null; // not a protobuf message: ORT gives the real error when it loads the file
  }
}

function shiftParsed(model: Uint8Array, inPlace: boolean): { bytes: Uint8Array; tensors: number } | null {
  const { top, graph } = topLevel(model);
  if (!graph) return null;
  const { nodes, inits, declared } = readGraph(model, graph);
  const names = weightsToShift(nodes, inits, declared);
  if (names.size === 0) return null;
  // In place (the caller's own buffer): a raw_data tensor keeps its length as int8, and UINT8 (2)
  // becomes INT8 (3) in the same one-byte varint, so it is changed where it lies; only tensors in
  // int32_data (zero points: a few bytes) are re-encoded, and the model is copied once, not three
  // times (a worker that made those 23 MB copies kept ~60 MB more for good: bench/RESULTS.md).
  const flippable = (t: Initializer) => inPlace && !!t.raw && !!t.typeField && t.typeField.end - t.typeField.start === 1;
  const reencoded = new Map<number, Initializer>();
  for (const n of names) {
    const t = inits.get(n)!;
    if (flippable(t)) {
      model[t.typeField!.start] = INT8;
      flipTopBits(model.subarray(t.raw!.start, t.raw!.end));
    } else reencoded.set(t.field.tagAt, t);
  }
  if (reencoded.size === 0) return { bytes: model, tensors: names.size };
  const graphParts = [...fields(model, graph.start, graph.end)].map((f) => {
    const t = reencoded.get(f.tagAt);
    return t ? shiftedTensor(model, t) : model.subarray(f.tagAt, f.end);
  });
  return { bytes: withGraph(model, top, graph, graphParts), tensors: names.size };
}

/** A one-node model Y = MatMulInteger(A, B) with A uint8 [m, k] fed at run time and B an int8 initializer. */
export function matMulIntegerModel(m: number, k: number, n: number, b: Int8Array): Uint8Array {
  const w = protobuf.Writer.create();
  const tensorType = (elemType: number, dims: number[]): void => {
    w.uint32(key(2, WIRE_LEN)).fork(); // ValueInfoProto.type
    w.uint32(key(1, WIRE_LEN)).fork(); // TypeProto.tensor_type
    w.uint32(key(1, WIRE_VARINT)).uint32(elemType);
    w.uint32(key(2, WIRE_LEN)).fork(); // shape
    for (const d of dims) w.uint32(key(1, WIRE_LEN)).fork().uint32(key(1, WIRE_VARINT)).uint32(d).ldelim();
    w.ldelim().ldelim().ldelim();
  };
  w.uint32(key(1, WIRE_VARINT)).uint32(8); // ir_version
  w.uint32(key(8, WIRE_LEN)).fork().uint32(key(2, WIRE_VARINT)).uint32(17).ldelim(); // opset 17
  w.uint32(key(7, WIRE_LEN)).fork(); // graph
  w.uint32(key(1, WIRE_LEN)).fork().uint32(key(1, WIRE_LEN)).string('A').uint32(key(1, WIRE_LEN)).string('B').uint32(key(2, WIRE_LEN)).string('Y').uint32(key(4, WIRE_LEN)).string('MatMulInteger').ldelim();
  w.uint32(key(2, WIRE_LEN)).string('probe');
  w.uint32(key(5, WIRE_LEN)).fork().uint32(key(1, WIRE_VARINT)).uint32(k).uint32(key(1, WIRE_VARINT)).uint32(n).uint32(key(2, WIRE_VARINT)).uint32(INT8).uint32(key(8, WIRE_LEN)).string('B').uint32(key(9, WIRE_LEN)).bytes(new Uint8Array(b.buffer, b.byteOffset, b.length)).ldelim();
  w.uint32(key(11, WIRE_LEN)).fork().uint32(key(1, WIRE_LEN)).string('A');
  tensorType(UINT8, [m, k]);
  w.ldelim();
  w.uint32(key(12, WIRE_LEN)).fork().uint32(key(1, WIRE_LEN)).string('Y');
  tensorType(INT32, [m, n]);
  w.ldelim();
  w.ldelim();
  return w.finish();
}

/** The exact product of uint8 a [m, k] and int8 b [k, n]. */
export function exactProduct(a: Uint8Array, b: Int8Array, m: number, k: number, n: number): Int32Array {
  const y = new Int32Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let t = 0; t < k; t++) s += a[i * k + t]! * b[t * n + j]!;
    y[i * n + j] = s;
  }
  return y;
}

/** Operands that overflow 16-bit pair sums: 255 x 127 and 255 x -128 side by side, then mixed values. */
export function probeOperands(m: number, k: number, n: number): { a: Uint8Array; b: Int8Array } {
  const a = new Uint8Array(m * k);
  const b = new Int8Array(k * n);
  let seed = 12345;
  const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 16;
  for (let i = 0; i < a.length; i++) a[i] = i % 3 === 2 ? next() & 255 : 255;
  for (let t = 0; t < k; t++) for (let j = 0; j < n; j++) b[t * n + j] = j % 4 === 0 ? 127 : j % 4 === 1 ? -128 : j % 4 === 2 ? (next() & 255) - 128 : t % 2 ? 127 : -128;
  return { a, b };
}

async function signedKernelExact(): Promise<boolean> {
  const k = 64;
  const n = 32;
  for (const m of [1, 8]) {
    const { a, b } = probeOperands(m, k, n);
    const session = await ort.InferenceSession.create(matMulIntegerModel(m, k, n, b), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    try {
      const y = (await session.run({ A: new ort.Tensor('uint8', a, [m, k]) })).Y!.data as Int32Array;
      const want = exactProduct(a, b, m, k, n);
      if (y.length !== want.length || y.some((v, i) => v !== want[i])) return false;
    } finally {
      await session.release();
    }
  }
  return true;
}

let probe: Promise<boolean> | undefined;

/** Whether this machine's ORT multiplies uint8 by int8 exactly and fast (x64 only; once per process). */
export function probeSignedKernel(): Promise<boolean> {
  if (process.arch !== 'x64') return Promise.resolve(false);
  probe ??= signedKernelExact().catch(() => false);
  return probe;
}
