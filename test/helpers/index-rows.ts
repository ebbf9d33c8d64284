// Rows of an index, read through a storage opened apart from the engine (TestBackend.peek), on
// either backend: for tests that must prove what the engine did (e.g. that an unchanged file was
// not parsed again: its indexedAt did not move). Read-only.
import type { DocumentRow } from '../../src-main/engine/store/documents.js';
import type { Storage } from '../../src-main/engine/store/storage.js';

async function collectionId(storage: Storage, collection: string): Promise<number> {
  const c = await storage.collections.get(collection);
  if (!c) throw new Error(`no collection named ${collection} in ${storage.location}`);
  return c.id;
}

/** Every file's row of a folder collection (indexed, skipped or failed), by path. */
export async function documentRecords(storage: Storage, collection = 'notes'): Promise<Map<string, DocumentRow>> {
  const id = await collectionId(storage, collection);
  const paths = (await storage.documents.fingerprints(id)).map((f) => f.path).sort();
  const rows = await storage.documents.byPaths(id, paths);
  return new Map(paths.map((p) => [p, rows.get(p)!]));
}

/** The chunks a path of the collection has (0 when it has no row). */
export async function chunkCount(storage: Storage, collection: string, path: string): Promise<number> {
  const doc = await storage.documents.byPath(await collectionId(storage, collection), path);
  return doc ? (await storage.chunks.forDocument(doc.id)).length : 0;
}
