// PDF pages → grey pages for recognition, with PDFium (ingest/parsers/pdfium.ts). A page that is
// one upright image covering the page (what scanners write) is taken as that image, at its own
// resolution; any other page (strips, masks, rotated or cropped images, stray text over the scan)
// is rendered at 300 dpi, or smaller when 300 dpi would pass the pixel bound, so a poster-sized
// page still gets read. One document stays open while its pages are read.
import { PdfiumDocument, PdfOpenError, type PdfiumPage, type RawPixels } from '../ingest/parsers/pdfium.js';
import type { GreyPage } from './image-decode.js';
import { PDF_RENDER_DPI, type OcrLimits } from './types.js';

export class PdfPageError extends Error {}

/** An open PDF whose pages can be rendered one at a time; close() releases it. */
export class PdfRaster {
  private constructor(private readonly doc: PdfiumDocument) {}

  static async open(bytes: Uint8Array): Promise<PdfRaster> {
    try {
      return new PdfRaster(await PdfiumDocument.open(bytes));
    } catch (err) {
      if (err instanceof PdfOpenError) throw new PdfPageError(err.message);
      throw err;
    }
  }

  get pageCount(): number {
    return this.doc.pageCount;
  }

  /**
   * Page `n` (1-based) in grey: the page's own image when the page is nothing but one upright
   * image covering it (how scanners write a page: no resampling, no painting), else rendered at
   * 300 dpi, or at the resolution that fits the pixel bound.
   */
  async render(n: number, limits: Pick<OcrLimits, 'maxPixelsPerPage'>): Promise<GreyPage> {
    const count = this.doc.pageCount;
    if (n < 1 || n > count) throw new PdfPageError(`the PDF has no page ${n} (it has ${count})`);
    const page = this.doc.page(n - 1);
    if (!page) throw new PdfPageError(`page ${n} cannot be rendered: PDFium cannot load it`);
    try {
      const scan = scanImage(page, limits.maxPixelsPerPage);
      if (scan) return scan;
      const { width: w, height: h } = page.size();
      let scale = PDF_RENDER_DPI / 72;
      if (w * scale * h * scale > limits.maxPixelsPerPage) scale *= Math.sqrt(limits.maxPixelsPerPage / (w * scale * h * scale)) * 0.999;
      const width = Math.max(1, Math.floor(w * scale));
      const height = Math.max(1, Math.floor(h * scale));
      return { width, height, data: page.renderGrey(width, height), dpi: Math.round(scale * 72) };
    } catch (err) {
      throw new PdfPageError(`page ${n} cannot be rendered: ${(err as Error).message}`);
    } finally {
      page.close();
    }
  }

  async close(): Promise<void> {
    this.doc.close();
  }
}

/** The page's single full-page image as grey, or null when the page is anything else (or its pixels cannot be had). */
function scanImage(page: PdfiumPage, maxPixels: number): GreyPage | null {
  if (page.rotation() !== 0) return null;
  const only = page.onlyImage();
  if (!only) return null;
  const [a, b, c, d, e, f] = only.matrix as [number, number, number, number, number, number];
  const [x0, y0, x1, y1] = page.box();
  const near = (p: number, q: number) => Math.abs(p - q) <= Math.max(2, Math.abs(x1 - x0) * 0.02);
  if (b !== 0 || c !== 0 || a <= 0 || d <= 0 || !near(e, x0) || !near(f, y0) || !near(a, x1 - x0) || !near(d, y1 - y0)) return null;
  let img: RawPixels | null;
  try {
    img = only.pixels();
  } catch {
    return null;
  }
  if (!img || img.width * img.height > maxPixels) return null;
  const { width, height } = img;
  return { width, height, data: img.channels === 1 ? img.data : luminance(img.data, img.channels), dpi: Math.round((width * 72) / a) };
}

/** Grey from PDFium's blue, green, red (and unused or alpha) bytes: ITU-R 601 weights, in 8-bit fixed point. */
function luminance(bgr: Uint8Array, channels: 3 | 4): Uint8Array {
  const grey = new Uint8Array(bgr.length / channels);
  for (let i = 0, j = 0; i < grey.length; i++, j += channels) grey[i] = (bgr[j]! * 29 + bgr[j + 1]! * 150 + bgr[j + 2]! * 77) >> 8;
  return grey;
}
