// Reading and re-writing ONNX model bytes without a schema: the few protobuf fields the load-time
// rewrites (signed-weights.ts, nan-guards.ts) touch, found by field number, with every other byte
// copied as it is. Field numbers are onnx.proto's: ModelProto.graph 7; GraphProto node 1,
// initializer 5, input 11, output 12, value_info 13; NodeProto input 1, output 2, op_type 4,
// domain 7; TensorProto data_type 2, int32_data 5, name 8, raw_data 9, data_location 14;
// ValueInfoProto name 1.
import protobuf from 'protobufjs/minimal.js';

export const WIRE_VARINT = 0;
export const WIRE_LEN = 2;

export interface Field {
  no: number;
  wire: number;
  /** Where the field's tag starts: [tagAt, end) is the whole field, to copy it unchanged. */
  tagAt: number;
  /** Byte range of the value (for length-delimited fields, without the length prefix). */
  start: number;
  end: number;
}

/** The fields of one protobuf message in buf[start, end), with absolute offsets. */
export function* fields(buf: Uint8Array, start: number, end: number): Generator<Field> {
  const r = protobuf.Reader.create(buf.subarray(start, end));
  while (r.pos < r.len) {
    const tagAt = start + r.pos;
    const tag = r.uint32();
    const wire = tag & 7;
    if (wire === WIRE_LEN) {
      const len = r.uint32();
      const s = r.pos;
      r.skip(len);
      yield { no: tag >>> 3, wire, tagAt, start: start + s, end: start + s + len };
    } else {
      const s = r.pos;
      r.skipType(wire);
      yield { no: tag >>> 3, wire, tagAt, start: start + s, end: start + r.pos };
    }
  }
}

const utf8 = new TextDecoder();
export const text = (buf: Uint8Array, f: Field): string => utf8.decode(buf.subarray(f.start, f.end));
export const varint = (buf: Uint8Array, f: Field): number => protobuf.Reader.create(buf.subarray(f.start, f.end)).uint32();
export const key = (no: number, wire: number): number => (no << 3) | wire;

/** A length-delimited field `no` holding body. */
export function lengthDelimited(no: number, body: Uint8Array): Uint8Array {
  return Buffer.concat([protobuf.Writer.create().uint32(key(no, WIRE_LEN)).uint32(body.length).finish(), body]);
}

/** The model's top-level fields and its graph field (null when it has none: not an ONNX model). */
export function topLevel(model: Uint8Array): { top: Field[]; graph: Field | null } {
  const top = [...fields(model, 0, model.length)];
  return { top, graph: top.find((f) => f.no === 7 && f.wire === WIRE_LEN) ?? null };
}

/** The model with its graph's fields replaced by `graphParts` (each a whole field, tag included); the other top-level fields copied. */
export function withGraph(model: Uint8Array, top: readonly Field[], graph: Field, graphParts: readonly Uint8Array[]): Uint8Array {
  const graphLength = graphParts.reduce((n, p) => n + p.length, 0);
  const graphHeader = protobuf.Writer.create().uint32(key(7, WIRE_LEN)).uint32(graphLength).finish();
  return Buffer.concat(top.flatMap((f) => (f === graph ? [graphHeader, ...graphParts] : [model.subarray(f.tagAt, f.end)])));
}

/** The node field `node` re-encoded with its inputs renamed; its other fields copied in their order. */
export function withRenamedInputs(model: Uint8Array, node: Field, renamed: ReadonlyMap<string, string>): Uint8Array {
  const body = [...fields(model, node.start, node.end)].map((f) => {
    const to = f.no === 1 ? renamed.get(text(model, f)) : undefined;
    return to === undefined ? model.subarray(f.tagAt, f.end) : protobuf.Writer.create().uint32(key(1, WIRE_LEN)).string(to).finish();
  });
  return lengthDelimited(1, Buffer.concat(body));
}
