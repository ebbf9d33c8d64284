// get and multi_get results. Types only (see collections.ts).
import type { Span } from './search.js';

export interface RetrievedDocument {
  docid: string;
  collection: string;
  path: string;
  uri: string;
  title: string;
  kind: string;
  tags: string[];
  metadata: Record<string, unknown>;
  modifiedMs: number;
  fromLine: number;
  toLine: number;
  totalLines: number;
  text: string;
  truncated: boolean;
  /** Where `text` shows a query's words, when get was asked to mark them (the app's preview of a result). */
  highlights?: Span[];
}

export interface MultiGetEntry {
  docid: string;
  collection: string;
  path: string;
  uri: string;
  title: string;
  text?: string;
  truncated?: boolean;
  skipped?: string;
}

export interface MultiGetResult {
  documents: MultiGetEntry[];
  notFound: { locator: string; reason: string; suggestions: string[] }[];
}
