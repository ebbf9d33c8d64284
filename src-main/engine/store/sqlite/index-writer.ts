// Writes one index batch on SQLite, inside the caller's transaction: the same statements the
// indexer has always run (store/documents.ts, store/chunks.ts), the keyword rows of the whole
// batch last (FTS5 flushes its pending terms whenever another statement opens a savepoint).
// Moves and removals check the row is still where the engine saw it, as on PostgreSQL; with one
// writer they always are.
import type { ChunkStore, FtsRow } from '../chunks.js';
import type { DocumentStore } from '../documents.js';
import type { AttachmentWrite, IndexBatch } from '../storage.js';
import type { OcrRows } from './ocr.js';

export function applyIndexBatch(documents: DocumentStore, chunks: ChunkStore, ocr: OcrRows, batch: IndexBatch): boolean[] {
  const target = chunks.forIndex(batch.index);
  const fts: FtsRow[] = [];
  const applied = batch.writes.map((w): boolean => {
    switch (w.op) {
      case 'remove': {
        const d = documents.byId(w.documentId);
        if (!d || d.path !== w.path || d.collectionId !== batch.collectionId) return false;
        dropChildren(documents, target, w.documentId);
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
        documents.moveChildren(w.documentId, w.from, w.to);
        return true;
      }
      case 'unindexed': {
        const id = documents.upsert(w.document, batch.at);
        if (w.existingId !== undefined) {
          target.deleteFor(id);
          documents.deleteContent(id);
          dropChildren(documents, target, id);
          ocr.drop(id);
        }
        return true;
      }
      case 'index': {
        const id = documents.upsert(w.document, batch.at);
        documents.putContent(id, w.text, { isNew: w.existingId === undefined });
        ocr.write(id, batch.collectionId, w.ocr, w.existingId !== undefined);
        for (const row of target.replaceFor(id, w.chunks, w.existingId === undefined)) fts.push(row);
        if (w.attachments) writeAttachments(documents, target, id, w.attachments, batch.at, fts);
        return true;
      }
    }
  });
  target.indexText(fts);
  return applied;
}

/** The file's documents of its own: written with it as parent; the children it no longer has dropped. */
function writeAttachments(documents: DocumentStore, target: ChunkStore, parentId: number, attachments: readonly AttachmentWrite[], at: number, fts: FtsRow[]): void {
  const old = new Map(documents.children(parentId).map((c) => [c.path, c.id]));
  for (const a of attachments) {
    const existing = old.get(a.document.path);
    old.delete(a.document.path);
    const id = documents.upsert({ ...a.document, parentId }, at);
    if (a.text === null) {
      if (existing !== undefined) {
        target.deleteFor(id);
        documents.deleteContent(id);
      }
      continue;
    }
    documents.putContent(id, a.text, { isNew: existing === undefined });
    for (const row of target.replaceFor(id, a.chunks, existing === undefined)) fts.push(row);
  }
  for (const id of old.values()) {
    target.deleteFor(id);
    documents.delete(id);
  }
}

function dropChildren(documents: DocumentStore, target: ChunkStore, parentId: number): void {
  for (const c of documents.children(parentId)) {
    target.deleteFor(c.id);
    documents.delete(c.id);
  }
}
