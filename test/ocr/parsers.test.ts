// What the document parsers tell the OCR stage: an image file is a document of kind `image` whose
// pages all need OCR (found by its name until then); a PDF lists the pages that draw an image and
// have no text layer, or only stray characters, and no others; and the merge of recognised pages
// into a document (markers, locators, headings and warnings), on its own.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INCLUDE } from '../../src-main/engine/ingest/defaults.js';
import { documentParserFor, KNOWN_KINDS } from '../../src-main/engine/ingest/parsers/index.js';
import { pdfParser } from '../../src-main/engine/ingest/parsers/pdf.js';
import { DEFAULT_PARSE_LIMITS, PAGE_MARKER_LINE, type ParsedDocument } from '../../src-main/engine/ingest/parsers/types.js';
import { prepareBinaryDocument } from '../../src-main/engine/ingest/prepare.js';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { isOcrMarker, mergeOcrPages } from '../../src-main/engine/ocr/merge.js';
import type { OcrPage } from '../../src-main/engine/ocr/types.js';
import { LETTER_PNG, makePdf } from './helpers.js';

const page = (n: number, text: string, confidence = 90): OcrPage => ({ page: n, text, paragraphs: [text.split('\n').map((t) => ({ text: t, confidence }))], confidence });
const result = (pages: OcrPage[], failed: { page: number; reason: string }[] = []) => ({ pages, failed, warnings: [], engine: 'test-engine', languages: ['eng'] });

describe('images as documents', () => {
  it('PNG, JPEG, TIFF, WebP, GIF and BMP are kind image, every page needing OCR; indexed by default', async () => {
    for (const ext of ['png', 'jpg', 'jpeg', 'tif', 'tiff', 'webp', 'gif', 'bmp']) expect(documentParserFor(`scan.${ext}`)?.kind).toBe('image');
    expect(KNOWN_KINDS).toContain('image');
    for (const ext of ['png', 'jpg', 'jpeg', 'tif', 'tiff', 'webp', 'gif', 'bmp']) expect(DEFAULT_INCLUDE.join(' ')).toMatch(new RegExp(`[{,]${ext}[,}]`));

    const prepared = await prepareBinaryDocument(LETTER_PNG, 'Scans/harbour crane.png', DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS);
    expect(prepared).toMatchObject({ ok: true, kind: 'image', title: 'harbour crane', text: 'harbour crane', ocrPages: [1], metadata: { format: 'png', pages: 1 } });
    expect(prepared.ok && prepared.warning).toMatch(/^needs OCR: an image; indexed by its name only/);
  });

  it('a multi-page TIFF has its pages; what is not an image fails with the reason', async () => {
    const tiff = await sharp([LETTER_PNG, LETTER_PNG, LETTER_PNG], { join: { animated: true } }).tiff().toBuffer();
    const fax = await imageDoc(tiff, 'fax.tiff');
    expect(fax.ocrPages).toEqual([1, 2, 3]);
    expect(fax.metadata).toEqual({ format: 'tiff', pages: 3 });
    const gif = await sharp([LETTER_PNG, LETTER_PNG], { join: { animated: true } }).gif().toBuffer();
    expect((await imageDoc(gif, 'anim.gif')).ocrPages).toEqual([1]); // frames of an animation are not pages
    const notImage = await prepareBinaryDocument(Buffer.from('plain text, named .png'), 'x.png', DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS);
    expect(notImage).toMatchObject({ ok: false, status: 'failed', reason: 'cannot read as image: not an image Trove can read (PNG, JPEG, TIFF, WebP, GIF or BMP expected)' });
  });
});

describe('which PDF pages need OCR', () => {
  it('a text PDF: none, and nothing about OCR', async () => {
    const doc = await pdfParser.parse(await makePdf([{ text: 'One page of real text, with a text layer.' }]), 'a.pdf', DEFAULT_PARSE_LIMITS);
    expect(doc.ocrPages).toEqual([]);
    expect(doc.warnings).toEqual([]);
  });

  it('a page with only stray characters over an image needs it; a blank page does not', async () => {
    const bytes = await makePdf([{ text: 'A real page of text that needs no recognition at all.' }, { png: LETTER_PNG }, { text: '7' }]);
    const doc = await pdfParser.parse(bytes, 'b.pdf', DEFAULT_PARSE_LIMITS);
    expect(doc.ocrPages).toEqual([2]);
  });

  it('a scan-only PDF: every page, and still found by its name meanwhile', async () => {
    const doc = await pdfParser.parse(await makePdf([{ png: LETTER_PNG }, { png: LETTER_PNG }]), 'contract.pdf', DEFAULT_PARSE_LIMITS);
    expect(doc.ocrPages).toEqual([1, 2]);
    expect(doc.text).toBe('contract');
    expect(doc.warnings![0]).toMatch(/^needs OCR: the PDF has no text layer/);
  });
});

describe('merging recognised pages', () => {
  const text = '[page 1]\n\nIntro\n\nFirst page text.\n\n[page 2]\n\nx\n\n[page 3]\n\nClosing\n\nLast words.';
  const doc: ParsedDocument = {
    text,
    title: 't', kind: 'pdf', tags: [], metadata: { pages: 3 }, bodyStart: 0,
    headings: [{ offset: text.indexOf('Intro'), level: 1, text: 'Intro' }, { offset: text.indexOf('Closing'), level: 1, text: 'Closing' }],
    atomic: [],
    pages: [1, 2, 3].map((n) => ({ offset: text.indexOf(`[page ${n}]`), page: n })),
    warnings: ['needs OCR: page 2 has no text layer (scanned?)'],
    ocrPages: [2],
  };

  it('replaces the OCRed page, keeps the others where their headings and pages say', () => {
    const merged = mergeOcrPages(doc, result([page(2, 'Scanned line one\nScanned line two')]));
    expect(merged.text).toBe('[page 1]\n\nIntro\n\nFirst page text.\n\n[page 2, OCR]\n\nScanned line one\nScanned line two\n\n[page 3]\n\nClosing\n\nLast words.');
    for (const p of merged.pages!) expect(merged.text.slice(p.offset).split('\n')[0]).toMatch(new RegExp(`^\\[page ${p.page}(, OCR)?\\]$`));
    for (const h of merged.headings) expect(merged.text.slice(h.offset, h.offset + h.text.length)).toBe(h.text);
    expect(merged.warnings).toEqual([]);
    expect(merged.ocrPages).toEqual([]);
    expect(merged.metadata).toEqual({ pages: 3, ocr: { engine: 'test-engine', languages: ['eng'], confidence: { 2: 90 } } });
    expect('[page 2, OCR]').toMatch(new RegExp(PAGE_MARKER_LINE.source)); // never searched, like every marker
    expect(isOcrMarker('[page 2, OCR]')).toBe(true);
    expect(isOcrMarker('[page 2]')).toBe(false);
  });

  it('a page that could not be read stays needed, with the reason as a warning', () => {
    const merged = mergeOcrPages(doc, result([], [{ page: 2, reason: 'the image is truncated' }]));
    expect(merged.text).toBe(doc.text);
    expect(merged.ocrPages).toEqual([2]);
    expect(merged.warnings).toEqual(['OCR could not read page 2: the image is truncated']);
  });

  it('an image (a name, no page markers yet) becomes its name and one OCR page', () => {
    const image: ParsedDocument = { text: 'receipt', title: 'receipt', kind: 'image', tags: [], metadata: {}, headings: [], atomic: [], bodyStart: 0, pages: [], ocrPages: [1], warnings: ['needs OCR: an image'] };
    const merged = mergeOcrPages(image, result([page(1, 'TOTAL 12.40 EUR')]));
    expect(merged.text).toBe('receipt\n\n[page 1, OCR]\n\nTOTAL 12.40 EUR');
    expect(merged.pages).toEqual([{ offset: 9, page: 1 }]);
  });
});

async function imageDoc(bytes: Uint8Array, name: string): Promise<ParsedDocument> {
  const parser = documentParserFor(name)!;
  return parser.parse(bytes, name, DEFAULT_PARSE_LIMITS);
}

describe('decoding every image format to the grey page Tesseract reads', () => {
  it('PNG, JPEG, TIFF (a chosen page), WebP, GIF and BMP give the same page', async () => {
    const { decodeImagePage } = await import('../../src-main/engine/ocr/image-decode.js');
    const bmp = (await import('bmp-js')).default as unknown as { encode(img: { data: Buffer; width: number; height: number }): { data: Buffer } };
    const raw = await sharp(LETTER_PNG).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const abgr = Buffer.alloc(raw.data.length);
    for (let i = 0; i < raw.data.length; i += 4) abgr.set([255, raw.data[i + 2]!, raw.data[i + 1]!, raw.data[i]!], i);
    const blank = await sharp({ create: { width: 2100, height: 660, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const files: [string, Buffer, number][] = [
      ['png', LETTER_PNG, 1],
      ['jpeg', await sharp(LETTER_PNG).jpeg({ quality: 95 }).toBuffer(), 1],
      ['tiff', await sharp([blank, LETTER_PNG], { join: { animated: true } }).tiff().toBuffer(), 2],
      ['webp', await sharp(LETTER_PNG).webp({ lossless: true }).toBuffer(), 1],
      ['gif', await sharp(LETTER_PNG).gif().toBuffer(), 1],
      ['bmp', bmp.encode({ data: abgr, width: raw.info.width, height: raw.info.height }).data, 1],
    ];
    const ink = (d: Uint8Array) => d.reduce((n, v) => n + (v < 128 ? 1 : 0), 0);
    const reference = ink((await decodeImagePage(LETTER_PNG, 1, { maxPixelsPerPage: 4e7 })).data);
    expect(reference).toBeGreaterThan(10_000);
    for (const [format, bytes, pageNo] of files) {
      const grey = await decodeImagePage(bytes, pageNo, { maxPixelsPerPage: 4e7 });
      expect([format, grey.width, grey.height]).toEqual([format, 2100, 660]);
      expect(Math.abs(ink(grey.data) - reference) / reference, format).toBeLessThan(0.05);
    }
    await expect(decodeImagePage(files[5]![1].subarray(0, 5000), 1, { maxPixelsPerPage: 4e7 })).rejects.toThrow(/^the image is truncated \(the BMP has 5000 bytes/);
  });
});
