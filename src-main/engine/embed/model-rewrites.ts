// The load-time rewrites of an ONNX file, each exact (the hidden states stay bit-identical) and
// each faster: int8 weights made signed where this CPU's kernel allows it (signed-weights.ts) and
// the softmax NaN guards taken out (nan-guards.ts). The file on disk, its sha256 and the vector
// space stay as they are. A pool makes the rewritten file once in a cache folder, so its workers
// load a path (preparedModelFile); a worker without one rewrites in memory (modelSource).
import fs from 'node:fs';
import path from 'node:path';
import { dropNanGuards } from './nan-guards.js';
import { probeSignedKernel, shiftWeightsToSigned } from './signed-weights.js';

export interface RewriteOptions {
  /** The file is an int8 variant: its uint8 weights may be made signed. */
  quantized: boolean;
  /** Allow that rewrite (TROVE_ONNX_SIGNED_WEIGHTS=0 turns it off). */
  signedWeights: boolean;
}

/** Bumped whenever the set of rewrites changes, so a cached file made by an older set is not loaded. */
const REWRITES_VERSION = 2;

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

/**
 * The file workers should load: the rewritten copy in `cacheDir` (made once, named by the
 * original's sha256 and the rewrite set, written whole then renamed into place; older copies of
 * the same file are removed), or the file itself when no rewrite applies. Made in the caller's
 * thread, so no worker holds the rewrite's buffers; rejects when the copy cannot be written (the
 * workers then rewrite it themselves).
 */
export async function preparedModelFile(file: string, sha256: string, cacheDir: string, opts: RewriteOptions): Promise<string> {
  const name = `${sha256}.r${REWRITES_VERSION}${(await signedAllowed(opts)) ? '' : '-unsigned'}.onnx`;
  const out = path.join(cacheDir, name);
  if (fs.existsSync(out)) return out;
  const rewritten = await rewriteModel(await fs.promises.readFile(file), opts);
  if (!rewritten) return file;
  await fs.promises.mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const tmp = `${out}.${process.pid}-${Date.now()}.tmp`;
  await fs.promises.writeFile(tmp, rewritten.bytes, { mode: 0o600 });
  await fs.promises.rename(tmp, out);
  for (const old of await fs.promises.readdir(cacheDir)) {
    if (old !== name && old.startsWith(`${sha256}.`) && old.endsWith('.onnx')) await fs.promises.rm(path.join(cacheDir, old), { force: true });
  }
  return out;
}
