// A second, mask-free graph for the runs that have no padding. The embedding stage and queries run
// one text at a time (exact vectors, see onnx-model.ts), so every attention_mask is all ones, and
// the mask's part of the graph — a [batch, 1, seq, seq] bias built from it and added to every
// layer's attention scores — adds zeros: x + 0 is x (a -0 becomes +0, and softmax's exp sees no
// difference). ORT runs it anyway; profiled, 3-4% of a MiniLM run (bench/RESULTS.md). dropAttentionMask
// takes each Add of a mask-derived tensor to the scores feeding a Softmax out, and with it every
// node only that Add needed. Whether the bias is zero for an all-ones mask depends on how the file
// was exported, so model-rewrites.ts keeps the mask-free copy only when it answers bit for bit as
// the full graph does on probe inputs; a run with padding always uses the full graph.
import { fields, text, topLevel, withGraph, withRenamedInputs, WIRE_LEN, type Field } from './onnx-proto.js';

interface Node {
  field: Field;
  opType: string;
  inputs: string[];
  outputs: string[];
}

const MASK_INPUT = 'attention_mask';

/** The graph without the attention mask's bias, or null when it has none this walk recognises. */
export function dropAttentionMask(model: Uint8Array): { bytes: Uint8Array; removed: number } | null {
  try {
    return dropParsed(model);
  } catch {
    return null;
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
      const node: Node = { field: g, opType: '', inputs: [], outputs: [] };
      for (const f of fields(model, g.start, g.end)) {
        if (f.no === 1) node.inputs.push(text(model, f));
        else if (f.no === 2) node.outputs.push(text(model, f));
        else if (f.no === 4) node.opType = text(model, f);
      }
      nodes.push(node);
    } else if (g.no === 12) {
      for (const f of fields(model, g.start, g.end)) if (f.no === 1 && f.wire === WIRE_LEN) graphOutputs.add(text(model, f));
    }
  }
  if (nodes.some((n) => n.opType === 'If' || n.opType === 'Loop' || n.opType === 'Scan')) return null;
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
  const producer = new Map<string, Node>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const removed = new Set<Node>();
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
  const byField = new Map(nodes.map((n) => [n.field.tagAt, n]));
  const parts = [...fields(model, graph.start, graph.end)].flatMap((f) => {
    const node = byField.get(f.tagAt);
    if (!node) return [model.subarray(f.tagAt, f.end)];
    if (removed.has(node)) return [];
    if (!node.inputs.some((i) => renamed.has(i))) return [model.subarray(f.tagAt, f.end)];
    return [withRenamedInputs(model, f, renamed)];
  });
  return { bytes: withGraph(model, top, graph, parts), removed: removed.size };
}
