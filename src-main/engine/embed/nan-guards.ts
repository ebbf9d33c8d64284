// An exact speed-up for ONNX files exported through PyTorch's scaled-dot-product attention (such as
// ../shared/models' all-MiniLM-L6-v2): after every attention Softmax the export adds
// Where(IsNaN(p), 0, p), a guard for rows whose every key is masked (a softmax over -inf alone is
// NaN). A chunk's or a query's row always attends to its own [CLS] and [SEP], so no row is ever
// all masked and the guard never changes a value: Where(IsNaN(p), c, p) is p, bit for bit, wherever
// p holds no NaN. ORT runs it anyway, two passes over [batch, heads, seq, seq] floats a layer:
// profiled, IsNaN and that Where were 8% of a MiniLM run on cpp-docs chunks (bench/RESULTS.md).
// dropNanGuards takes those two nodes out and reads p where the Where's output was read.
import { parsedGraph, withoutNodes, type GraphNode } from './onnx-proto.js';

const isDefaultDomain = (n: GraphNode): boolean => n.domain === '' || n.domain === 'ai.onnx';

/**
 * The model without its softmax NaN guards: each Where(IsNaN(x), c, x) whose IsNaN output feeds
 * only that Where, and whose x comes from a Softmax, is removed and its readers read x. Null when
 * there is none (or the bytes are not an ONNX model, or the graph has subgraphs this walk cannot
 * see into); everything but the removed nodes and the renamed inputs is copied byte for byte.
 */
export function dropNanGuards(model: Uint8Array): { bytes: Uint8Array; removed: number } | null {
  const parsed = parsedGraph(model);
  if (!parsed) return null;
  const { top, graph, nodes, graphOutputs } = parsed;
  const producer = new Map<string, GraphNode>();
  const readers = new Map<string, number>();
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) readers.set(i, (readers.get(i) ?? 0) + 1);
  }
  const removed = new Set<GraphNode>();
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
  return { bytes: withoutNodes(model, top, graph, nodes, removed, renamed), removed: renamed.size };
}
