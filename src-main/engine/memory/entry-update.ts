// What an update does to one entry, decided from the entry as it is (pure: no database), which the
// storage's memory repository writes as plain data inside its transaction: the changed fields in
// the spec's names, the new metadata (full replacement, or the RFC 7396 merge patch, size-checked),
// tags, images and content type, and what the keyword index needs — new chunks for a new text (its
// old vectors go with the old chunks), or only a new title for the same text (its chunks and
// vectors stay).
import { invalidInput } from '../errors.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import { toIndexText } from '../text/cjk.js';
import type { EntryRewrite, EntryRow } from '../store/memory-rows.js';
import { MEMORY_LIMITS, type UpdateWrite } from './entry-input.js';
import { entryChunks, titleOf } from './entry-text.js';
import { mergePatch } from './merge-patch.js';


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

export type { EntryRewrite };
