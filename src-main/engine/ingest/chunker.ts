// Structure-aware chunking: sections at headings, paragraphs inside them, code fences kept
// whole where they fit; long runs split at line (then word) boundaries with overlap.
// Every chunk is a range of the document text with its line range and heading path; in a
// document with pages (slides, sheets, chapters) no chunk crosses a page start, and each carries
// its page number.
import { LineIndex } from './lines.js';
import type { ParsedDocument, TextRange } from './parsers/types.js';

export interface ChunkOptions {
  /** Target chunk size in characters. */
  targetChars: number;
  /** Characters of context repeated from the previous chunk when a section is split. */
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { targetChars: 1500, overlapChars: 200 };

export interface Chunk {
  start: number;
  end: number;
  lineStart: number;
  lineEnd: number;
  headingPath: string[];
  /** Headings that begin inside this chunk (indexed with the heading path). */
  innerHeadings: string[];
  /** Page (slide, sheet, chapter) the chunk is on; null for documents without pages. */
  page: number | null;
}

interface Section extends TextRange {
  level: number;
  path: string[];
  page: number | null;
}

export function chunkDocument(doc: ParsedDocument, opts: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  const text = doc.text;
  const target = Math.max(64, opts.targetChars);
  const overlap = Math.min(Math.max(0, opts.overlapChars), Math.floor(target / 2));
  const lines = new LineIndex(text);
  const chunks: Chunk[] = [];
  const sections = splitSections(doc);
  type Pending = { start: number; end: number; section: Section; inner: string[] };
  let pending = null as Pending | null;

  const emit = (start: number, end: number, section: Section, inner: string[]) => {
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    if (end <= start) return;
    chunks.push({ start, end, lineStart: lines.lineAt(start), lineEnd: lines.lineAt(end - 1), headingPath: section.path, innerHeadings: inner, page: section.page });
  };
  const flush = () => {
    if (pending) emit(pending.start, pending.end, pending.section, pending.inner);
    pending = null;
  };

  for (const section of sections) {
    const sectionText = text.slice(section.start, section.end);
    if (!sectionText.trim()) continue;
    // Small subsections join a small chunk before them; anything else starts fresh at a heading.
    if (pending && (section.page !== pending.section.page || section.level <= 2 || pending.end - pending.start >= target / 4 || section.end - pending.start > target)) flush();
    for (const piece of segments(text, section, doc.atomic, target)) {
      if (!pending) {
        pending = { start: piece.start, end: piece.end, section, inner: [] };
        continue;
      }
      if (pending.section !== section) {
        if (!pending.inner.length || pending.inner.at(-1) !== section.path.at(-1)) pending.inner.push(section.path.at(-1) ?? '');
      }
      if (piece.end - pending.start <= target) {
        pending.end = piece.end;
        continue;
      }
      const prevStart: number = pending.start;
      const prevEnd: number = pending.end;
      flush();
      const overlapStart: number = overlap ? lines.startOf(lines.lineAt(Math.max(prevEnd - overlap, prevStart)) + 1) : piece.start;
      const start: number = overlapStart > prevStart && overlapStart < prevEnd && overlapStart >= section.start ? overlapStart : piece.start;
      pending = { start, end: piece.end, section, inner: [] };
    }
  }
  flush();
  return chunks;
}

/** Sections start at every heading and every page start; a page start keeps the heading path. */
function splitSections(doc: ParsedDocument): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  const { headings } = doc;
  const pages = doc.pages ?? [];
  let start = doc.bodyStart;
  let level = 7;
  let path: string[] = [];
  let page: number | null = pages.length && pages[0]!.offset <= start ? pages[0]!.page : null;
  // both lists are in text order: merge them (a page start first when both are at one offset)
  for (let h = 0, p = 0; h < headings.length || p < pages.length; ) {
    const nextPage = p < pages.length && (h >= headings.length || pages[p]!.offset <= headings[h]!.offset);
    const offset = nextPage ? pages[p]!.offset : headings[h]!.offset;
    if (offset < doc.bodyStart) {
      if (nextPage) p++;
      else h++;
      continue;
    }
    if (offset > start) sections.push({ start, end: offset, level, path, page });
    start = offset;
    if (nextPage) {
      page = pages[p++]!.page;
      continue;
    }
    const heading = headings[h++]!;
    while (stack.length && stack.at(-1)!.level >= heading.level) stack.pop();
    stack.push({ level: heading.level, text: heading.text });
    path = stack.map((s) => s.text);
    level = heading.level;
  }
  sections.push({ start, end: doc.text.length, level, path, page });
  return sections;
}

/** Paragraph blocks of a section; atomic ranges stay whole unless bigger than twice the target. */
function* segments(text: string, section: Section, atomic: readonly TextRange[], target: number): Generator<TextRange> {
  const blankLine = /\n[ \t]*\n/g;
  blankLine.lastIndex = section.start;
  let start = section.start;
  while (start < section.end) {
    let end = section.end;
    for (let m = blankLine.exec(text); m && m.index < section.end; m = blankLine.exec(text)) {
      const inside = atomic.find((r) => m.index > r.start && m.index < r.end);
      if (inside) {
        blankLine.lastIndex = inside.end;
        continue;
      }
      end = m.index + 1;
      break;
    }
    const limit = atomic.some((r) => r.start >= start && r.start < end) ? target * 2 : target;
    if (end - start <= limit) yield { start, end };
    else yield* splitLong(text, start, end, target);
    start = end;
    blankLine.lastIndex = Math.max(blankLine.lastIndex, end);
  }
}

/** Splits an over-long block at line ends, and over-long lines at spaces (or hard). */
function* splitLong(text: string, start: number, end: number, target: number): Generator<TextRange> {
  let pos = start;
  while (pos < end) {
    if (end - pos <= target) {
      yield { start: pos, end };
      return;
    }
    const window = text.slice(pos, pos + target);
    let cut = window.lastIndexOf('\n');
    if (cut < target / 4) cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('。'));
    if (cut < target / 4) cut = window.lastIndexOf(' ');
    const next = cut < target / 4 ? pos + target : pos + cut + 1;
    yield { start: pos, end: next };
    pos = next;
  }
}
