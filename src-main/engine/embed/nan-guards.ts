// An exact speed-up for ONNX files exported through PyTorch's scaled-dot-product attention (such as
// ../shared/models' all-MiniLM-L6-v2): after every attention Softmax the export adds
// Where(IsNaN(p), 0, p), a guard for rows whose every key is masked (a softmax over -inf alone is
// NaN). A chunk's or a query's row always attends to its own [CLS] and [SEP], so no row is ever
// all masked and the guard never changes a value: Where(IsNaN(p), c, p) is p, bit for bit, wherever
// p holds no NaN. ORT runs it anyway, two passes over [batch, heads, seq, seq] floats a layer:
// profiled, IsNaN and that Where were 8% of a MiniLM run on cpp-docs chunks (bench/RESULTS.md).
// dropNanGuards takes those two nodes out and reads p where the Where's output was read.
import { fields, text, topLevel, withGraph, withRenamedInputs, WIRE_LEN, type Field } from './onnx-proto.js';

interface Node {
  field: Field;
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
}

const isDefaultDomain = (n: Node): boolean => n.domain === '' || n.domain === 'ai.onnx';

/**
 * The model without its softmax NaN guards: each Where(IsNaN(x), c, x) whose IsNaN output feeds
 * only that Where, and whose x comes from a Softmax, is removed and its readers read x. Null when
 * there is none (or the bytes are not an ONNX model, or the graph has subgraphs this walk cannot
 * see into); everything but the removed nodes and the renamed inputs is copied byte for byte.
 */
export function dropNanGuards(model: Uint8Array): { bytes: Uint8Array; removed: number } | null {
  try {
    return dropParsed(model);
  } catch {
    return null; // not a protobuf message: ORT gives the real error when it loads the file
  }
}

function dropParsed(model: Uint8Array): { bytes: Uint8Array; removed: number } | null {
  const { top, graph } = topLevel(model);
  if (!graph) return null;
  const nodes: Node[] = [];
  const graphOutputs = new Set<string>();
  for (const g of fields(model, graph.start, graph.end)) {
    if (g.wire !== WIRE_LEN) continue;
    if (g.no === 1) {
      const node: Node = { field: g, opType: '', domain: '', inputs: [], outputs: [] };
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
  if (nodes.some((n) => n.opType === 'If' || n.opType === 'Loop' || n.opType === 'Scan')) return null;
  const producer = new Map<string, Node>();
  const readers = new Map<string, number>();
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) readers.set(i, (readers.get(i) ?? 0) + 1);
  }
  const removed = new Set<Node>();
  const renamed = new Map<string, string>();
  for (const where of nodes) {
    if (where.opType !== 'Where' || !isDefaultDomain(where) || where.inputs.length !== 3 || where.outputs.length !== 1) continue;
    const [cond, , x] = where.inputs as [string, string, string];
    const isNaN = producer.get(cond);
    const softmax = producer.get(x);
    if (!isNaN || isNaN.opType !== 'IsNaN' || !isDefaultDomain(isNaN) || isNaN.inputs[0] !== x || readers.get(cond) !== 1) continue;
    if (!softmax || softmax.opType !== 'Softmax' || !isDefaultDomain(softmax)) continue;
    if (graphOutputs.has(where.outputs[0]!) || graphOutputs.has(cond)) continue;
    removed.add(where).add(isNaN);
    renamed.set(where.outputs[0]!, x);
  }
  if (renamed.size === 0) return null;
  // the guards' fill values: Constant nodes only they read go too (else ORT warns they are unused)
  const fills = new Set([...removed].filter((n) => n.opType === 'Where').map((n) => n.inputs[1]!));
  for (const n of nodes) {
    if (n.opType !== 'Constant' || n.outputs.length !== 1 || !fills.has(n.outputs[0]!) || graphOutputs.has(n.outputs[0]!)) continue;
    if (!nodes.some((r) => !removed.has(r) && r.inputs.includes(n.outputs[0]!))) removed.add(n);
  }
  const byField = new Map(nodes.map((n) => [n.field.tagAt, n]));
  const parts = [...fields(model, graph.start, graph.end)].flatMap((f) => {
    const node = byField.get(f.tagAt);
    if (!node) return [model.subarray(f.tagAt, f.end)];
    if (removed.has(node)) return [];
    if (!node.inputs.some((i) => renamed.has(i))) return [model.subarray(f.tagAt, f.end)];
    return [withRenamedInputs(model, f, renamed)];
  });
  return { bytes: withGraph(model, top, graph, parts), removed: renamed.size };
}
