// Agent memory's rows and checked requests as the storage interface carries them
// (store/storage.ts MemoryRepository): what the memory room (engine/memory) decides and reads, and
// what each backend writes and renders into its own SQL. Data only.
import type { ChunkWrite } from './chunks.js';

export interface DecodedImage {
  mimeType: string;
  data: Buffer;
}

export interface EntryRow {
  id: number;
  document_id: number;
  thread_id: string;
  source: 'user' | 'agent';
  content_type: 'text' | 'multimodal';
  created_at: number;
  updated_at: number;
  /** JSON object (documents.metadata) */
  metadata: string;
  /** JSON array (documents.tags) */
  tags: string;
  text: string;
}

export interface ImageRow {
  entry_id: number;
  mime_type: string;
  bytes: number;
  data?: Buffer;
}

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

/** A deletion's criteria, checked (both backends): all of the given ones must hold. */
export interface CheckedDelete {
  ids?: number[];
  threadIds?: string[];
  /** Created before this time (ms since the epoch). */
  before?: number;
  source?: string;
  /** The criteria given, by their tool names. */
  used: string[];
}

/** The filters checked, as values (one validator for both backends; each renders its SQL). */
export interface MemoryFilterValues {
  threadId?: string;
  source?: string;
  contentType?: 'text' | 'multimodal';
  /** Created at or after / at or before, ms since the epoch. */
  start?: number;
  end?: number;
  /** Any of them; absent when none was given. */
  tags?: string[];
  metadata: MetadataCondition[];
}

export type Scalar = string | number | boolean | null;

/** One checked condition: the key's segments, the operator and a value of the type the operator takes. */
export type MetadataCondition =
  | { op: 'eq' | 'ne'; keys: string[]; value: Scalar; cs: boolean }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; keys: string[]; value: number | string; cs: boolean }
  | { op: 'in' | 'not_in'; keys: string[]; value: (string | number | boolean)[]; cs: boolean }
  | { op: 'exists' | 'not_exists' | 'is_null' | 'is_not_null'; keys: string[] }
  | { op: 'contains' | 'starts_with' | 'ends_with'; keys: string[]; value: string; cs: boolean }
  | { op: 'array_contains'; keys: string[]; value: string | number | boolean; cs: boolean };

export interface SqlFragment {
  where: string[];
  params: unknown[];
}
