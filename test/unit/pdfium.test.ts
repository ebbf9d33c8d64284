// PDFium as Trove reads it (parsers/pdfium.ts): text drawn a glyph at a time (as Chromium and
// Skia write PDFs) reads as words and lines again, across and up the page; OCR gets a scanner's
// page as its own image (colours in the right order) and any other page rendered in grey at 300
// dpi, turned as the page is shown, smaller when the pixel bound says so. PDFium's heap is bounded:
// what would need more fails with the reason, and the document goes on being read.
import { degrees, PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pdfParser } from '../../src-main/engine/ingest/parsers/pdf.js';
import { DEFAULT_PARSE_LIMITS } from '../../src-main/engine/ingest/parsers/types.js';
import { PdfiumDocument } from '../../src-main/engine/ingest/parsers/pdfium.js';
import { PdfPageError, PdfRaster } from '../../src-main/engine/ocr/pdf-raster.js';

/** Draws `text` one glyph per text object, each placed at the advance of the ones before it. */
function drawGlyphs(page: PDFPage, font: PDFFont, text: string, at: { x: number; y: number; size: number; up?: boolean }): void {
  let along = 0;
  for (const ch of text) {
    const [x, y] = at.up ? [at.x, at.y + along] : [at.x + along, at.y];
    if (ch !== ' ') page.drawText(ch, { x, y, size: at.size, font, rotate: degrees(at.up ? 90 : 0) });
    along += font.widthOfTextAtSize(ch, at.size);
  }
}

const png = (width: number, height: number, rgb: [number, number, number]) =>
  sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();

describe('PDFium', () => {
  it('joins glyphs drawn one at a time into words and lines, across the page and up its margin', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const page = pdf.addPage([612, 792]);
    drawGlyphs(page, font, 'Harbour lantern keeper', { x: 72, y: 700, size: 12 });
    drawGlyphs(page, font, 'tide tables for the estuary', { x: 72, y: 682, size: 12 });
    drawGlyphs(page, font, 'margin stamp', { x: 30, y: 300, size: 10, up: true });
    const doc = await pdfParser.parse(await pdf.save(), 'glyphs.pdf', DEFAULT_PARSE_LIMITS);
    expect(doc.text).toContain('Harbour lantern keeper\ntide tables for the estuary');
    expect(doc.text).toContain('margin stamp');
  });

  it("gives OCR a scanner's page as its own pixels, red and blue told apart", async () => {
    const pdf = await PDFDocument.create();
    for (const colour of [[255, 0, 0], [0, 0, 255]] as const) {
      const image = await pdf.embedPng(await png(600, 300, [...colour]));
      const page = pdf.addPage([144, 72]); // 600 px across 2 inches: 300 dpi
      page.drawImage(image, { x: 0, y: 0, width: 144, height: 72 });
    }
    const raster = await PdfRaster.open(await pdf.save());
    try {
      const [red, blue] = [await raster.render(1, { maxPixelsPerPage: 40e6 }), await raster.render(2, { maxPixelsPerPage: 40e6 })];
      expect(red).toMatchObject({ width: 600, height: 300, dpi: 300 });
      // luminance: red is several times brighter than blue; swapped channels would say the opposite
      expect(red.data[0]!).toBeGreaterThan(blue.data[0]! * 2);
    } finally {
      await raster.close();
    }
  });

  it('renders any other page in grey at 300 dpi, turned as shown, and smaller when the pixel bound says so', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const image = await pdf.embedPng(await png(100, 100, [128, 128, 128]));
    for (const turn of [0, 90]) {
      const page = pdf.addPage([144, 72]);
      page.drawText('Ledger', { x: 10, y: 30, size: 24, font });
      page.drawImage(image, { x: 100, y: 10, width: 30, height: 30 });
      page.setRotation(degrees(turn));
    }
    const raster = await PdfRaster.open(await pdf.save());
    try {
      const flat = await raster.render(1, { maxPixelsPerPage: 40e6 });
      expect(flat).toMatchObject({ width: 600, height: 300, dpi: 300 });
      expect(flat.data.length).toBe(600 * 300);
      const ink = flat.data.filter((v) => v < 64).length;
      expect(ink).toBeGreaterThan(1000); // the word, in black
      expect(flat.data.filter((v) => v > 240).length).toBeGreaterThan(600 * 300 * 0.5); // on white
      expect(await raster.render(2, { maxPixelsPerPage: 40e6 })).toMatchObject({ width: 300, height: 600 });
      const bounded = await raster.render(1, { maxPixelsPerPage: 600 * 300 / 4 });
      expect(bounded.width * bounded.height).toBeLessThanOrEqual(600 * 300 / 4);
      expect(bounded.dpi).toBe(150);
      await expect(raster.render(3, { maxPixelsPerPage: 40e6 })).rejects.toThrow(PdfPageError);
    } finally {
      await raster.close();
    }
  });

  it('refuses what would take its heap past the bound, and goes on reading', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage([144, 72]).drawText('Ledger', { x: 10, y: 30, size: 24, font });
    const doc = await PdfiumDocument.open(await pdf.save());
    try {
      const page = doc.page(0)!;
      try {
        // 1.6 GB of grey: under WebAssembly's own 2 GB, over the 1 GB bound
        expect(() => page.renderGrey(40_000, 40_000)).toThrow(/out of memory/);
        expect(page.renderGrey(60, 30).some((v) => v < 128)).toBe(true);
        expect(page.textItems().map((i) => i.str).join('')).toContain('Ledger');
      } finally {
        page.close();
      }
    } finally {
      doc.close();
    }
  });
});
