// DOCX (Word 2007+): the body read straight from its OOXML parts. Paragraphs in heading styles
// (by style name or outline level, so localised style ids work) become the heading path; tables
// become text rows (cells joined by " | "), kept whole for the chunker. Pending tracked changes and
// comments are proposals and remarks, not the text: the body reads as it was before the pending
// revisions, and the insertions, deletions and comments follow it in their own marked sections.
// Pages: Word records where its last layout broke pages (w:lastRenderedPageBreak); a document that
// has them gets `[page N]` markers there (and the page in each chunk's locator), else its explicit
// page breaks are used; a generated file with neither has no pages (its heading path locates).
import { DocBuilder } from './doc-builder.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';
import { childElements, find, findAll, parseXml, readCoreProperties, readRelationships, textOf, type XmlNode } from './xml.js';
import { resolvePart, ZipArchive } from './zip.js';

interface StyleInfo {
  name: string;
  outline: number | null;
  basedOn: string | null;
}

export const docxParser: DocumentParser = {
  kind: 'docx',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const zip = new ZipArchive(bytes, limits, 'Word document');
    const mainPart = mainDocumentPart(zip);
    const xml = zip.text(mainPart);
    if (xml === undefined) throw new Error('not a Word document (no word/document.xml)');
    const styles = readStyles(zip.text(resolvePart(mainPart, 'styles.xml')));
    const body = find(parseXml(xml), 'w:body');
    if (!body) throw new Error('word/document.xml has no body');
    const out = new DocBuilder(limits.maxTextChars);
    const changes: string[] = [];
    let firstHeading = '';
    let styledTitle = '';
    const rendered = xml.includes('<w:lastRenderedPageBreak');
    const paged = rendered || /<w:br [^>]*w:type="page"|<w:pageBreakBefore[ />]/.test(xml);
    let page = 1;
    let pending = 0;
    if (paged) out.page('page', 1);
    const turn = (n: number) => {
      for (let i = 0; i < n; i++) out.page('page', ++page);
    };

    const visit = (el: XmlNode): void => {
      if (out.isFull) return;
      if (paged && (el.name === 'w:p' || el.name === 'w:tbl')) {
        const breaks = el.name === 'w:p' ? pageBreaks(el, rendered) : { before: 0, after: 0 };
        turn(pending + breaks.before);
        pending = breaks.after;
      }
      if (el.name === 'w:p') {
        const text = paragraphText(el, changes);
        const styleId = find(el, 'w:pStyle')?.attribs['w:val'];
        const level = headingLevel(el, styleId, styles);
        if (level === 0) {
          if (!styledTitle) styledTitle = text;
          out.heading(1, text);
        } else if (level) {
          if (!firstHeading) firstHeading = text;
          out.heading(level, text);
        } else out.paragraph(text);
      } else if (el.name === 'w:tbl') {
        out.lines(tableRows(el, changes), true);
      } else if (el.name === 'w:sdt' || el.name === 'w:sdtContent' || el.name === 'w:customXml') {
        for (const c of childElements(el)) visit(c);
      }
    };
    for (const el of childElements(body)) visit(el);

    if (changes.length) {
      out.marker('tracked changes');
      out.lines(changes);
    }
    const comments = readComments(zip.text(resolvePart(mainPart, 'comments.xml')));
    if (comments.length) {
      out.marker('comments');
      out.lines(comments);
    }
    const core = readCoreProperties(zip.text('docProps/core.xml'));
    const tags = core.keywords ? core.keywords.split(/[,;]/).map((t) => t.trim().toLowerCase()).filter(Boolean) : [];
    const { keywords: _k, title: coreTitle, ...metadata } = core;
    return out.build(coreTitle || styledTitle || firstHeading || baseTitle(fileName), 'docx', metadata, tags);
  },
};

function mainDocumentPart(zip: ZipArchive): string {
  for (const rel of readRelationships(zip.text('_rels/.rels')).values()) {
    if (rel.type.endsWith('/officeDocument')) return resolvePart('', rel.target);
  }
  return 'word/document.xml';
}

/** The paragraph as it reads without pending revisions; the revisions go to `changes`. */
function paragraphText(p: XmlNode, changes: string[]): string {
  let text = '';
  const walk = (n: XmlNode): void => {
    for (const c of n.children ?? []) {
      switch (c.name) {
        case 'w:t':
          text += textOf(c);
          break;
        case 'w:tab':
          text += ' ';
          break;
        case 'w:br':
        case 'w:cr':
          text += '\n';
          break;
        case 'w:ins': {
          const inserted = collapseRuns(c);
          if (inserted) changes.push(`inserted${by(c)}: ${inserted}`);
          break;
        }
        case 'w:del': {
          const deleted = findAll(c, 'w:delText').map(textOf).join('');
          if (deleted.trim()) changes.push(`deleted${by(c)}: ${deleted.trim()}`);
          text += deleted; // it is still the text until the revision is accepted
          break;
        }
        case 'w:pPr':
        case 'w:rPr':
        case 'w:instrText':
        case 'w:fldChar':
        case 'w:commentReference':
        case 'w:footnoteReference':
        case 'w:drawing':
        case 'w:pict':
          break;
        default:
          if (c.children?.length) walk(c);
      }
    }
  };
  walk(p);
  return text;
}

/** Page breaks of a paragraph: those before any of its text (the page starts with it) and those after. */
function pageBreaks(p: XmlNode, rendered: boolean): { before: number; after: number } {
  let before = 0;
  let after = 0;
  let text = false;
  if (!rendered) {
    const flag = find(p, 'w:pageBreakBefore');
    if (flag && !['0', 'false'].includes(flag.attribs['w:val'] ?? '')) before++;
  }
  const walk = (n: XmlNode): void => {
    for (const c of n.children ?? []) {
      const isBreak = rendered ? c.name === 'w:lastRenderedPageBreak' : c.name === 'w:br' && c.attribs['w:type'] === 'page';
      if (isBreak) {
        if (text) after++;
        else before++;
      } else if (c.name === 'w:t' && textOf(c).trim()) text = true;
      else if (c.name !== 'w:del' && c.children?.length) walk(c);
    }
  };
  walk(p);
  return { before, after }; // a break amid a paragraph's text counts after it: a paragraph stays on one page
}

function collapseRuns(n: XmlNode): string {
  return findAll(n, 'w:t').map(textOf).join('').replace(/\s+/g, ' ').trim();
}

function by(revision: XmlNode): string {
  const author = revision.attribs['w:author'];
  return author ? ` (${author})` : '';
}

function tableRows(tbl: XmlNode, changes: string[]): string[] {
  const rows: string[] = [];
  for (const tr of findAll(tbl, 'w:tr')) {
    const cells = findAll(tr, 'w:tc').map((tc) =>
      findAll(tc, new Set(['w:p', 'w:tbl']))
        .map((p) => (p.name === 'w:tbl' ? tableRows(p, changes).join(' / ') : paragraphText(p, changes)))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    if (cells.some(Boolean)) rows.push(cells.join(' | '));
  }
  return rows;
}

function readStyles(xml: string | undefined): Map<string, StyleInfo> {
  const styles = new Map<string, StyleInfo>();
  if (!xml) return styles;
  for (const s of findAll(parseXml(xml), 'w:style')) {
    const id = s.attribs['w:styleId'];
    if (!id) continue;
    const outline = find(s, 'w:outlineLvl')?.attribs['w:val'];
    styles.set(id, {
      name: (find(s, 'w:name')?.attribs['w:val'] ?? id).toLowerCase(),
      outline: outline !== undefined ? Number(outline) : null,
      basedOn: find(s, 'w:basedOn')?.attribs['w:val'] ?? null,
    });
  }
  return styles;
}

/** 1-6 for a heading, 0 for the document title style, null for body text. */
function headingLevel(p: XmlNode, styleId: string | undefined, styles: Map<string, StyleInfo>): number | null {
  const direct = find(p, 'w:outlineLvl')?.attribs['w:val'];
  if (direct !== undefined && Number(direct) < 9) return Number(direct) + 1;
  for (let id = styleId, depth = 0; id && depth < 10; depth++) {
    const style = styles.get(id);
    const name = style?.name ?? id.toLowerCase();
    if (name === 'title') return 0;
    const m = /^heading\s*([1-9])$/.exec(name);
    if (m) return Math.min(Number(m[1]), 6);
    if (style?.outline !== null && style?.outline !== undefined && style.outline < 9) return style.outline + 1;
    id = style?.basedOn ?? undefined;
  }
  return null;
}

function readComments(xml: string | undefined): string[] {
  if (!xml) return [];
  return findAll(parseXml(xml), 'w:comment')
    .map((c) => {
      const text = findAll(c, 'w:p').map((p) => collapseRuns(p)).filter(Boolean).join(' ');
      return text ? `${c.attribs['w:author'] ?? 'comment'}: ${text}` : '';
    })
    .filter(Boolean);
}
