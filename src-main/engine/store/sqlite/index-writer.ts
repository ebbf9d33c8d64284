// Writes one index batch on SQLite, inside the caller's transaction: the same statements the
// indexer has always run (store/documents.ts, store/chunks.ts), the keyword rows of the whole
// batch last (FTS5 flushes its pending terms whenever another statement opens a savepoint).
// Moves and removals check the row is still where the engine saw it, as on PostgreSQL; with one
// writer they always are. Texts go in compressed blocks (store/content-blocks.ts), deflated before
// the transaction off the engine's thread when the caller can wait (packBatch).
import type { ChunkStore, FtsRow } from '../chunks.js';
import { packTextAsync, type PackedBlock } from '../content-blocks.js';
import type { DocumentStore } from '../documents.js';
import type { AttachmentWrite, IndexBatch, IndexWrite } from '../storage.js';
import type { OcrRows } from './ocr.js';

/** The blocks of a batch's texts, by the write (or attachment) carrying each. */
export type PackedTexts = Map<IndexWrite | AttachmentWrite, readonly PackedBlock[]>;

/** Every text of the batch deflated on libuv's threads (packTextAsync), for applyIndexBatch. */
export async function packBatch(batch: IndexBatch): Promise<PackedTexts> {
  const out: PackedTexts = new Map();
  const pack = async (w: IndexWrite | AttachmentWrite, text: string) => void out.set(w, await packTextAsync(text));
  await Promise.all(
    batch.writes.flatMap((w) => (w.op !== 'index' ? [] : [pack(w, w.text), ...(w.attachments ?? []).flatMap((a) => (a.text === null ? [] : [pack(a, a.text)]))])),
  );
  return out;
}

/** `packed`: the texts' blocks made beforehand (packBatch); a text without is deflated here. */
export function applyIndexBatch(documents: DocumentStore, chunks: ChunkStore, ocr: OcrRows, batch: IndexBatch, packed?: PackedTexts): boolean[] {
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
        documents.putContent(id, w.text, { isNew: w.existingId === undefined, packed: packed?.get(w) });
        ocr.write(id, batch.collectionId, w.ocr, w.existingId !== undefined);
        for (const row of target.replaceFor(id, w.chunks, w.existingId === undefined)) fts.push(row);
        if (w.attachments) writeAttachments(documents, target, id, w.attachments, batch.at, fts, packed);
        return true;
      }
    }
  });
  target.indexText(fts);
  return applied;
}

/** The file's documents of its own: written with it as parent; the children it no longer has dropped. */
function writeAttachments(documents: DocumentStore, target: ChunkStore, parentId: number, attachments: readonly AttachmentWrite[], at: number, fts: FtsRow[], packed?: PackedTexts): void {
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
    documents.putContent(id, a.text, { isNew: existing === undefined, packed: packed?.get(a) });
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
