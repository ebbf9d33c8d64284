// OpenDocument text (ODT) and presentations (ODP) from their content.xml. ODT: outline headings
// become the heading path, tables text rows, comments (office:annotation) and tracked changes are
// kept out of the body (comments follow it under a marker). ODP: one section per page (slide),
// its title frame as the heading and its speaker notes under `[notes]`. Spreadsheets: ods.ts.
import { DocBuilder } from './doc-builder.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';
import { childElements, find, findAll, parseXml, textOf, type XmlNode } from './xml.js';
import { ZipArchive } from './zip.js';

export const odtParser: DocumentParser = {
  kind: 'odt',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const { body, meta } = open(bytes, limits, 'OpenDocument text', 'office:text');
    const out = new DocBuilder(limits.maxTextChars);
    const comments: string[] = [];
    let firstHeading = '';
    const visit = (el: XmlNode): void => {
      if (out.isFull) return;
      switch (el.name) {
        case 'text:h': {
          const text = inlineText(el, comments);
          if (!firstHeading) firstHeading = text;
          out.heading(Number(el.attribs['text:outline-level'] ?? 1) || 1, text);
          break;
        }
        case 'text:p':
          out.paragraph(inlineText(el, comments));
          break;
        case 'table:table':
          out.lines(tableRows(el, comments), true);
          break;
        case 'text:tracked-changes':
        case 'office:forms':
        case 'text:sequence-decls':
          break;
        default:
          for (const c of childElements(el)) visit(c);
      }
    };
    for (const el of childElements(body)) visit(el);
    if (comments.length) {
      out.marker('comments');
      out.lines(comments);
    }
    return out.build(meta.title || firstHeading || baseTitle(fileName), 'odt', withoutTitle(meta));
  },
};

export const odpParser: DocumentParser = {
  kind: 'odp',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const { body, meta } = open(bytes, limits, 'OpenDocument presentation', 'office:presentation');
    const out = new DocBuilder(limits.maxTextChars);
    let firstTitle = '';
    const pages = findAll(body, 'draw:page');
    for (const [i, page] of pages.entries()) {
      if (out.isFull) break;
      out.page('slide', i + 1);
      const comments: string[] = [];
      let title = '';
      const blocks: string[][] = [];
      for (const frame of findAll(page, new Set(['draw:frame', 'presentation:notes', 'draw:custom-shape']))) {
        if (frame.name === 'presentation:notes') continue;
        const table = find(frame, 'table:table');
        const lines = table ? tableRows(table, comments) : findAll(frame, new Set(['text:p', 'text:h'])).map((p) => inlineText(p, comments)).filter(Boolean);
        if (!lines.length) continue;
        if (!title && frame.attribs['presentation:class'] === 'title') title = lines.join(' ');
        else blocks.push(lines);
      }
      if (title) out.heading(1, title);
      if (!firstTitle) firstTitle = title;
      for (const b of blocks) out.lines(b);
      const notes = find(page, 'presentation:notes');
      const noteLines = notes
        ? findAll(notes, 'draw:frame')
            .filter((f) => f.attribs['presentation:class'] === 'notes' || !f.attribs['presentation:class'])
            .flatMap((f) => findAll(f, new Set(['text:p', 'text:h'])).map((p) => inlineText(p, comments)))
            .filter(Boolean)
        : [];
      if (noteLines.length) {
        out.marker('notes');
        for (const n of noteLines) out.paragraph(n);
      }
    }
    return out.build(meta.title || firstTitle || baseTitle(fileName), 'odp', { ...withoutTitle(meta), slides: pages.length });
  },
};

export function open(bytes: Uint8Array, limits: Parameters<DocumentParser['parse']>[2], what: string, bodyName: string) {
  const zip = new ZipArchive(bytes, limits, what);
  const content = zip.text('content.xml');
  if (content === undefined) throw new Error(`not an ${what} file (no content.xml)`);
  const body = find(parseXml(content), bodyName);
  if (!body) throw new Error(`content.xml has no ${bodyName}: not an ${what} file`);
  return { zip, body, meta: readMeta(zip.text('meta.xml')) };
}

export function readMeta(xml: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!xml) return out;
  const root = parseXml(xml);
  for (const [tag, key] of [['dc:title', 'title'], ['dc:creator', 'author'], ['dc:subject', 'subject'], ['dc:description', 'description']] as const) {
    const el = find(root, tag);
    const value = el && textOf(el).trim();
    if (value) out[key] = value;
  }
  return out;
}

function withoutTitle(meta: Record<string, string>): Record<string, string> {
  const { title: _t, ...rest } = meta;
  return rest;
}

/** A paragraph's text: spans, links, spaces (text:s), tabs and line breaks; annotations go to `comments`. */
export function inlineText(p: XmlNode, comments: string[]): string {
  let text = '';
  const walk = (n: XmlNode): void => {
    for (const c of n.children ?? []) {
      if (c.type === 'text') text += c.data ?? '';
      else if (c.name === 'text:s') text += ' '.repeat(Math.min(Number(c.attribs['text:c'] ?? 1) || 1, 100));
      else if (c.name === 'text:tab') text += ' ';
      else if (c.name === 'text:line-break') text += '\n';
      else if (c.name === 'office:annotation') {
        const author = find(c, 'dc:creator');
        const body = findAll(c, 'text:p').map((x) => textOf(x).trim()).filter(Boolean).join(' ');
        if (body) comments.push(`${author ? textOf(author).trim() : 'comment'}: ${body}`);
      } else if (c.name === 'text:note' || c.name === 'office:annotation-end' || c.name === 'text:change' || c.name === 'text:bookmark') continue;
      else if (c.children?.length) walk(c);
    }
  };
  walk(p);
  return text;
}

function tableRows(table: XmlNode, comments: string[]): string[] {
  return findAll(table, 'table:table-row')
    .map((row) =>
      findAll(row, new Set(['table:table-cell', 'table:covered-table-cell']))
        .map((cell) => findAll(cell, new Set(['text:p', 'text:h'])).map((p) => inlineText(p, comments)).join(' ').replace(/\s+/g, ' ').trim())
        .join(' | ')
        .replace(/(?: \| )+$/, ''),
    )
    .filter((r) => r.replace(/[\s|]/g, ''));
}
