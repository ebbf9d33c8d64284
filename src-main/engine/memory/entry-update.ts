// What an update does to one entry, decided from the entry as it is (pure: no database), for the
// backends that write an update as plain data (PostgreSQL's memory repository): the changed
// fields in the spec's names, the new metadata (full replacement, or the RFC 7396 merge patch,
// size-checked), tags, images and content type, and what the keyword index needs — new chunks
// for a new text (its old vectors go with the old chunks), or only a new title for the same text
// (its chunks and vectors stay). SQLite's MemoryWriter.updateOne makes the same decisions inline,
// inside its transaction.
import { invalidInput } from '../errors.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import { toIndexText } from '../search/cjk.js';
import type { ChunkWrite } from '../store/chunks.js';
import { MEMORY_LIMITS, type DecodedImage, type UpdateWrite } from './entry-input.js';
import type { EntryRow } from './entry-store.js';
import { entryChunks, titleOf } from './entry-text.js';
import { mergePatch } from './merge-patch.js';

export interface EntryRewrite {
  id: number;
  documentId: number;
  /** The fields the update changed (update_context's updated_fields). */
  fields: string[];
  title: string;
  size: number;
  tagsJson: string;
  metadataJson: string;
  contentType: 'text' | 'multimodal';
  /** Replaces the entry's tags when set. */
  tags?: string[];
  /** Replaces the entry's images when set. */
  images?: DecodedImage[];
  /** A new text and its chunks. */
  text?: { text: string; chunks: ChunkWrite[] };
  /** The same text under a new title: the keyword rows' title column, in index form. */
  retitle?: string;
}

export function planUpdate(row: EntryRow, u: UpdateWrite, chunking: ChunkOptions): EntryRewrite {
  const fields: string[] = [];
  const before = JSON.parse(row.metadata) as Record<string, unknown>;
  let metadata = before;
  if (u.text !== undefined) fields.push('text_content');
  if (u.metadata !== undefined) metadata = u.metadata;
  if (u.metadataPatch !== undefined) metadata = mergePatch(before, u.metadataPatch) as Record<string, unknown>;
  const metadataJson = JSON.stringify(metadata);
  if (u.metadata !== undefined || u.metadataPatch !== undefined) {
    fields.push('metadata');
    if (Buffer.byteLength(metadataJson) > MEMORY_LIMITS.metadataBytes) throw invalidInput(`context entry ${u.id}: the patched metadata would be larger than ${MEMORY_LIMITS.metadataBytes} bytes`);
  }
  const tags = u.tags ?? (JSON.parse(row.tags) as string[]);
  if (u.tags !== undefined) fields.push('tags');
  let contentType = row.content_type;
  if (u.images !== undefined) {
    contentType = u.images.length ? 'multimodal' : 'text';
    fields.push('images', 'content_type');
  }
  const text = u.text ?? row.text;
  const title = titleOf(metadata);
  const out: EntryRewrite = { id: u.id, documentId: row.document_id, fields, title, size: Buffer.byteLength(text), tagsJson: JSON.stringify(tags), metadataJson, contentType };
  if (u.tags !== undefined) out.tags = u.tags;
  if (u.images !== undefined) out.images = u.images;
  if (u.text !== undefined) out.text = { text, chunks: entryChunks(text, title, chunking) };
  else if (title !== titleOf(before)) out.retitle = title ? toIndexText(title) : '';
  return out;
}
