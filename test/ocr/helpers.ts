// Shared by the OCR tests: the committed fixture page (six lines of known text, 300 dpi, 1-bit
// PNG), an engine over the app's own catalogue (English from the installed npm package), and
// image-only PDFs made from images with pdf-lib.
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { loadManifest } from '../../src-main/engine/embed/manifest.js';
import { OcrEngine, type OcrEngineOptions } from '../../src-main/engine/ocr/ocr-engine.js';
import { tempDir } from '../helpers/tmp.js';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/ocr');
export const LETTER_PNG = fs.readFileSync(path.join(fixtures, 'letter.png'));
export const LETTER_TEXT = fs.readFileSync(path.join(fixtures, 'letter.txt'), 'utf8').trim();

export function ocrEngine(opts: Partial<OcrEngineOptions> = {}): OcrEngine {
  return new OcrEngine({ models: { manifest: loadManifest(), locations: { cacheDir: tempDir('trove-ocr-models-') } }, ...opts });
}

/** Words of `expected` found, in order, in `actual` (a longest common subsequence over words), 0–1. */
export function wordRecall(expected: string, actual: string): number {
  const a = expected.split(/\s+/).filter(Boolean);
  const b = actual.split(/\s+/).filter(Boolean);
  const prev = new Array<number>(b.length + 1).fill(0);
  for (const w of a) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = w === b[j - 1] ? diag + 1 : Math.max(prev[j]!, prev[j - 1]!);
      diag = up;
    }
  }
  return a.length ? prev[b.length]! / a.length : 1;
}

/** A PDF whose pages are text (drawn with a standard font) or a full-page PNG (a scan). */
export async function makePdf(pages: ({ text: string } | { png: Uint8Array })[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const p of pages) {
    if ('text' in p) {
      const page = pdf.addPage([612, 792]);
      p.text.split('\n').forEach((line, i) => page.drawText(line, { x: 72, y: 700 - i * 18, size: 12, font }));
    } else {
      const image = await pdf.embedPng(p.png);
      // a scan: the image drawn at 300 dpi across the page's width
      const page = pdf.addPage([(image.width * 72) / 300, (image.height * 72) / 300]);
      page.drawImage(image, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
    }
  }
  return pdf.save();
}
