// The anchors of a page of hits over the storage interface — each hit's chunk, its document, its
// collection's name and (when snippets are cut) the document's text — read in one round: three
// batch reads side by side, plus one per distinct collection. On PostgreSQL that is the
// difference between a page costing ~4 round trips per hit and ~4 in all (docs/scale-out.md).
import type { ChunkRow } from '../store/chunks.js';
import type { DocumentRow } from '../store/documents.js';
import type { Storage } from '../store/storage.js';

export interface PageAnchor {
  chunk: ChunkRow;
  doc: DocumentRow;
  collection: string;
  /** The document's text ('' when not asked for). */
  text: string;
}

/** Anchors keyed by chunk id; a hit whose chunk or document left the index meanwhile is absent. */
export async function pageAnchors(storage: Storage, hits: readonly { chunkId: number; documentId: number }[], withText: boolean): Promise<Map<number, PageAnchor>> {
  const out = new Map<number, PageAnchor>();
  if (!hits.length) return out;
  const documentIds = hits.map((h) => h.documentId);
  const [chunks, docs, texts] = await Promise.all([
    storage.chunks.byIds(hits.map((h) => h.chunkId)),
    storage.documents.byIds(documentIds),
    withText ? storage.documents.contents(documentIds) : Promise.resolve(new Map<number, string>()),
  ]);
  const collectionIds = [...new Set([...docs.values()].map((d) => d.collectionId))];
  const collections = new Map(await Promise.all(collectionIds.map(async (id) => [id, (await storage.collections.byId(id))?.name ?? ''] as const)));
  for (const h of hits) {
    const chunk = chunks.get(h.chunkId);
    const doc = docs.get(h.documentId);
    if (!chunk || !doc || chunk.documentId !== doc.id) continue;
    out.set(h.chunkId, { chunk, doc, collection: collections.get(doc.collectionId) ?? '', text: texts.get(doc.id) ?? '' });
  }
  return out;
}
