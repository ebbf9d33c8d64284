// Assembles a document parser's output: text in blocks (paragraphs, table rows), headings, page
// marker lines and warnings, with one bound on the text kept. Every document parser writes
// through this, so offsets, markers and limits agree across formats.
import { pageMarker, type Heading, type PageStart, type ParsedDocument, type TextRange } from './types.js';

export class DocBuilder {
  private text = '';
  private readonly headings: Heading[] = [];
  private readonly pages: PageStart[] = [];
  private readonly atomic: TextRange[] = [];
  private readonly warnings: string[] = [];
  private full = false;

  constructor(private readonly maxChars: number) {}

  get length(): number {
    return this.text.length;
  }

  /** True once the text bound was reached: parsers may stop reading. */
  get isFull(): boolean {
    return this.full;
  }

  /** Starts page (slide, sheet, chapter, message) `n` with its marker line. */
  page(unit: string, n: number, label?: string): void {
    if (!this.room()) return;
    this.breakBlock();
    this.pages.push({ offset: this.text.length, page: n });
    this.text += `${pageMarker(unit, n, label)}\n\n`;
  }

  /** A marker inside a page (speaker notes, an attachment): shown, not indexed. */
  marker(unit: string, label?: string): void {
    if (!this.room()) return;
    this.breakBlock();
    this.text += `[${unit}${label ? `: ${label.replace(/[\]\n]+/g, ' ').trim()}` : ''}]\n\n`;
  }

  heading(level: number, text: string): void {
    const clean = collapse(text);
    if (!clean || !this.room()) return;
    this.breakBlock();
    this.headings.push({ offset: this.text.length, level: Math.min(Math.max(level, 1), 6), text: clean });
    this.text += `${clean}\n\n`;
  }

  /** A paragraph (whitespace collapsed; line breaks inside kept). */
  paragraph(text: string): void {
    const clean = text.split('\n').map(collapse).filter(Boolean).join('\n');
    if (!clean || !this.room()) return;
    this.breakBlock();
    this.text += `${clean}\n\n`;
  }

  /** Lines kept as they are (PDF lines of one block, table rows); `keepWhole` asks the chunker not to split them. */
  lines(lines: string[], keepWhole = false): void {
    const kept = lines.map((l) => l.replace(/[ \t]+$/, '')).filter((l) => l.trim());
    if (!kept.length || !this.room()) return;
    this.breakBlock();
    const start = this.text.length;
    this.text += `${kept.join('\n')}\n\n`;
    if (keepWhole) this.atomic.push({ start, end: this.text.length - 2 });
  }

  /** Text parsed elsewhere (an EPUB chapter's HTML) with its headings and atomic ranges. */
  parsed(doc: Pick<ParsedDocument, 'text' | 'headings' | 'atomic'>): void {
    if (!doc.text.trim() || !this.room()) return;
    this.breakBlock();
    const base = this.text.length;
    this.text += `${doc.text.trimEnd()}\n\n`;
    for (const h of doc.headings) this.headings.push({ ...h, offset: h.offset + base });
    for (const r of doc.atomic) this.atomic.push({ start: r.start + base, end: r.end + base });
  }

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  build(title: string, kind: string, metadata: Record<string, unknown> = {}, tags: string[] = []): ParsedDocument {
    let text = this.text.trimEnd();
    if (text.length > this.maxChars) text = text.slice(0, this.maxChars);
    return {
      text,
      title: collapse(title),
      kind,
      tags,
      metadata,
      headings: this.headings.filter((h) => h.offset < text.length),
      atomic: this.atomic.filter((r) => r.end <= text.length),
      bodyStart: 0,
      pages: this.pages.filter((p) => p.offset < text.length),
      warnings: this.warnings,
    };
  }

  private room(): boolean {
    if (this.text.length < this.maxChars) return true;
    if (!this.full) this.warn(`text cut at ${this.maxChars.toLocaleString('en-US')} characters`);
    this.full = true;
    return false;
  }

  private breakBlock(): void {
    if (this.text && !this.text.endsWith('\n\n')) this.text += this.text.endsWith('\n') ? '\n' : '\n\n';
  }
}

export function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}
