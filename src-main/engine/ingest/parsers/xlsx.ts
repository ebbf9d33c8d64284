// XLSX (Excel 2007+): one section per sheet in workbook order, `[sheet N: name]` in the text and
// the sheet number in each chunk's locator; each row is one line of cell values joined by " | ".
// Sheets are read with a streaming XML parser that stops after the row bound, so a sheet of a
// million rows costs its first rows, not a million-row tree; the cut is reported as a warning.
// Numbers whose cell style is a date format are written as ISO dates (sheet-dates.ts).
import { Parser as XmlStream } from 'htmlparser2';
import { DocBuilder } from './doc-builder.js';
import { odfDate, readDateStyles, serialToIso, usesDate1904, type DateStyle } from './sheet-dates.js';
import { SheetWriter, xmlChunks } from './sheet-writer.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';
import { findAll, parseXml, readCoreProperties, readRelationships, relationshipId } from './xml.js';
import { resolvePart, ZipArchive } from './zip.js';

export const xlsxParser: DocumentParser = {
  kind: 'xlsx',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const zip = new ZipArchive(bytes, limits, 'Excel workbook');
    const workbook = zip.text('xl/workbook.xml');
    if (workbook === undefined) throw new Error('not an Excel workbook (no xl/workbook.xml)');
    const rels = readRelationships(zip.text('xl/_rels/workbook.xml.rels'));
    const shared = readSharedStrings(zip.text('xl/sharedStrings.xml'));
    const dates: SheetDates = { styles: readDateStyles(zip.text(stylesPart(rels))), date1904: usesDate1904(workbook) };
    const out = new DocBuilder(limits.maxTextChars);
    const sheets = findAll(parseXml(workbook), 'sheet');
    for (const [i, sheet] of sheets.entries()) {
      if (out.isFull) break;
      const name = sheet.attribs.name ?? `Sheet${i + 1}`;
      const rel = rels.get(relationshipId(sheet) ?? '');
      out.page('sheet', i + 1, name);
      out.heading(1, name);
      const part = rel && !rel.external ? resolvePart('xl/workbook.xml', rel.target) : undefined;
      const xml = part ? zip.text(part) : undefined;
      if (xml === undefined) {
        out.warn(`sheet "${name}" is missing from the file`);
        continue;
      }
      readSheet(xml, shared, dates, new SheetWriter(out, name, limits.maxRowsPerSheet));
    }
    const core = readCoreProperties(zip.text('docProps/core.xml'));
    const { title, keywords: _k, ...metadata } = core;
    return out.build(title || baseTitle(fileName), 'xlsx', { ...metadata, sheets: sheets.map((s) => s.attribs.name ?? '') });
  },
};

interface SheetDates {
  /** Per cell style: the date format it shows, or null. */
  styles: readonly (DateStyle | null)[];
  date1904: boolean;
}

/** The workbook's styles part (where number formats are), by its relationship; xl/styles.xml by convention. */
function stylesPart(rels: ReturnType<typeof readRelationships>): string {
  for (const rel of rels.values()) if (!rel.external && rel.type.endsWith('/styles')) return resolvePart('xl/workbook.xml', rel.target);
  return 'xl/styles.xml';
}

/** The shared strings, read with the streaming parser (a big workbook's table is no tree in memory). */
function readSharedStrings(xml: string | undefined): string[] {
  if (!xml) return [];
  const out: string[] = [];
  let current: string | null = null;
  let inText = 0;
  let inPhonetic = 0; // phonetic guides (<rPh>) are not part of the value
  const stream = new XmlStream(
    {
      onopentag(name) {
        if (name === 'si') current = '';
        else if (name === 'rPh') inPhonetic++;
        else if (name === 't') inText++;
      },
      ontext(data) {
        if (current !== null && inText && !inPhonetic) current += data;
      },
      onclosetag(name) {
        if (name === 'si' && current !== null) {
          out.push(current);
          current = null;
        } else if (name === 'rPh') inPhonetic--;
        else if (name === 't') inText--;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  for (const chunk of xmlChunks(xml)) stream.write(chunk);
  stream.end();
  return out;
}

/** Streams one sheet's XML into the writer; stops reading once the writer is full. */
function readSheet(xml: string, shared: readonly string[], dates: SheetDates, writer: SheetWriter): void {
  let cellType = '';
  let cellStyle: DateStyle | null = null;
  let inValue = false;
  let inInline = false;
  let value = '';
  let column = 0;
  let row: string[] = [];
  const stream = new XmlStream(
    {
      onopentag(name, attrs) {
        if (name === 'row') {
          row = [];
          column = 0;
        } else if (name === 'c') {
          cellType = attrs.t ?? 'n';
          cellStyle = attrs.s ? (dates.styles[Number(attrs.s)] ?? null) : null;
          value = '';
          const ref = attrs.r;
          column = ref ? columnIndex(ref) : column + 1;
        } else if (name === 'v') inValue = true;
        else if (name === 'is') inInline = true;
      },
      ontext(data) {
        if (inValue || inInline) value += data;
      },
      onclosetag(name) {
        if (name === 'v') inValue = false;
        else if (name === 'is') inInline = false;
        else if (name === 'c') {
          const text = cellText(cellType, value, shared, cellStyle, dates.date1904);
          if (text) {
            while (row.length < column - 1) row.push('');
            row[column - 1] = text;
          }
        } else if (name === 'row') writer.row(row);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  for (const chunk of xmlChunks(xml)) {
    if (writer.full) break;
    stream.write(chunk);
  }
  if (!writer.full) stream.end();
  writer.finish();
}

function cellText(type: string, raw: string, shared: readonly string[], date: DateStyle | null, date1904: boolean): string {
  const v = raw.trim();
  if (!v) return '';
  switch (type) {
    case 's':
      return (shared[Number(v)] ?? '').replace(/\s+/g, ' ').trim();
    case 'b':
      return v === '1' ? 'TRUE' : 'FALSE';
    case 'n':
      return date ? serialToIso(v, date, date1904) : v;
    case 'd': // an ISO 8601 date cell (strict OOXML)
      return odfDate(v);
    default:
      return raw.replace(/\s+/g, ' ').trim();
  }
}

/** "C12" → 3 (1-based column). */
function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref) {
    const c = ch.charCodeAt(0);
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return Math.max(1, n);
}
