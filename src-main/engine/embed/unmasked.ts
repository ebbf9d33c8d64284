// A second, mask-free graph for the runs that have no padding. The embedding stage and queries run
// one text at a time (exact vectors, see onnx-model.ts), so every attention_mask is all ones, and
// the mask's part of the graph — a [batch, 1, seq, seq] bias built from it and added to every
// layer's attention scores — adds zeros: x + 0 is x (a -0 becomes +0, and softmax's exp sees no
// difference). ORT runs it anyway; profiled, 3-4% of a MiniLM run (bench/RESULTS.md). dropAttentionMask
// takes each Add of a mask-derived tensor to the scores feeding a Softmax out, and with it every
// node only that Add needed. Whether the bias is zero for an all-ones mask depends on how the file
// was exported, so model-rewrites.ts keeps the mask-free copy only when it answers bit for bit as
// the full graph does on probe inputs; a run with padding always uses the full graph.
import { fields, parsedGraph, text, withoutNodes, type GraphNode } from './onnx-proto.js';

const MASK_INPUT = 'attention_mask';

/** The graph without the attention mask's bias, or null when it has none this walk recognises. */
export function dropAttentionMask(model: Uint8Array): { bytes: Uint8Array; removed: number } | null {
  const parsed = parsedGraph(model);
  if (!parsed) return null;
  const { top, graph, nodes, graphOutputs } = parsed;
  // Nodes come in topological order in a valid ONNX graph: one pass finds what the mask's values
  // reach, and what the other inputs' values reach (a Shape or Size reads only a tensor's shape,
  // which the mask shares). From layer 2 on the scores depend on the mask through the layers
  // before; the bias to take out is what depends on the mask alone.
  const inputs = [...fields(model, graph.start, graph.end)].filter((g) => g.no === 11).map((g) => [...fields(model, g.start, g.end)].find((f) => f.no === 1)).filter((f) => !!f).map((f) => text(model, f));
  if (!inputs.includes(MASK_INPUT)) return null;
  const fromMask = new Set<string>([MASK_INPUT]);
  const fromOthers = new Set<string>(inputs.filter((i) => i !== MASK_INPUT));
  for (const n of nodes) {
    if (n.inputs.some((i) => fromMask.has(i))) for (const o of n.outputs) fromMask.add(o);
    if (n.opType !== 'Shape' && n.opType !== 'Size' && n.inputs.some((i) => fromOthers.has(i))) for (const o of n.outputs) fromOthers.add(o);
  }
  const maskOnly = (name: string): boolean => fromMask.has(name) && !fromOthers.has(name);
  const producer = new Map<string, GraphNode>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const removed = new Set<GraphNode>();
  const renamed = new Map<string, string>();
  for (const softmax of nodes) {
    if (softmax.opType !== 'Softmax') continue;
    const add = producer.get(softmax.inputs[0]!);
    if (!add || add.opType !== 'Add' || add.inputs.length !== 2 || graphOutputs.has(add.outputs[0]!)) continue;
    const bias = add.inputs.map(maskOnly);
    if (bias[0] === bias[1]) continue;
    const scores = add.inputs[bias[0] ? 1 : 0]!;
    if (!fromOthers.has(scores)) continue;
    renamed.set(add.outputs[0]!, scores);
    removed.add(add);
  }
  if (renamed.size === 0) return null;
  // then every node whose outputs nothing reads any more (the mask's subgraph)
  for (let changed = true; changed; ) {
    changed = false;
    const read = new Set<string>(graphOutputs);
    for (const n of nodes) if (!removed.has(n)) for (const i of n.inputs) read.add(renamed.get(i) ?? i);
    for (const n of nodes) {
      if (removed.has(n) || n.outputs.some((o) => read.has(o))) continue;
      removed.add(n);
      changed = true;
    }
  }
  return { bytes: withoutNodes(model, top, graph, nodes, removed, renamed), removed: removed.size };
}
