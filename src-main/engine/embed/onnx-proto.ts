// Reading and re-writing ONNX model bytes without a schema: the few protobuf fields the load-time
// rewrites (signed-weights.ts, nan-guards.ts, unmasked.ts) touch, found by field number, with every other byte
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

/** A graph's node, as the rewrites that take nodes out read it. */
export interface GraphNode {
  field: Field;
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
}

export interface ParsedGraph {
  top: Field[];
  graph: Field;
  /** In file order: topological in a valid ONNX graph. */
  nodes: GraphNode[];
  graphOutputs: Set<string>;
}

/**
 * The model's graph as the node rewrites read it; null when the bytes are not an ONNX model (ORT
 * gives the real error when it loads the file) or a node holds subgraphs (If, Loop, Scan), whose
 * reads a walk of the top graph cannot see.
 */
export function parsedGraph(model: Uint8Array): ParsedGraph | null {
  try {
    const { top, graph } = topLevel(model);
    const parsed = graph ? graphNodes(model, graph) : null;
    return graph && parsed ? { top, graph, ...parsed } : null;
  } catch {
    return null; // not a protobuf message
  }
}

function graphNodes(model: Uint8Array, graph: Field): { nodes: GraphNode[]; graphOutputs: Set<string> } | null {
  const nodes: GraphNode[] = [];
  const graphOutputs = new Set<string>();
  for (const g of fields(model, graph.start, graph.end)) {
    if (g.wire !== WIRE_LEN) continue;
    if (g.no === 1) {
      const node: GraphNode = { field: g, opType: '', domain: '', inputs: [], outputs: [] };
      for (const f of fields(model, g.start, g.end)) {
        if (f.no === 1) node.inputs.push(text(model, f));
        else if (f.no === 2) node.outputs.push(text(model, f));
        else if (f.no === 4) node.opType = text(model, f);
        else if (f.no === 7) node.domain = text(model, f);
      }
      nodes.push(node);
    } else if (g.no === 12) {
      for (const f of fields(model, g.start, g.end)) if (f.no === 1 && f.wire === WIRE_LEN) graphOutputs.add(text(model, f));
    }
  }
  return nodes.some((n) => n.opType === 'If' || n.opType === 'Loop' || n.opType === 'Scan') ? null : { nodes, graphOutputs };
}

/** The model without the `removed` nodes, the others reading `renamed` inputs under their new names; every other byte copied. */
export function withoutNodes(model: Uint8Array, top: readonly Field[], graph: Field, nodes: readonly GraphNode[], removed: ReadonlySet<GraphNode>, renamed: ReadonlyMap<string, string>): Uint8Array {
  const byField = new Map(nodes.map((n) => [n.field.tagAt, n]));
  const parts = [...fields(model, graph.start, graph.end)].flatMap((f) => {
    const node = byField.get(f.tagAt);
    if (!node) return [model.subarray(f.tagAt, f.end)];
    if (removed.has(node)) return [];
    if (!node.inputs.some((i) => renamed.has(i))) return [model.subarray(f.tagAt, f.end)];
    return [withRenamedInputs(model, f, renamed)];
  });
  return withGraph(model, top, graph, parts);
}
