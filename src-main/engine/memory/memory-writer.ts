// Memory's write paths, each one transaction. An entry is a document of the `~memory` collection:
// a documents row (title, tags in order, metadata), its text in contents, chunks with their FTS rows
// in memory_fts (written last: see store/chunks.ts), and its own rows in memory_entries, memory_tags
// and memory_images. Vectors follow later from the background embedding stage. Deleting goes
// through ChunkStore first (FTS rows, vectors), then the document row, which cascades to the rest.
import { notFound, invalidInput } from '../errors.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import type { ChunkStore, FtsRow } from '../store/chunks.js';
import type { Db } from '../store/database.js';
import type { DocumentStore } from '../store/documents.js';
import { toIndexText } from '../search/cjk.js';
import { MEMORY_LIMITS, type EntryWrite, type UpdateWrite } from './entry-input.js';
import type { EntryStore } from './entry-store.js';
import { entryChunks, titleOf } from './entry-text.js';
import { mergePatch } from './merge-patch.js';

export interface WriterDeps {
  db: Db;
  documents: DocumentStore;
  /** The store writing memory_fts. */
  chunks: ChunkStore;
  entries: EntryStore;
  chunking: ChunkOptions;
  /** The `~memory` collection's id, created on first use. */
  collectionId: () => number;
}

/** Creation and update times an import keeps; new entries take the clock. */
export interface EntryTimes {
  createdAt: number;
  updatedAt: number;
}

export class MemoryWriter {
  constructor(private readonly deps: WriterDeps) {}

  /** Writes the entries in one transaction; returns their ids in order. */
  insert(writes: readonly EntryWrite[], times?: readonly EntryTimes[]): number[] {
    const { db, documents, chunks, entries, chunking } = this.deps;
    return db.transaction(() => {
      const collectionId = this.deps.collectionId();
      let id = entries.nextId();
      const now = Date.now();
      const fts: FtsRow[] = [];
      const ids: number[] = [];
      writes.forEach((w, i) => {
        const t = times?.[i] ?? { createdAt: now, updatedAt: now };
        const title = titleOf(w.metadata);
        const documentId = documents.insertNew({
          collectionId,
          path: String(id),
          docid: `m${id}`, // never hex: cannot clash with a file's docid
          title,
          kind: 'memory',
          size: Buffer.byteLength(w.text),
          mtimeMs: t.updatedAt,
          tags: JSON.stringify(w.tags),
          metadata: w.metadataJson,
        });
        documents.putContent(documentId, w.text);
        for (const row of chunks.replaceFor(documentId, entryChunks(w.text, title, chunking), true)) fts.push(row);
        entries.insert({ id, documentId, threadId: w.threadId, source: w.source, contentType: w.images.length ? 'multimodal' : 'text', createdAt: t.createdAt, updatedAt: t.updatedAt });
        if (w.tags.length) entries.setTags(id, w.tags, false);
        if (w.images.length) entries.setImages(id, w.images, false);
        ids.push(id++);
      });
      chunks.indexText(fts);
      return ids;
    })();
  }

  /** Applies checked updates in one transaction; a missing entry is NOT_FOUND and nothing is written. Returns each one's changed fields. */
  update(updates: readonly UpdateWrite[]): string[][] {
    return this.deps.db.transaction(() => updates.map((u) => this.updateOne(u, Date.now())))();
  }

  private updateOne(u: UpdateWrite, now: number): string[] {
    const { documents, chunks, entries, chunking } = this.deps;
    const row = entries.byIds([u.id])[0];
    if (!row) throw notFound(`context entry ${u.id} not found`);
    const fields: string[] = [];
    const before = JSON.parse(row.metadata) as Record<string, unknown>;
    let metadata = before;
    if (u.text !== undefined) fields.push('text_content');
    if (u.metadata !== undefined) metadata = u.metadata;
    if (u.metadataPatch !== undefined) metadata = mergePatch(before, u.metadataPatch) as Record<string, unknown>;
    if (u.metadata !== undefined || u.metadataPatch !== undefined) {
      fields.push('metadata');
      const bytes = Buffer.byteLength(JSON.stringify(metadata));
      if (bytes > MEMORY_LIMITS.metadataBytes) throw invalidInput(`context entry ${u.id}: the patched metadata would be larger than ${MEMORY_LIMITS.metadataBytes} bytes`);
    }
    const tags = u.tags ?? (JSON.parse(row.tags) as string[]);
    if (u.tags !== undefined) {
      entries.setTags(u.id, u.tags, true);
      fields.push('tags');
    }
    let contentType = row.content_type;
    if (u.images !== undefined) {
      entries.setImages(u.id, u.images, true);
      contentType = u.images.length ? 'multimodal' : 'text';
      fields.push('images', 'content_type');
    }
    const text = u.text ?? row.text;
    const title = titleOf(metadata);
    documents.describe(row.document_id, { title, size: Buffer.byteLength(text), mtimeMs: now, tags: JSON.stringify(tags), metadata: JSON.stringify(metadata) });
    if (u.text !== undefined) {
      documents.putContent(row.document_id, text);
      chunks.indexText(chunks.replaceFor(row.document_id, entryChunks(text, title, chunking))); // old vectors go with the old chunks
    } else if (title !== titleOf(before)) {
      // same text, new title: rewrite the keyword rows only; chunks and their vectors stay
      const ftsTitle = title ? toIndexText(title) : '';
      chunks.replaceText(
        row.document_id,
        chunks.forDocument(row.document_id).map((c) => ({ id: c.id, title: ftsTitle, headings: '', body: toIndexText(text.slice(c.charStart, c.charEnd)) })),
      );
    }
    entries.touch(u.id, contentType, now);
    return fields;
  }

  /** Deletes these entries with everything that hangs off them; returns how many. */
  remove(rows: readonly { id: number; document_id: number }[]): number {
    const { db, documents, chunks } = this.deps;
    return db.transaction(() => {
      for (const r of rows) {
        chunks.deleteFor(r.document_id); // FTS rows and vectors (delete hooks), then chunks
        documents.delete(r.document_id); // cascades: contents, memory_entries → tags, images
      }
      return rows.length;
    })();
  }
}
