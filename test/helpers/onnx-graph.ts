// A small ONNX writer for the models the tests build themselves (test/helpers/tiny-models.ts):
// a graph of nodes over float/int64 initializers, with named inputs and outputs of symbolic
// shape, encoded field by field with protobufjs as onnx.proto defines them. The same values always
// give the same bytes, so a built model's sha256 can stand in the catalogue.
import protobuf from 'protobufjs/minimal.js';

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const key = (no: number, wire: number): number => (no << 3) | wire;

/** onnx.TensorProto.DataType */
export const FLOAT = 1;
export const INT64 = 7;

export interface Initializer {
  name: string;
  type: typeof FLOAT | typeof INT64;
  dims: number[];
  values: Float32Array | BigInt64Array;
}

export interface GraphNode {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integer attributes (e.g. Cast's `to`, ReduceSum's `keepdims`). */
  ints?: Record<string, number>;
}

export interface GraphIo {
  name: string;
  type: typeof FLOAT | typeof INT64;
  /** A number is a fixed size, a string a named dynamic axis ("batch", "seq"). */
  shape: readonly (number | string)[];
}

export interface Graph {
  name: string;
  nodes: GraphNode[];
  initializers: Initializer[];
  inputs: GraphIo[];
  outputs: GraphIo[];
}

const IR_VERSION = 8;
const OPSET = 17;

export function encodeModel(graph: Graph): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(key(1, WIRE_VARINT)).uint32(IR_VERSION);
  w.uint32(key(2, WIRE_LEN)).string('trove-tests');
  w.uint32(key(7, WIRE_LEN)).fork();
  for (const n of graph.nodes) writeNode(w, n);
  w.uint32(key(2, WIRE_LEN)).string(graph.name);
  for (const t of graph.initializers) writeTensor(w.uint32(key(5, WIRE_LEN)).fork(), t).ldelim();
  for (const io of graph.inputs) writeValueInfo(w, 11, io);
  for (const io of graph.outputs) writeValueInfo(w, 12, io);
  w.ldelim();
  w.uint32(key(8, WIRE_LEN)).fork().uint32(key(2, WIRE_VARINT)).uint32(OPSET).ldelim();
  return w.finish();
}

function writeNode(w: protobuf.Writer, n: GraphNode): void {
  w.uint32(key(1, WIRE_LEN)).fork();
  for (const i of n.inputs) w.uint32(key(1, WIRE_LEN)).string(i);
  for (const o of n.outputs) w.uint32(key(2, WIRE_LEN)).string(o);
  w.uint32(key(4, WIRE_LEN)).string(n.op);
  for (const [name, value] of Object.entries(n.ints ?? {})) {
    // AttributeProto: name 1, i 3, type 20 (INT = 2)
    w.uint32(key(5, WIRE_LEN)).fork().uint32(key(1, WIRE_LEN)).string(name).uint32(key(3, WIRE_VARINT)).int64(value).uint32(key(20, WIRE_VARINT)).uint32(2).ldelim();
  }
  w.ldelim();
}

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian). */
function writeTensor(w: protobuf.Writer, t: Initializer): protobuf.Writer {
  for (const d of t.dims) w.uint32(key(1, WIRE_VARINT)).int64(d);
  w.uint32(key(2, WIRE_VARINT)).uint32(t.type);
  w.uint32(key(8, WIRE_LEN)).string(t.name);
  const raw = new Uint8Array(t.values.byteLength);
  const view = new DataView(raw.buffer);
  t.values.forEach((v: number | bigint, i: number) => (typeof v === 'bigint' ? view.setBigInt64(i * 8, v, true) : view.setFloat32(i * 4, v, true)));
  return w.uint32(key(9, WIRE_LEN)).bytes(raw);
}

/** ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1, shape 2: { dim 1: { dim_value 1 | dim_param 2 } } } } } */
function writeValueInfo(w: protobuf.Writer, field: number, io: GraphIo): void {
  w.uint32(key(field, WIRE_LEN)).fork().uint32(key(1, WIRE_LEN)).string(io.name);
  w.uint32(key(2, WIRE_LEN)).fork().uint32(key(1, WIRE_LEN)).fork().uint32(key(1, WIRE_VARINT)).uint32(io.type);
  w.uint32(key(2, WIRE_LEN)).fork();
  for (const d of io.shape) {
    w.uint32(key(1, WIRE_LEN)).fork();
    if (typeof d === 'number') w.uint32(key(1, WIRE_VARINT)).int64(d);
    else w.uint32(key(2, WIRE_LEN)).string(d);
    w.ldelim();
  }
  w.ldelim().ldelim().ldelim().ldelim();
}
