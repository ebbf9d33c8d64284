// EPUB: chapters in spine order (the reading order the book declares), each chapter's XHTML read
// by the HTML parser; `[chapter N: heading]` in the text and the chapter number in each chunk's
// locator. Title, author and language from the package metadata. A chapter listed in the spine
// but missing from the archive is a warning; the rest of the book is indexed.
import { decodeText } from '../decode.js';
import { DocBuilder } from './doc-builder.js';
import { htmlParser } from './html.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';
import { find, findAll, parseXml, textOf } from './xml.js';
import { resolvePart, ZipArchive } from './zip.js';

const HTML_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);

export const epubParser: DocumentParser = {
  kind: 'epub',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const zip = new ZipArchive(bytes, limits, 'EPUB book');
    const container = zip.text('META-INF/container.xml');
    if (container === undefined) throw new Error('not an EPUB book (no META-INF/container.xml)');
    const opfPath = find(parseXml(container), 'rootfile')?.attribs['full-path'];
    const opfXml = opfPath ? zip.text(opfPath) : undefined;
    if (!opfPath || opfXml === undefined) throw new Error('the EPUB names no package document (OPF), or it is missing');
    const opf = parseXml(opfXml);
    const meta = (tag: string) => {
      const el = findAll(opf, new Set([tag, tag.replace('dc:', '')])).find((e) => textOf(e).trim());
      return el ? textOf(el).trim() : '';
    };
    const manifest = new Map<string, { href: string; type: string }>();
    for (const item of findAll(opf, 'item')) {
      if (item.attribs.id && item.attribs.href) manifest.set(item.attribs.id, { href: item.attribs.href, type: item.attribs['media-type'] ?? '' });
    }
    const spine = findAll(opf, 'itemref').map((r) => manifest.get(r.attribs.idref ?? '')).filter((m) => m && HTML_TYPES.has(m.type));
    const out = new DocBuilder(limits.maxTextChars);
    let chapter = 0;
    for (const item of spine) {
      if (out.isFull) break;
      const part = resolvePart(opfPath, item!.href);
      const raw = zip.read(part);
      chapter++;
      if (!raw) {
        out.page('chapter', chapter);
        out.warn(`chapter ${chapter} (${part}) is listed in the book's spine but missing from the file`);
        continue;
      }
      const decoded = decodeText(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
      if (!decoded.ok) {
        out.page('chapter', chapter);
        out.warn(`chapter ${chapter} (${part}) is not text`);
        continue;
      }
      const html = htmlParser.parse(decoded.text, part);
      const label = html.headings[0]?.text ?? '';
      out.page('chapter', chapter, label);
      out.parsed(html);
    }
    if (!spine.length) throw new Error('the EPUB has no chapters in its spine');
    const author = meta('dc:creator');
    const language = meta('dc:language');
    const subjects = findAll(opf, 'dc:subject').map((s) => textOf(s).trim().toLowerCase()).filter(Boolean);
    return out.build(meta('dc:title') || baseTitle(fileName), 'epub', { ...(author ? { author } : {}), ...(language ? { language } : {}), chapters: spine.length }, subjects);
  },
};
