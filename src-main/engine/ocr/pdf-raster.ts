// PDF pages → grey pages for recognition: pdf.js renders a page onto an @napi-rs/canvas canvas
// (pdf.js's own Node canvas) at 300 dpi, or smaller when 300 dpi would pass the pixel bound, so a
// poster-sized page still gets read. Rendering rather than lifting the page's embedded image
// handles every way a scanner writes a page (strips, masks, JBIG2, rotated images) and lines
// the text up exactly as the page shows it. One document stays open while its pages are read.
import { createCanvas } from '@napi-rs/canvas';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import sharp from 'sharp';
import { assetDirs, loadPdfJs } from '../ingest/parsers/pdf.js';
import type { GreyPage } from './image-decode.js';
import { PDF_RENDER_DPI, type OcrLimits } from './types.js';

type RenderParams = Parameters<PDFPageProxy['render']>[0];

export class PdfPageError extends Error {}

/** An open PDF whose pages can be rendered one at a time; close() releases it. */
export class PdfRaster {
  private constructor(private readonly doc: PDFDocumentProxy) {}

  static async open(bytes: Uint8Array): Promise<PdfRaster> {
    const { getDocument } = await loadPdfJs();
    // pdf.js takes ownership of (and may detach) the buffer it is given: hand it a copy
    const task = getDocument({ data: bytes.slice(), ...assetDirs(), cMapPacked: true, isEvalSupported: false, useSystemFonts: false, verbosity: 0 });
    try {
      return new PdfRaster(await task.promise);
    } catch (err) {
      await task.destroy();
      const e = err as Error;
      if (e.name === 'PasswordException') throw new PdfPageError('the PDF is encrypted with a password; it cannot be read');
      throw new PdfPageError(`not a readable PDF (${e.message})`);
    }
  }

  get pageCount(): number {
    return this.doc.numPages;
  }

  /** Renders page `n` (1-based) to grey at 300 dpi, or at the resolution that fits the pixel bound. */
  async render(n: number, limits: Pick<OcrLimits, 'maxPixelsPerPage'>): Promise<GreyPage> {
    if (n < 1 || n > this.doc.numPages) throw new PdfPageError(`the PDF has no page ${n} (it has ${this.doc.numPages})`);
    const page = await this.doc.getPage(n);
    try {
      let scale = PDF_RENDER_DPI / 72;
      const base = page.getViewport({ scale });
      const pixels = base.width * base.height;
      if (pixels > limits.maxPixelsPerPage) scale *= Math.sqrt(limits.maxPixelsPerPage / pixels) * 0.999;
      const viewport = page.getViewport({ scale });
      const width = Math.max(1, Math.floor(viewport.width));
      const height = Math.max(1, Math.floor(viewport.height));
      const canvas = createCanvas(width, height);
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, width, height);
      // @napi-rs/canvas is the canvas pdf.js itself creates under Node; its types are not the DOM's
      await page.render({ canvasContext: ctx as unknown as RenderParams['canvasContext'], canvas: canvas as unknown as RenderParams['canvas'], viewport }).promise;
      const rgba = ctx.getImageData(0, 0, width, height).data;
      // to grey natively (a JavaScript loop over a 300 dpi page took a third of a second)
      const grey = await sharp(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), { raw: { width, height, channels: 4 } }).greyscale().raw().toBuffer();
      return { width, height, data: new Uint8Array(grey.buffer, grey.byteOffset, width * height), dpi: Math.round(scale * 72) };
    } catch (err) {
      if (err instanceof PdfPageError) throw err;
      throw new PdfPageError(`page ${n} cannot be rendered: ${(err as Error).message}`);
    } finally {
      page.cleanup();
    }
  }

  async close(): Promise<void> {
    await this.doc.destroy();
  }
}
