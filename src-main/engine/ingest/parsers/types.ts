// The contract every format parser meets. A text parser turns decoded file text into the text we
// index and serve (usually the file itself; readable text for HTML) plus its structure; a document
// parser (PDF, Office, OpenDocument, EPUB, RTF, e-mail) turns a file's bytes into the same, with
// page, slide, sheet or chapter marks. Document parsers run in worker threads (ingest/parse-pool.ts).

export interface Heading {
  /** Offset of the heading line in `text`. */
  offset: number;
  level: number;
  text: string;
}

export interface TextRange {
  start: number;
  end: number;
}

export interface ParsedDocument {
  text: string;
  title: string;
  kind: string;
  tags: string[];
  metadata: Record<string, unknown>;
  headings: Heading[];
  /** Ranges the chunker keeps whole where it can (code fences, tables). */
  atomic: TextRange[];
  /** Where indexable body starts (after front matter). */
  bodyStart: number;
  /**
   * Where each page (slide, sheet, chapter, message) starts in `text`, in order: the offset of its
   * marker line (see pageMarker). Chunks never cross a page start and carry its number.
   */
  pages?: PageStart[];
  /** Indexed, but not all of it (rows cut, a chapter missing, no text layer): status lists these. */
  warnings?: string[];
  /**
   * 1-based pages whose text only OCR can give (a PDF page without a text layer, or with only stray
   * characters on an image; an image file's pages). The OCR stage reads these and merges the text
   * in (ocr/merge.ts); absent or empty: nothing to recognise.
   */
  ocrPages?: number[];
  /**
   * Files inside this one that are documents of their own (an e-mail's PDF attachment): `path` is
   * relative to this file (`report.pdf`, `3/report.pdf`), the indexer stores each as a child
   * document at `<file path>/<path>` (see ingest/prepare.ts).
   */
  attachments?: EmbeddedFile[];
}

export interface EmbeddedFile {
  path: string;
  bytes: Uint8Array;
}

export interface PageStart {
  offset: number;
  /** 1-based page, slide, sheet, chapter or message number. */
  page: number;
}

export interface Parser {
  readonly kind: string;
  readonly binary?: false;
  parse(text: string, fileName: string): ParsedDocument;
}

/** Bounds a document parser keeps (set per run in ingest/parse-pool.ts). */
export interface ParseLimits {
  /** Largest decompressed size of one archive member (a DOCX part, an EPUB chapter). */
  maxPartBytes: number;
  /** Largest decompressed size of all members read from one file. */
  maxTotalBytes: number;
  /** Rows read per spreadsheet sheet; the rest are left out with a warning. */
  maxRowsPerSheet: number;
  /** Pages read from one PDF; the rest are left out with a warning. */
  maxPages: number;
  /** Characters of extracted text kept from one file. */
  maxTextChars: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxPartBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxRowsPerSheet: 20_000,
  maxPages: 5_000,
  maxTextChars: 20_000_000,
};

/** A parser of binary documents; runs in a parse worker, never on the indexing thread. */
export interface DocumentParser {
  readonly kind: string;
  readonly binary: true;
  parse(bytes: Uint8Array, fileName: string, limits: ParseLimits): Promise<ParsedDocument>;
}

/** A file the parser refuses by design (legacy binary Office, encrypted): skipped, not failed. */
export class UnsupportedDocument extends Error {}

/** The marker line that starts a page in the extracted text: `get` shows it, search ignores it. */
export function pageMarker(unit: string, n: number, label?: string): string {
  return `[${unit} ${n}${label ? `: ${label.replace(/[\]\n]+/g, ' ').trim()}` : ''}]`;
}

/** Marker lines as written by pageMarker (left out of the keyword index). */
export const PAGE_MARKER_LINE = /^\[(?:page|slide|sheet|chapter|message|notes|attachment|comments|tracked changes)\b[^\n]*\]$/gm;

export function baseTitle(fileName: string): string {
  const base = fileName.split('/').pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}
