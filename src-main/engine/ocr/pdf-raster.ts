// PDF pages → grey pages for recognition. A page that is one upright image covering the page (what
// scanners write) is taken as that image, decoded by pdf.js, at its own resolution; any other page
// (strips, masks, rotated or cropped images, stray text over the scan) is rendered by pdf.js onto
// an @napi-rs/canvas canvas (pdf.js's own Node canvas) at 300 dpi, or smaller when 300 dpi would
// pass the pixel bound, so a poster-sized page still gets read. One document stays open while its
// pages are read.
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

  /**
   * Page `n` (1-based) in grey: the page's own image when the page is nothing but one upright
   * image covering it (how scanners write a page: no resampling, no painting), else rendered at
   * 300 dpi, or at the resolution that fits the pixel bound.
   */
  async render(n: number, limits: Pick<OcrLimits, 'maxPixelsPerPage'>): Promise<GreyPage> {
    if (n < 1 || n > this.doc.numPages) throw new PdfPageError(`the PDF has no page ${n} (it has ${this.doc.numPages})`);
    const page = await this.doc.getPage(n);
    try {
      const scan = await this.pageImage(page, limits.maxPixelsPerPage).catch(() => null);
      if (scan) return scan;
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

  /** The page's single full-page image as grey, or null when the page is anything else. */
  private async pageImage(page: PDFPageProxy, maxPixels: number): Promise<GreyPage | null> {
    if (page.rotate % 360 !== 0) return null;
    const { OPS } = await loadPdfJs();
    const ops = await page.getOperatorList();
    let ctm = [1, 0, 0, 1, 0, 0];
    const stack: number[][] = [];
    let image: { id: string; ctm: number[] } | null = null;
    for (const [i, fn] of ops.fnArray.entries()) {
      const args = ops.argsArray[i] as unknown[];
      if (fn === OPS.save) stack.push(ctm);
      else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
      else if (fn === OPS.transform) ctm = multiply(ctm, args as number[]);
      else if (fn === OPS.paintImageXObject && !image) image = { id: args[0] as string, ctm };
      else if (fn !== OPS.dependency) return null; // text, paths, a second image: render the page
    }
    if (!image) return null;
    const [a, b, c, d, e, f] = image.ctm as [number, number, number, number, number, number];
    const [x0, y0, x1, y1] = page.view as [number, number, number, number];
    const near = (p: number, q: number) => Math.abs(p - q) <= Math.max(2, Math.abs(x1 - x0) * 0.02);
    if (b !== 0 || c !== 0 || a <= 0 || d <= 0 || !near(e, x0) || !near(f, y0) || !near(a, x1 - x0) || !near(d, y1 - y0)) return null;
    const store = image.id.startsWith('g_') ? page.commonObjs : page.objs;
    const img = await new Promise<{ width: number; height: number; kind: number; data?: Uint8Array | Uint8ClampedArray }>((resolve) => {
      store.get(image.id, resolve as (data: unknown) => void);
    });
    if (!img.data || img.width * img.height > maxPixels) return null;
    const { width, height } = img;
    let grey: Uint8Array;
    if (img.kind === 1) {
      // GRAYSCALE_1BPP: rows of bits, each row padded to a byte, 1 = white
      grey = new Uint8Array(width * height);
      const rowBytes = (width + 7) >> 3;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) grey[y * width + x] = img.data[y * rowBytes + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
      }
    } else {
      const channels = img.kind === 2 ? 3 : 4;
      const out = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width, height, channels } }).greyscale().raw().toBuffer();
      grey = new Uint8Array(out.buffer, out.byteOffset, width * height);
    }
    return { width, height, data: grey, dpi: Math.round((width * 72) / a) };
  }

  async close(): Promise<void> {
    await this.doc.destroy();
  }
}

/** The PDF matrix product m × n (n applied first, as `cm` concatenates). */
function multiply(m: number[], n: number[]): number[] {
  const [a, b, c, d, e, f] = m as [number, number, number, number, number, number];
  const [a2, b2, c2, d2, e2, f2] = n as [number, number, number, number, number, number];
  return [a2 * a + b2 * c, a2 * b + b2 * d, c2 * a + d2 * c, c2 * b + d2 * d, e2 * a + f2 * c + e, e2 * b + f2 * d + f];
}
