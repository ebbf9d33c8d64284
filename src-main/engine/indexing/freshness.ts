// How fresh a search result is: when its document was indexed, the file's modified time as
// indexed, `stale` when the file on disk no longer matches what was indexed (or a change is
// queued for it), and `pendingEmbedding` when its chunks still wait for vectors.
import fs from 'node:fs';
import path from 'node:path';
import type { Storage } from '../store/storage.js';
import type { Freshness } from '../types/search.js';

export type { Freshness };

export async function freshnessOf(storage: Storage, documentIds: readonly number[]): Promise<Map<number, Freshness>> {
  const out = new Map<number, Freshness>();
  if (!documentIds.length) return out;
  const [rows, waiting] = await Promise.all([storage.jobs.freshness(documentIds), storage.vectors.documentsPending(documentIds)]);
  for (const f of rows) {
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
