// The contract every format parser meets. A parser turns decoded file text into the text we
// index and serve (usually the file itself; readable text for HTML) plus its structure.

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
}

export interface Parser {
  readonly kind: string;
  parse(text: string, fileName: string): ParsedDocument;
}

export function baseTitle(fileName: string): string {
  const base = fileName.split('/').pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}
