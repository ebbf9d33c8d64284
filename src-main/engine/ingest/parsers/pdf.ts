// PDF with PDFium (pdfium.ts): text per page, `[page N]` in the text and the page number in each
// chunk's locator. Lines are rebuilt from the text items' positions in reading order, columns read
// one after the other (pdf-layout.ts);
// lines repeated at the top or bottom of most pages (running headers, footers, page numbers) are
// dropped; lines set clearly larger than the body become headings. The title comes from the
// document info unless it is a placeholder, else from the first heading. Encrypted (password),
// truncated or malformed files throw with the reason; a PDF without a text layer is indexed by
// its name with a "needs OCR" warning. Pages that draw an image and have no text layer (or only
// stray characters: a scanner's page number) are listed in `ocrPages` for the OCR stage.
import { DocBuilder } from './doc-builder.js';
import { toLines, type Line } from './pdf-layout.js';
import { PdfiumDocument } from './pdfium.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';

const PLACEHOLDER_TITLE = /^(untitled|microsoft (word|powerpoint) - .*|.*\.(docx?|pptx?|pdf|txt|html?|tex|dvi))$/i;

export const pdfParser: DocumentParser = {
  kind: 'pdf',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const doc = await PdfiumDocument.open(bytes);
    try {
      const total = doc.pageCount;
      const pageCount = Math.min(total, limits.maxPages);
      const pages: Line[][] = [];
      const failed: number[] = [];
      const ocrPages: number[] = [];
      const labels: string[] = [];
      for (let n = 1; n <= pageCount; n++) {
        labels.push(doc.pageLabel(n - 1));
        const page = doc.page(n - 1);
        let lines: Line[] = [];
        try {
          if (!page) throw new Error('the page cannot be loaded');
          lines = toLines(page.textItems());
          // only a page with (next to) no text is looked at for images: text pages cost nothing more
          if (wordChars(lines) < STRAY_TEXT_CHARS && page.drawsImage()) ocrPages.push(n);
        } catch {
          failed.push(n);
        } finally {
          page?.close();
        }
        pages.push(lines);
      }
      if (failed.length === pageCount) throw new Error('no page of the PDF could be read (damaged?)');
      const info = { Title: doc.meta('Title'), Author: doc.meta('Author'), Subject: doc.meta('Subject') };
      return { ...build(pages, { fileName, labels, info, failed, total, limits, ocrPages }), ocrPages };
    } finally {
      doc.close();
    }
  },
};

function build(
  pages: Line[][],
  ctx: { fileName: string; labels: string[] | null; info: Record<string, unknown>; failed: number[]; total: number; limits: Parameters<DocumentParser['parse']>[2]; ocrPages: number[] },
): ParsedDocument {
  dropRunningLines(pages);
  const bodySize = medianSize(pages);
  const headingSizes = [...new Set(pages.flat().filter((l) => isHeading(l, bodySize)).map((l) => Math.round(l.size)))].sort((a, b) => b - a);
  const out = new DocBuilder(ctx.limits.maxTextChars);
  let firstHeading = '';
  let textChars = 0;
  for (const [i, lines] of pages.entries()) {
    if (out.isFull) break;
    const label = ctx.labels?.[i];
    out.page('page', i + 1, label && label !== String(i + 1) ? label : undefined);
    let block: string[] = [];
    const flush = () => {
      out.lines(block);
      block = [];
    };
    for (const line of lines) {
      textChars += line.text.replace(/\s/g, '').length;
      if (isHeading(line, bodySize)) {
        flush();
        if (!firstHeading) firstHeading = line.text;
        out.heading(Math.min(headingSizes.indexOf(Math.round(line.size)) + 1, 3), line.text);
        continue;
      }
      if (line.gapBefore) flush();
      block.push(line.text);
    }
    flush();
  }
  const title = typeof ctx.info.Title === 'string' && ctx.info.Title.trim() && !PLACEHOLDER_TITLE.test(ctx.info.Title.trim()) ? ctx.info.Title.trim() : '';
  const metadata: Record<string, unknown> = { pages: ctx.total };
  if (typeof ctx.info.Author === 'string' && ctx.info.Author.trim()) metadata.author = ctx.info.Author.trim();
  if (typeof ctx.info.Subject === 'string' && ctx.info.Subject.trim()) metadata.subject = ctx.info.Subject.trim();
  if (textChars === 0) {
    // scanned pages: nothing to read without OCR; keep the file findable by its name
    const name = baseTitle(ctx.fileName);
    const doc = new DocBuilder(ctx.limits.maxTextChars);
    doc.paragraph(title || name);
    doc.warn(`needs OCR: the PDF has no text layer (${ctx.total} page${ctx.total === 1 ? '' : 's'} of images?); indexed by its name only`);
    return doc.build(title || name, 'pdf', { ...metadata, needsOcr: true });
  }
  if (ctx.ocrPages.length) out.warn(`needs OCR: ${pageList(ctx.ocrPages)} ${ctx.ocrPages.length === 1 ? 'has' : 'have'} no text layer (scanned?)`);
  if (ctx.failed.length) out.warn(`page${ctx.failed.length === 1 ? '' : 's'} ${ctx.failed.join(', ')} could not be read`);
  if (ctx.total > pages.length) out.warn(`the PDF has ${ctx.total} pages; only the first ${pages.length} were indexed`);
  return out.build(title || firstHeading || baseTitle(ctx.fileName), 'pdf', metadata);
}

/** Fewer letters and digits than this on a page is no text layer to speak of (a stamp, a page number). */
const STRAY_TEXT_CHARS = 10;

function wordChars(lines: Line[]): number {
  let n = 0;
  for (const l of lines) n += l.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  return n;
}

function pageList(pages: number[]): string {
  const shown = pages.slice(0, 20).join(', ');
  return `page${pages.length === 1 ? '' : 's'} ${shown}${pages.length > 20 ? ` and ${pages.length - 20} more` : ''}`;
}

/** Drops lines that repeat at the top or bottom of at least half the pages (three or more). */
function dropRunningLines(pages: Line[][]): void {
  if (pages.length < 3) return;
  const key = (l: Line) => l.text.replace(/\d+/g, '#').toLowerCase();
  const counts = new Map<string, number>();
  const edges = (lines: Line[]) => [...new Set([...lines.slice(0, 2), ...lines.slice(-2)].map(key))];
  for (const lines of pages) for (const k of edges(lines)) counts.set(k, (counts.get(k) ?? 0) + 1);
  const threshold = Math.max(3, Math.ceil(pages.length / 2));
  for (const [i, lines] of pages.entries()) {
    const edge = new Set([...lines.slice(0, 2), ...lines.slice(-2)]);
    pages[i] = lines.filter((l) => !(edge.has(l) && (counts.get(key(l)) ?? 0) >= threshold));
  }
}

function medianSize(pages: Line[][]): number {
  const sizes: { size: number; weight: number }[] = pages.flat().map((l) => ({ size: l.size, weight: l.text.length }));
  if (!sizes.length) return 10;
  sizes.sort((a, b) => a.size - b.size);
  const half = sizes.reduce((n, s) => n + s.weight, 0) / 2;
  let seen = 0;
  for (const s of sizes) if ((seen += s.weight) >= half) return s.size;
  return sizes.at(-1)!.size;
}

function isHeading(line: Line, bodySize: number): boolean {
  return line.size >= bodySize * 1.15 && line.text.length <= 150 && /\p{L}/u.test(line.text);
}
