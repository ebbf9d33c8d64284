// The load-time rewrites of an ONNX file, each exact (the hidden states stay bit-identical) and
// each faster: int8 weights made signed where this CPU's kernel allows it (signed-weights.ts) and
// the softmax NaN guards taken out (nan-guards.ts); and a mask-free copy for runs without padding
// (unmasked.ts), kept only when it answers bit for bit as the full graph. The file on disk, its
// sha256 and the vector space stay as they are. A pool makes the rewritten files once in a cache
// folder, in a thread of its own (model-prepare.ts), so its workers load paths (preparedModelFile);
// a worker without them rewrites in memory (modelSource), without the mask-free copy.
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { dropNanGuards } from './nan-guards.js';
import { dropAttentionMask } from './unmasked.js';
import { probeSignedKernel, shiftWeightsToSigned } from './signed-weights.js';

export interface RewriteOptions {
  /** The file is an int8 variant: its uint8 weights may be made signed. */
  quantized: boolean;
  /** Allow that rewrite (TROVE_ONNX_SIGNED_WEIGHTS=0 turns it off). */
  signedWeights: boolean;
}

/** Bumped whenever the set of rewrites changes, so a cached file made by an older set is not loaded. */
const REWRITES_VERSION = 2;
const MASK = 'attention_mask';

async function signedAllowed(opts: RewriteOptions): Promise<boolean> {
  return opts.quantized && opts.signedWeights && (await probeSignedKernel());
}

/** The model's bytes with every rewrite that applies (in place where it can: pass a buffer of your own), or null when none does. */
export async function rewriteModel(bytes: Uint8Array, opts: RewriteOptions): Promise<{ bytes: Uint8Array; applied: string[] } | null> {
  const applied: string[] = [];
  let out = bytes;
  if (await signedAllowed(opts)) {
    const shifted = shiftWeightsToSigned(out, { inPlace: true });
    if (shifted) {
      out = shifted.bytes;
      applied.push('signed');
    }
  }
  const unguarded = dropNanGuards(out);
  if (unguarded) {
    out = unguarded.bytes;
    applied.push('nanless');
  }
  return applied.length ? { bytes: out, applied } : null;
}

/** What a worker hands ORT: an int8 file's rewritten bytes (already read, so ORT need not read it again), or the path. */
export async function modelSource(file: string, opts: RewriteOptions): Promise<string | Uint8Array> {
  if (!opts.quantized) return file; // an fp32 file is large; only a pool's prepared copy rewrites it
  return (await rewriteModel(await fs.promises.readFile(file), opts))?.bytes ?? file;
}

/** Files a pool's workers load: the graph for every run, and (embedders) the mask-free one for runs without padding. */
export interface PreparedModel {
  file: string;
  unmasked: string | null;
}

/**
 * The files workers should load: the rewritten copy in `cacheDir` (made once, named by the
 * original's sha256 and the rewrite set, written whole then renamed into place; older copies of
 * the same file are removed), or the file itself when no rewrite applies; and beside it the
 * mask-free copy (unmasked.ts) when it answers exactly as the full graph does here. A pool runs
 * this in a thread of its own (model-prepare.ts), so no model worker holds the rewrite's buffers;
 * rejects when a copy cannot be written (the workers then rewrite it themselves).
 */
export async function preparedModelFile(file: string, sha256: string, cacheDir: string, opts: RewriteOptions): Promise<PreparedModel> {
  const base = `${sha256}.r${REWRITES_VERSION}${(await signedAllowed(opts)) ? '' : '-unsigned'}`;
  const out = path.join(cacheDir, `${base}.onnx`);
  const unmaskedOut = path.join(cacheDir, `${base}.unmasked.onnx`);
  const noUnmasked = path.join(cacheDir, `${base}.unmasked.none`); // the probe said no: not tried again
  if (fs.existsSync(out) && (fs.existsSync(unmaskedOut) || fs.existsSync(noUnmasked))) return { file: out, unmasked: fs.existsSync(unmaskedOut) ? unmaskedOut : null };
  const original = await fs.promises.readFile(file);
  const rewritten = (await rewriteModel(original, opts))?.bytes ?? original;
  const dropped = dropAttentionMask(rewritten);
  const unmasked = dropped && (await answersAlike(rewritten, dropped.bytes)) ? dropped.bytes : null;
  if (rewritten === original && !dropped) return { file, unmasked: null }; // nothing to rewrite or probe: nothing written
  await fs.promises.mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const kept = new Set<string>();
  const write = async (to: string, bytes: Uint8Array) => {
    const tmp = `${to}.${process.pid}-${Date.now()}.tmp`;
    await fs.promises.writeFile(tmp, bytes, { mode: 0o600 });
    await fs.promises.rename(tmp, to);
    kept.add(path.basename(to));
  };
  await write(out, rewritten);
  if (unmasked) await write(unmaskedOut, unmasked);
  else await write(noUnmasked, new Uint8Array());
  for (const old of await fs.promises.readdir(cacheDir)) {
    if (!kept.has(old) && old.startsWith(`${sha256}.`) && !old.endsWith('.tmp')) await fs.promises.rm(path.join(cacheDir, old), { force: true });
  }
  return { file: out, unmasked: unmasked ? unmaskedOut : null };
}

/** Probe texts' lengths: short, middling, and longer than one SIMD block of every kernel. */
const PROBE_LENGTHS = [3, 17, 70];

/** Whether the two graphs give bit-identical outputs for unpadded inputs (all-ones masks) on this machine. */
async function answersAlike(full: Uint8Array, unmasked: Uint8Array): Promise<boolean> {
  const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };
  const sessions: ort.InferenceSession[] = [];
  try {
    sessions.push(await ort.InferenceSession.create(full, options), await ort.InferenceSession.create(unmasked, options));
    for (const seq of PROBE_LENGTHS) {
      // ids any vocabulary of an embedding model holds, varied so activations are not uniform
      const ids = BigInt64Array.from({ length: seq }, (_, i) => BigInt(1000 + ((i * 7919) % 997)));
      const feeds = (s: ort.InferenceSession): Record<string, ort.Tensor> => Object.fromEntries(s.inputNames.map((name) => [
        name,
        new ort.Tensor('int64', name === 'input_ids' ? ids : name === MASK ? new BigInt64Array(seq).fill(1n) : new BigInt64Array(seq), [1, seq]),
      ]));
      const [a, b] = await Promise.all(sessions.map((s) => s.run(feeds(s))));
      for (const name of sessions[0]!.outputNames) {
        const x = a![name]!.data as Float32Array;
        const y = b![name]?.data as Float32Array | undefined;
        if (!y || x.length !== y.length || x.some((v, i) => !Object.is(v, y[i]))) return false;
      }
    }
    return true;
  } catch {
    return false; // a graph the probe cannot feed (other inputs, another id range): keep the full one only
  } finally {
    await Promise.all(sessions.map((s) => s.release()));
  }
}
