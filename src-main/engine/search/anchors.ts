// A hit's anchor chunk as results show it: the document's fields, the chunk's ranges and heading
// path, and a snippet cut from the document text. Shared by the keyword and vector legs, so hybrid
// search can rank with the cheap part and cut snippets only for the page it returns.
import type { Db } from '../store/database.js';
import { snippetAround, type Snippet, type TermMatcher } from './snippet.js';
import { DocumentTextCache } from './text-cache.js';

export interface Anchor {
  docid: string;
  path: string;
  title: string;
  kind: string;
  /** JSON array */
  tags: string;
  mtime_ms: number;
  collection: string;
  ordinal: number;
  char_start: number;
  char_end: number;
  line_start: number;
  line_end: number;
  /** JSON array */
  heading_path: string;
  page: number | null;
}

export class Anchors {
  private readonly byChunk;
  private readonly texts: DocumentTextCache;

  constructor(db: Db) {
    this.byChunk = db.prepare<[number], Anchor>(
      `SELECT d.docid, d.path, d.title, d.kind, d.tags, d.mtime_ms, col.name AS collection,
              c.ordinal, c.char_start, c.char_end, c.line_start, c.line_end, c.heading_path, c.page
         FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id
        WHERE c.id = ?`,
    );
    const textStmt = db.prepare<[number], { text: string }>('SELECT text FROM contents WHERE document_id = ?');
    this.texts = new DocumentTextCache((id) => textStmt.get(id)?.text);
  }

  get(chunkId: number): Anchor | undefined {
    return this.byChunk.get(chunkId);
  }

  /** The document's text (kept for a while: see text-cache.ts); '' when it is gone. */
  text(documentId: number, generation: number): string {
    return this.texts.get(documentId, generation) ?? '';
  }

  /** The anchor chunk's own text. */
  chunkText(documentId: number, a: Anchor, generation: number): string {
    return this.text(documentId, generation).slice(a.char_start, a.char_end);
  }

  snippet(documentId: number, a: Anchor, generation: number, matcher: TermMatcher, maxChars: number): Snippet {
    return snippetAround(this.text(documentId, generation), a.char_start, a.char_end, a.line_start, matcher, maxChars);
  }
}
