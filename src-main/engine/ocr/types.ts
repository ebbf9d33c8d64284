// What the OCR room takes and gives back: a job (an image file or some pages of a PDF, by their
// bytes, and the languages to read), the recognised pages (text as lines, the page's confidence)
// and the pages that could not be read, with the reason. The pipeline's OCR stage (phase 2) calls
// OcrEngine.recognize with these; nothing here knows about storage or collections.

/** Where the pages come from: an image file (PNG, JPEG, TIFF, WebP, GIF, BMP) or a PDF. */
export type OcrSourceKind = 'image' | 'pdf';

export interface OcrJob {
  kind: OcrSourceKind;
  /** The file's bytes (not copied by the caller; the engine shares them with its workers). */
  bytes: Uint8Array;
  /**
   * 1-based pages to read: a PDF's pages without a usable text layer (ParsedDocument.ocrPages), a
   * multi-page TIFF's pages. Default: page 1 of an image, every page of a PDF.
   */
  pages?: number[];
  /** Tesseract language codes, e.g. ['eng'] or ['eng', 'chi_sim']; default ['eng']. */
  languages?: string[];
  /** The file's sha256 when the caller has it (the index does): the cache key; else computed. */
  contentSha256?: string;
  /** Shown in reasons ("scan.png: …"); never used to read anything. */
  fileName?: string;
}

export interface OcrLine {
  text: string;
  /** Tesseract's confidence in the line, 0–100. */
  confidence: number;
}

export interface OcrPage {
  /** 1-based page number in the file. */
  page: number;
  /** The page's text: lines joined by \n, paragraphs separated by a blank line. */
  text: string;
  /** Paragraphs of recognised lines, in reading order. */
  paragraphs: OcrLine[][];
  /** The page's recognition confidence, 0–100 (Tesseract's mean word confidence); 0 for a page without text. */
  confidence: number;
}

export interface OcrFailure {
  page: number;
  reason: string;
}

export interface OcrResult {
  pages: OcrPage[];
  /** Pages that were asked for but could not be read (too large, damaged, timed out), with why. */
  failed: OcrFailure[];
  /** Things the caller should show the user (pages left out by the per-file bound). */
  warnings: string[];
  languages: string[];
  /** Which engine and data made the text (part of the cache key): `tesseract.js <v> <lang>:<sha8>…`. */
  engine: string;
}

/** Bounds of one job. */
export interface OcrLimits {
  /** Pixels of one page: an image over it fails before it is decoded (a decompression bomb); a PDF page is rendered smaller to fit. */
  maxPixelsPerPage: number;
  /** Pages read from one file; the rest are left out with a warning. */
  maxPagesPerFile: number;
  /** Longest one page may take (decode, render, recognise) before it is stopped and fails. */
  timePerPageMs: number;
}

export const DEFAULT_OCR_LIMITS: OcrLimits = {
  // 600 dpi US Letter is 33.7 MP: a page scanned finer than that is more likely a bomb than a document
  maxPixelsPerPage: 40_000_000,
  maxPagesPerFile: 2_000,
  timePerPageMs: 120_000,
};

/** Resolution PDF pages are rendered at for recognition (Tesseract reads 300 dpi best). */
export const PDF_RENDER_DPI = 300;
