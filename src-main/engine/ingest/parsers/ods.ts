// ODS (OpenDocument spreadsheets): one section per table (sheet), `[sheet N: name]` in the text
// and the sheet number in each chunk's locator, each row one line of cell values. Read with a
// streaming XML parser, bounded rows per sheet; repeated rows and cells (ODF's run-length form,
// often a million empty rows) are never expanded beyond the bound. Date and time cells are written
// from their ISO value, not the text a program chose to show (sheet-dates.ts).
import { Parser as XmlStream } from 'htmlparser2';
import { DocBuilder } from './doc-builder.js';
import { readMeta } from './opendocument.js';
import { odfDate, odfTime } from './sheet-dates.js';
import { SheetWriter, xmlChunks } from './sheet-writer.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';
import { ZipArchive } from './zip.js';

const MAX_REPEAT = 1000;

export const odsParser: DocumentParser = {
  kind: 'ods',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const zip = new ZipArchive(bytes, limits, 'OpenDocument spreadsheet');
    const content = zip.text('content.xml');
    if (content === undefined) throw new Error('not an OpenDocument spreadsheet (no content.xml)');
    const out = new DocBuilder(limits.maxTextChars);
    const sheets: string[] = [];
    let writer: SheetWriter | null = null;
    let row: string[] = [];
    let rowRepeat = 1;
    let cell = '';
    /** A date or time cell's value as ISO text (written instead of its shown text). */
    let cellValue: string | null = null;
    let cellRepeat = 1;
    let inCell = 0;
    let inAnnotation = 0;
    let paragraphs = 0;
    const stream = new XmlStream(
      {
        onopentag(name, attrs) {
          if (name === 'table:table') {
            const sheetName = attrs['table:name'] ?? `Sheet${sheets.length + 1}`;
            sheets.push(sheetName);
            out.page('sheet', sheets.length, sheetName);
            out.heading(1, sheetName);
            writer = new SheetWriter(out, sheetName, limits.maxRowsPerSheet);
          } else if (name === 'table:table-row') {
            row = [];
            rowRepeat = Math.min(Number(attrs['table:number-rows-repeated'] ?? 1) || 1, MAX_REPEAT);
          } else if (name === 'table:table-cell' || name === 'table:covered-table-cell') {
            inCell++;
            cell = '';
            cellValue = cellIso(attrs);
            paragraphs = 0;
            cellRepeat = Math.min(Number(attrs['table:number-columns-repeated'] ?? 1) || 1, MAX_REPEAT);
          } else if (name === 'office:annotation') inAnnotation++;
          else if (name === 'text:p' && inCell && !inAnnotation && paragraphs++ > 0) cell += ' ';
          else if (name === 'text:s' && inCell && !inAnnotation) cell += ' ';
        },
        ontext(data) {
          if (inCell && !inAnnotation) cell += data;
        },
        onclosetag(name) {
          if (name === 'office:annotation') inAnnotation--;
          else if ((name === 'table:table-cell' || name === 'table:covered-table-cell') && inCell) {
            inCell--;
            const text = cellValue ?? cell.replace(/\s+/g, ' ').trim();
            for (let i = 0; i < cellRepeat; i++) row.push(text);
          } else if (name === 'table:table-row' && writer) {
            // a run of empty rows writes nothing; a repeated row with text is written that many times
            if (row.some(Boolean)) for (let i = 0; i < rowRepeat && !writer.full; i++) writer.row(row);
          } else if (name === 'table:table' && writer) {
            writer.finish();
            writer = null;
          }
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
    // the body is read until every sheet is done; a full sheet skips its remaining rows cheaply
    for (const chunk of xmlChunks(content)) {
      if (out.isFull) break;
      stream.write(chunk);
    }
    stream.end();
    (writer as SheetWriter | null)?.finish();
    const meta = readMeta(zip.text('meta.xml'));
    const { title, ...metadata } = meta;
    return out.build(title || baseTitle(fileName), 'ods', { ...metadata, sheets });
  },
};

function cellIso(attrs: Record<string, string>): string | null {
  const type = attrs['office:value-type'];
  const date = attrs['office:date-value'];
  const time = attrs['office:time-value'];
  if (type === 'date' && date) return odfDate(date);
  if (type === 'time' && time) return odfTime(time);
  return null;
}
