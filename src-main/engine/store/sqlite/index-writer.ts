// Writes one index batch on SQLite, inside the caller's transaction: the same statements the
// indexer has always run (store/documents.ts, store/chunks.ts), the keyword rows of the whole
// batch last (FTS5 flushes its pending terms whenever another statement opens a savepoint).
// Moves and removals check the row is still where the engine saw it, as on PostgreSQL; with one
// writer they always are.
import type { ChunkStore, FtsRow } from '../chunks.js';
import type { DocumentStore } from '../documents.js';
import type { IndexBatch } from '../storage.js';

export function applyIndexBatch(documents: DocumentStore, chunks: ChunkStore, batch: IndexBatch): boolean[] {
  const target = chunks.forIndex(batch.index);
  const fts: FtsRow[] = [];
  const applied = batch.writes.map((w): boolean => {
    switch (w.op) {
      case 'remove': {
        const d = documents.byId(w.documentId);
        if (!d || d.path !== w.path || d.collectionId !== batch.collectionId) return false;
        target.deleteFor(w.documentId);
        documents.delete(w.documentId);
        return true;
      }
      case 'touch':
        documents.touch(w.documentId, w.size, w.mtimeMs);
        return true;
      case 'move': {
        const d = documents.byId(w.documentId);
        if (!d || d.path !== w.from) return false;
        documents.move(w.documentId, w.to, w.size, w.mtimeMs, batch.at);
        return true;
      }
      case 'unindexed': {
        const id = documents.upsert(w.document, batch.at);
        if (w.existingId !== undefined) {
          target.deleteFor(id);
          documents.deleteContent(id);
        }
        return true;
      }
      case 'index': {
        const id = documents.upsert(w.document, batch.at);
        documents.putContent(id, w.text);
        for (const row of target.replaceFor(id, w.chunks, w.existingId === undefined)) fts.push(row);
        return true;
      }
    }
  });
  target.indexText(fts);
  return applied;
}
