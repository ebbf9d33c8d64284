// Image files (PNG, JPEG, TIFF, WebP, GIF, BMP) as documents of kind `image`: their text is in
// their pixels, so the parser only reads the header (format, size, a TIFF's page count) and lists
// every page in `ocrPages` for the OCR stage; until then the file is found by its name, with a
// "needs OCR" warning. An image is one page (a multi-page TIFF, a fax or a scanned contract, has
// its pages); the header is checked here, the pixels only by the OCR worker, within its bounds.
import { DocBuilder } from './doc-builder.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';

export const imageParser: DocumentParser = {
  kind: 'image',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    // loaded on the first image: sharp (native) stays out of processes that never see one
    const { imagePageCount, ImageError } = await import('../../ocr/image-decode.js');
    let info;
    try {
      info = await imagePageCount(bytes);
    } catch (err) {
      throw new Error(err instanceof ImageError ? err.message : `cannot read the image: ${(err as Error).message}`);
    }
    const pages = Math.min(info.pages, limits.maxPages);
    const name = baseTitle(fileName);
    const doc = new DocBuilder(limits.maxTextChars);
    doc.paragraph(name);
    doc.warn(`needs OCR: an image${info.pages > 1 ? ` of ${info.pages} pages` : ''}; indexed by its name only until its text is recognised`);
    if (info.pages > pages) doc.warn(`the image has ${info.pages} pages; only the first ${pages} will be read`);
    const parsed = doc.build(name, 'image', { format: info.format, pages: info.pages });
    return { ...parsed, ocrPages: Array.from({ length: pages }, (_, i) => i + 1) };
  },
};
