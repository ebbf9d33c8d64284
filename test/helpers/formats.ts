// The document fixtures (test/fixtures/formats, made by scripts/make-format-fixtures.mjs) and the
// large files tests make on the fly (too big to commit): a million-row workbook, a huge ODT.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, zipSync } from 'fflate';

export const FORMATS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/formats');

/** Every file of a fixture folder ('good', 'broken', 'encodings'), by name. */
export function fixtureFiles(folder: 'good' | 'broken' | 'encodings'): Record<string, Buffer> {
  const dir = path.join(FORMATS, folder);
  return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f))]));
}

/** An XLSX with one sheet of `rows` rows (a heading row, then numbers), the smallest valid package. */
export function manyRowsXlsx(rows: number): Buffer {
  const parts: string[] = ['<row><c t="inlineStr"><is><t>Seismograph readings</t></is></c></row>'];
  for (let i = 1; i < rows; i++) parts.push(`<row><c><v>${i}</v></c></row>`);
  const sheet = `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${parts.join('')}</sheetData></worksheet>`;
  return Buffer.from(zipSync({
    '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    'xl/workbook.xml': strToU8('<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Readings" sheetId="1" r:id="rId1"/></sheets></workbook>'),
    'xl/_rels/workbook.xml.rels': strToU8('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
    'xl/worksheets/sheet1.xml': [strToU8(sheet), { level: 1 }],
  }));
}

/** An ODT of `paragraphs` short paragraphs (its element tree is far bigger than its bytes). */
export function manyParagraphsOdt(paragraphs: number): Buffer {
  const body = '<text:p>word</text:p>'.repeat(paragraphs);
  const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
  return Buffer.from(zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
    'content.xml': [strToU8(`<?xml version="1.0"?><office:document-content ${ns}><office:body><office:text>${body}</office:text></office:body></office:document-content>`), { level: 1 }],
  }));
}
