// How fresh a search result is: when its document was indexed, the file's modified time as
// indexed, `stale` when the file on disk no longer matches what was indexed (or a change is
// queued for it), and `pendingEmbedding` when its chunks still wait for vectors.
import fs from 'node:fs';
import path from 'node:path';
import type { JobStore } from '../store/jobs.js';
import type { Freshness } from '../types/search.js';

export type { Freshness };

/** Tells which of these documents still wait for embeddings; the embedding stage plugs in here. */
export type PendingEmbeddingProbe = (documentIds: readonly number[]) => ReadonlySet<number>;

export function freshnessOf(
  jobs: JobStore,
  documentIds: readonly number[],
  pendingEmbedding: PendingEmbeddingProbe | null,
): Map<number, Freshness> {
  const waiting = pendingEmbedding ? pendingEmbedding(documentIds) : new Set<number>();
  const out = new Map<number, Freshness>();
  for (const f of jobs.freshness(documentIds)) {
    out.set(f.documentId, {
      indexed_at: new Date(f.indexedAt).toISOString(),
      stale: f.pending || changedOnDisk(path.join(f.root, ...f.path.split('/')), f.size, f.mtimeMs),
      pendingEmbedding: waiting.has(f.documentId),
    });
  }
  return out;
}

/** One stat per result: cheap, and it catches changes no watcher reported (e.g. not watching). */
export function changedOnDisk(abs: string, size: number, mtimeMs: number): boolean {
  try {
    const st = fs.statSync(abs);
    return st.size !== size || Math.trunc(st.mtimeMs) !== mtimeMs;
  } catch {
    return true;
  }
}
