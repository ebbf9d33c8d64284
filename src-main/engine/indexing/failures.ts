// The files that failed and wait for a retry (or gave up), as `trove failures` and the
// window list them: from the queue's rows, named by collection.
import { FILE_BACKED, type CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';
import type { FailureInfo } from '../types/indexing.js';

export async function failuresOf(storage: Storage, collection: CollectionRow | undefined, limit = 500): Promise<FailureInfo[]> {
  const [rows, collections] = await Promise.all([storage.jobs.failures(collection?.id, limit), storage.collections.list(FILE_BACKED)]);
  const names = new Map(collections.map((c) => [c.id, c.name]));
  return rows.map((j) => ({
    collection: names.get(j.collectionId) ?? String(j.collectionId),
    path: j.path || '.',
    reason: j.lastError ?? 'failed',
    attempts: j.attempts,
    nextRetryAt: j.nextRunAt === null ? null : new Date(j.nextRunAt).toISOString(),
  }));
}
