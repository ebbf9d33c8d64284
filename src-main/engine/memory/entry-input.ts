// What a memory write may contain, checked before anything is written: thread id, source, text,
// metadata (a JSON object), tags (trimmed, lower-cased, deduplicated) and images (base64 or a
// data: URL, an image/* mime type, each at most IMAGE_MAX_BYTES). A problem is an INVALID_INPUT
// whose message starts with where it is (`entries[3].images[0]: …`), so a batch says which entry.
import { invalidInput } from '../errors.js';
import type { CheckedDelete, DecodedImage } from '../store/memory-rows.js';
import type { MemoryDeleteCriteria, MemoryEntryInput, MemoryImageInput, MemorySource, MemoryUpdateInput } from '../types/memory.js';

export const MEMORY_LIMITS = {
  threadIdChars: 256,
  textChars: 1_000_000,
  metadataBytes: 65_536,
  tags: 64,
  tagChars: 100,
  images: 16,
  /** Per image, decoded. The MCP endpoint takes requests of up to 4 MB, base64 included. */
  imageBytes: 2 * 1024 * 1024,
  batch: 100,
} as const;


/** An entry as it is written: checked and normalised. */
export interface EntryWrite {
  threadId: string;
  source: MemorySource;
  text: string;
  metadata: Record<string, unknown>;
  /** `metadata` as JSON, as it is stored (made once, while checking its size). */
  metadataJson: string;
  tags: string[];
  images: DecodedImage[];
}

export interface UpdateWrite {
  id: number;
  text?: string;
  metadata?: Record<string, unknown>;
  metadataPatch?: Record<string, unknown>;
  tags?: string[];
  images?: DecodedImage[];
}

export function checkEntry(input: MemoryEntryInput, at = 'entry'): EntryWrite {
  if (typeof input !== 'object' || input === null) throw invalidInput(`${at}: an entry is an object with thread_id, source and text`);
  const threadId = checkThreadId(input.threadId, `${at}.thread_id`);
  const source = checkSource(input.source, `${at}.source`);
  const text = checkText(input.text, `${at}.text`);
  const metadata = input.metadata == null ? { value: {}, json: '{}' } : checkMetadataJson(input.metadata, `${at}.metadata`);
  return {
    threadId,
    source,
    text,
    metadata: metadata.value,
    metadataJson: metadata.json,
    tags: input.tags == null ? [] : checkTags(input.tags, `${at}.tags`),
    images: input.images == null ? [] : checkImages(input.images, `${at}.images`),
  };
}

export function checkUpdate(input: MemoryUpdateInput, at = 'update'): UpdateWrite {
  if (typeof input !== 'object' || input === null) throw invalidInput(`${at}: an update is an object with context_id and the fields to change`);
  const id = checkId(input.id, `${at}.context_id`);
  if (input.metadata != null && input.metadataPatch != null) {
    throw invalidInput(`${at}: metadata (full replacement) and metadata_patch (merge) cannot be used together`);
  }
  const out: UpdateWrite = { id };
  if (input.text != null) out.text = checkText(input.text, `${at}.text`);
  if (input.metadata != null) out.metadata = checkMetadata(input.metadata, `${at}.metadata`);
  if (input.metadataPatch != null) out.metadataPatch = checkMetadata(input.metadataPatch, `${at}.metadata_patch`);
  if (input.tags != null) out.tags = checkTags(input.tags, `${at}.tags`);
  if (input.images != null) out.images = checkImages(input.images, `${at}.images`);
  if (Object.keys(out).length === 1) throw invalidInput(`${at}: give at least one field to change (text, metadata, metadata_patch, tags or images)`);
  return out;
}

export function checkId(id: unknown, at: string): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw invalidInput(`${at} must be a positive whole number (got ${JSON.stringify(id)})`);
  return id;
}

export function checkThreadId(v: unknown, at: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalidInput(`${at} is required (a non-empty string)`);
  const t = v.trim();
  if (t.length > MEMORY_LIMITS.threadIdChars) throw invalidInput(`${at} is longer than ${MEMORY_LIMITS.threadIdChars} characters`);
  return t;
}

export function checkSource(v: unknown, at: string): MemorySource {
  if (v !== 'user' && v !== 'agent') throw invalidInput(`${at} must be "user" or "agent" (got ${JSON.stringify(v)})`);
  return v;
}

function checkText(v: unknown, at: string): string {
  if (typeof v !== 'string' || !v.trim()) throw invalidInput(`${at} is required and cannot be empty or only whitespace`);
  if (v.length > MEMORY_LIMITS.textChars) throw invalidInput(`${at} is longer than ${MEMORY_LIMITS.textChars} characters`);
  return v;
}

function checkMetadata(v: unknown, at: string): Record<string, unknown> {
  return checkMetadataJson(v, at).value;
}

function checkMetadataJson(v: unknown, at: string): { value: Record<string, unknown>; json: string } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidInput(`${at} must be a JSON object`);
  let json: string;
  try {
    json = JSON.stringify(v);
  } catch (err) {
    throw invalidInput(`${at} is not JSON: ${(err as Error).message}`);
  }
  if (Buffer.byteLength(json) > MEMORY_LIMITS.metadataBytes) throw invalidInput(`${at} is larger than ${MEMORY_LIMITS.metadataBytes} bytes as JSON`);
  return { value: JSON.parse(json) as Record<string, unknown>, json }; // a plain copy: what is stored is what is returned
}

export function checkTags(v: unknown, at: string): string[] {
  if (!Array.isArray(v)) throw invalidInput(`${at} must be a list of strings`);
  const out: string[] = [];
  v.forEach((t, i) => {
    if (typeof t !== 'string') throw invalidInput(`${at}[${i}] must be a string`);
    const tag = t.trim().toLowerCase();
    if (tag.length > MEMORY_LIMITS.tagChars) throw invalidInput(`${at}[${i}] is longer than ${MEMORY_LIMITS.tagChars} characters`);
    if (tag && !out.includes(tag)) out.push(tag);
  });
  if (out.length > MEMORY_LIMITS.tags) throw invalidInput(`${at}: at most ${MEMORY_LIMITS.tags} tags per entry`);
  return out;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIME = /^image\/[a-z0-9][a-z0-9.+-]{0,62}$/;

function checkImages(v: unknown, at: string): DecodedImage[] {
  if (!Array.isArray(v)) throw invalidInput(`${at} must be a list of {data, mime_type}`);
  if (v.length > MEMORY_LIMITS.images) throw invalidInput(`${at}: at most ${MEMORY_LIMITS.images} images per entry`);
  return v.map((img: MemoryImageInput, i) => {
    const where = `${at}[${i}]`;
    if (typeof img !== 'object' || img === null) throw invalidInput(`${where} must be an object {data, mime_type}`);
    if (typeof img.data !== 'string' || !img.data.trim()) throw invalidInput(`${where}.data is required (base64)`);
    let data = img.data.trim();
    let mime = img.mime_type;
    const url = /^data:([^;,]+)(;base64)?,/i.exec(data);
    if (url) {
      if (!url[2]) throw invalidInput(`${where}.data: a data: URL must be base64`);
      mime ??= url[1];
      data = data.slice(url[0].length);
    }
    mime = (mime ?? 'image/png').trim().toLowerCase();
    if (!MIME.test(mime)) throw invalidInput(`${where}.mime_type must be an image type such as image/png (got ${JSON.stringify(img.mime_type)})`);
    data = data.replace(/\s+/g, '');
    // base64 grows 4/3: refuse an oversized image before decoding it
    if (Math.floor((data.length * 3) / 4) > MEMORY_LIMITS.imageBytes + 2) throw tooBig(where);
    if (data.length % 4 !== 0 || !BASE64.test(data)) throw invalidInput(`${where}.data is not valid base64`);
    const bytes = Buffer.from(data, 'base64');
    if (!bytes.length) throw invalidInput(`${where}.data is empty`);
    if (bytes.length > MEMORY_LIMITS.imageBytes) throw tooBig(where);
    return { mimeType: mime, data: bytes };
  });
}

function tooBig(where: string) {
  return invalidInput(`${where} is larger than the ${MEMORY_LIMITS.imageBytes / (1024 * 1024)} MB an image may be`);
}


export function checkDelete(criteria: MemoryDeleteCriteria, now: number): CheckedDelete {
  const out: CheckedDelete = { used: [] };
  if (criteria.ids != null) {
    if (!Array.isArray(criteria.ids) || !criteria.ids.length) throw invalidInput('context_ids must be a non-empty list of ids');
    criteria.ids.forEach((id, i) => checkId(id, `context_ids[${i}]`));
    out.ids = [...criteria.ids];
    out.used.push('context_ids');
  }
  if (criteria.threadIds != null) {
    if (!Array.isArray(criteria.threadIds) || !criteria.threadIds.length) throw invalidInput('thread_ids must be a non-empty list of thread ids');
    out.threadIds = criteria.threadIds.map((t, i) => checkThreadId(t, `thread_ids[${i}]`));
    out.used.push('thread_ids');
  }
  if (criteria.olderThanDays != null) {
    const days = criteria.olderThanDays;
    if (typeof days !== 'number' || !Number.isFinite(days) || days < 0) throw invalidInput('older_than_days must be a number of days, 0 or more');
    out.before = now - days * 86_400_000;
    out.used.push('older_than_days');
  }
  if (criteria.source != null) {
    if (!out.used.length) throw invalidInput('source must be combined with another criterion (context_ids, thread_ids or older_than_days)');
    out.source = checkSource(criteria.source, 'source');
    out.used.push('source');
  }
  if (!out.used.length) throw invalidInput('give at least one criterion: context_ids, thread_ids, source (with another) or older_than_days');
  return out;
}

export type { CheckedDelete, DecodedImage };
