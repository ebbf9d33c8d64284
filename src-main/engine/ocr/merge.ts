// Recognised pages into a parsed document: each OCRed page's section becomes an `[page 3, OCR]`
// marker line and the recognised text, so the chunker gives its chunks that page (a chunk never
// crosses a page start) and line numbers into the text `get` serves, and a reader (a person, an
// assistant) sees which text came from recognition. The marker is a page marker as the rest of
// the index knows them (PAGE_MARKER_LINE: shown by get, never searched). Pages not OCRed keep their
// text-layer section as it was; what came before the first page (an image's or a scan's name) stays.
import type { Heading, ParsedDocument, TextRange } from '../ingest/parsers/types.js';
import type { OcrHitInfo } from '../types/ocr.js';
import type { OcrResult } from './types.js';

/** The marker line an OCRed page starts with. */
export function ocrPageMarker(page: number, unit = 'page'): string {
  return `[${unit} ${page}, OCR]`;
}

const OCR_MARKER = /^\[(?:page|slide) \d+, OCR\]$/;

/** What the index keeps about a document's recognised pages (in its metadata, as `ocr`). */
export interface OcrMetadata {
  engine: string;
  languages: string[];
  /** Page → recognition confidence (0–100): a hit on that page says so. */
  confidence: Record<string, number>;
}

interface Section {
  page: number;
  start: number;
  end: number;
}

/**
 * The document with `result`'s pages in place of those pages' sections. Headings and keep-whole
 * ranges of replaced sections go with them; the others move with their text. "needs OCR" warnings
 * are replaced by the pages that still could not be read, and `ocrPages` keeps only those.
 */
export function mergeOcrPages(doc: ParsedDocument, result: Pick<OcrResult, 'pages' | 'failed' | 'warnings' | 'engine' | 'languages'>, unit = 'page', maxChars = Infinity): ParsedDocument {
  const starts = [...(doc.pages ?? [])].sort((a, b) => a.offset - b.offset);
  const sections: Section[] = starts.map((p, i) => ({ page: p.page, start: p.offset, end: starts[i + 1]?.offset ?? doc.text.length }));
  const prefixEnd = sections[0]?.start ?? doc.text.length;
  const recognised = new Map(result.pages.map((p) => [p.page, p]));
  const numbers = [...new Set([...sections.map((s) => s.page), ...recognised.keys()])].sort((a, b) => a - b);

  let text = doc.text.slice(0, prefixEnd).trimEnd();
  const pages: NonNullable<ParsedDocument['pages']> = [];
  const headings: Heading[] = doc.headings.filter((h) => h.offset < prefixEnd && h.offset < text.length);
  const atomic: TextRange[] = doc.atomic.filter((r) => r.end <= text.length);
  for (const n of numbers) {
    const ocr = recognised.get(n);
    const old = sections.find((s) => s.page === n);
    if (!ocr && !old) continue;
    if (text) text += '\n\n';
    pages.push({ offset: text.length, page: n });
    if (ocr) {
      text += ocrPageMarker(n, unit) + (ocr.text.trim() ? `\n\n${ocr.text.trim()}` : '');
      continue;
    }
    const body = doc.text.slice(old!.start, old!.end).trimEnd();
    const shift = text.length - old!.start;
    for (const h of doc.headings) if (h.offset >= old!.start && h.offset < old!.start + body.length) headings.push({ ...h, offset: h.offset + shift });
    for (const r of doc.atomic) if (r.start >= old!.start && r.end <= old!.start + body.length) atomic.push({ start: r.start + shift, end: r.end + shift });
    text += body;
  }

  const warnings = (doc.warnings ?? []).filter((w) => !w.startsWith('needs OCR'));
  for (const f of result.failed) warnings.push(`OCR could not read page ${f.page}: ${f.reason}`);
  warnings.push(...result.warnings);
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    warnings.push(`text cut at ${maxChars.toLocaleString('en-US')} characters`);
  }
  const previous = (doc.metadata.ocr ?? null) as OcrMetadata | null;
  const confidence: Record<string, number> = { ...(previous?.engine === result.engine ? previous.confidence : {}) };
  for (const p of result.pages) confidence[String(p.page)] = Math.round(p.confidence);
  const metadata: Record<string, unknown> = { ...doc.metadata, ocr: { engine: result.engine, languages: result.languages, confidence } satisfies OcrMetadata };
  delete metadata.needsOcr;
  const stillNeeded = (doc.ocrPages ?? []).filter((n) => !recognised.has(n));
  return {
    ...doc,
    text,
    headings: headings.filter((h) => h.offset < text.length),
    atomic: atomic.filter((r) => r.end <= text.length),
    pages: pages.filter((p) => p.offset < text.length),
    warnings,
    metadata,
    ocrPages: stillNeeded,
  };
}

/** True when `line` is an OCR page marker (the text after it, to the next page, came from recognition). */
export function isOcrMarker(line: string): boolean {
  return OCR_MARKER.test(line);
}

/** A hit on this page of a document says its text was recognised, with the page's confidence (search/); undefined for text-layer pages. */
export function ocrHitInfo(pageConfidence: Record<string, number> | null, page: number | null): { ocr: OcrHitInfo } | Record<string, never> {
  const confidence = page === null ? undefined : pageConfidence?.[String(page)];
  return typeof confidence === 'number' ? { ocr: { confidence } } : {};
}
