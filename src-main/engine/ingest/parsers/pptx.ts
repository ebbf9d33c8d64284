// PPTX (PowerPoint 2007+): one section per slide in presentation order, `[slide N]` in the text
// and the slide number in each chunk's locator; the slide's title is its heading; tables as
// text rows; speaker notes follow their slide under a `[notes]` marker.
import { DocBuilder } from './doc-builder.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';
import { find, findAll, parseXml, readCoreProperties, readRelationships, relationshipId, textOf, type XmlNode } from './xml.js';
import { resolvePart, ZipArchive } from './zip.js';

const TITLE_TYPES = new Set(['title', 'ctrTitle']);
const SHAPES = new Set(['p:sp', 'p:graphicFrame']);

export const pptxParser: DocumentParser = {
  kind: 'pptx',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const zip = new ZipArchive(bytes, limits, 'PowerPoint file');
    const presentation = zip.text('ppt/presentation.xml');
    if (presentation === undefined) throw new Error('not a PowerPoint file (no ppt/presentation.xml)');
    const rels = readRelationships(zip.text('ppt/_rels/presentation.xml.rels'));
    const slideParts = findAll(parseXml(presentation), 'p:sldId')
      .map((s) => rels.get(relationshipId(s) ?? ''))
      .filter((r) => r && !r.external)
      .map((r) => resolvePart('ppt/presentation.xml', r!.target));
    const out = new DocBuilder(limits.maxTextChars);
    let firstTitle = '';
    for (const [i, part] of slideParts.entries()) {
      if (out.isFull) break;
      const xml = zip.text(part);
      out.page('slide', i + 1);
      if (xml === undefined) {
        out.warn(`slide ${i + 1} (${part}) is missing from the file`);
        continue;
      }
      const { title, blocks } = readSlide(parseXml(xml));
      if (title) out.heading(1, title);
      if (!firstTitle) firstTitle = title;
      for (const b of blocks) out.lines(b.lines, b.table);
      const notes = readNotes(zip, part);
      if (notes.length) {
        out.marker('notes');
        for (const n of notes) out.paragraph(n);
      }
    }
    const core = readCoreProperties(zip.text('docProps/core.xml'));
    const { title: coreTitle, keywords: _k, ...metadata } = core;
    return out.build(coreTitle || firstTitle || baseTitle(fileName), 'pptx', { ...metadata, slides: slideParts.length });
  },
};

function readSlide(root: XmlNode): { title: string; blocks: { lines: string[]; table: boolean }[] } {
  let title = '';
  const blocks: { lines: string[]; table: boolean }[] = [];
  for (const shape of findAll(root, SHAPES)) {
    const table = find(shape, 'a:tbl');
    if (table) {
      blocks.push({ lines: findAll(table, 'a:tr').map((tr) => findAll(tr, 'a:tc').map((tc) => paragraphs(tc).join(' ')).join(' | ')), table: true });
      continue;
    }
    const type = find(shape, 'p:ph')?.attribs.type;
    const lines = paragraphs(shape);
    if (!lines.length) continue;
    if (type && TITLE_TYPES.has(type) && !title) title = lines.join(' ');
    else blocks.push({ lines, table: false });
  }
  return { title, blocks };
}

function paragraphs(node: XmlNode): string[] {
  return findAll(node, 'a:p')
    .map((p) => {
      let text = '';
      const walk = (n: XmlNode): void => {
        for (const c of n.children ?? []) {
          if (c.name === 'a:t') text += textOf(c);
          else if (c.name === 'a:br') text += ' ';
          else if (c.children?.length && c.name !== 'a:rPr' && c.name !== 'a:pPr') walk(c);
        }
      };
      walk(p);
      return text.replace(/\s+/g, ' ').trim();
    })
    .filter(Boolean);
}

function readNotes(zip: ZipArchive, slidePart: string): string[] {
  const relsPart = resolvePart(slidePart, `_rels/${slidePart.slice(slidePart.lastIndexOf('/') + 1)}.rels`);
  for (const rel of readRelationships(zip.text(relsPart)).values()) {
    if (!rel.type.endsWith('/notesSlide') || rel.external) continue;
    const xml = zip.text(resolvePart(slidePart, rel.target));
    if (!xml) return [];
    // the notes body only: not the slide image, slide number, date or header placeholders
    return findAll(parseXml(xml), 'p:sp')
      .filter((sp) => {
        const type = find(sp, 'p:ph')?.attribs.type;
        return type === 'body' || type === undefined;
      })
      .flatMap(paragraphs);
  }
  return [];
}
