// Dates in spreadsheets: number formats that show dates (built-in and custom), serial numbers in
// both date systems, and real workbooks — XLSX written by exceljs in the 1900 and 1904 systems,
// an ODS with date and time cells — whose date cells come out as ISO dates, never as serials.
import ExcelJS from 'exceljs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { odsParser } from '../../src-main/engine/ingest/parsers/ods.js';
import { formatShape, odfDate, odfTime, serialToIso } from '../../src-main/engine/ingest/parsers/sheet-dates.js';
import { DEFAULT_PARSE_LIMITS } from '../../src-main/engine/ingest/parsers/types.js';
import { xlsxParser } from '../../src-main/engine/ingest/parsers/xlsx.js';

describe('number formats', () => {
  it.each([
    ['yyyy-mm-dd', 'date'],
    ['d-mmm-yy', 'date'],
    ['[$-409]mmmm d, yyyy;@', 'date'],
    ['dd/mm/yyyy hh:mm', 'datetime'],
    ['h:mm AM/PM', 'time'],
    ['mm:ss', 'time'],
    ['[Red]yyyy"年"m"月"d"日"', 'date'],
    ['ggge"年"m"月"d"日"', 'date'],
  ])('%s shows a %s', (code, shape) => {
    expect(formatShape(code)?.shape).toBe(shape);
  });

  it.each(['General', '0.00', '#,##0 "days"', '0.00E+00', '[h]:mm:ss', '@', '"d"0'])('%s is a number, not a date', (code) => {
    expect(formatShape(code)).toBeNull();
  });
});

describe('serial numbers', () => {
  const date = { shape: 'date', seconds: false } as const;
  const datetime = { shape: 'datetime', seconds: false } as const;
  it('counts days from 1899-12-30, or from 1904-01-01 in the 1904 system', () => {
    expect(serialToIso('46085', date, false)).toBe('2026-03-04');
    expect(serialToIso('44623', date, true)).toBe('2026-03-04');
    expect(serialToIso('46085.3958333333', datetime, false)).toBe('2026-03-04 09:30');
    expect(serialToIso('0.75', { shape: 'time', seconds: true }, false)).toBe('18:00:00');
  });

  it("keeps Excel's count before March 1900 (its phantom 29 February)", () => {
    expect(serialToIso('1', date, false)).toBe('1900-01-01');
    expect(serialToIso('59', date, false)).toBe('1900-02-28');
    expect(serialToIso('60', date, false)).toBe('1900-02-29');
    expect(serialToIso('61', date, false)).toBe('1900-03-01');
  });

  it('leaves what is no date as it is', () => {
    expect(serialToIso('-3', date, false)).toBe('-3');
    expect(serialToIso('n/a', date, false)).toBe('n/a');
  });

  it('reads OpenDocument date and time values', () => {
    expect(odfDate('2026-03-04')).toBe('2026-03-04');
    expect(odfDate('2026-03-04T00:00:00')).toBe('2026-03-04');
    expect(odfDate('2026-03-04T09:30:00')).toBe('2026-03-04 09:30');
    expect(odfDate('2026-03-04T09:30:15.5')).toBe('2026-03-04 09:30:15');
    expect(odfTime('PT09H30M00S')).toBe('09:30');
    expect(odfTime('PT18H05M07S')).toBe('18:05:07');
  });
});

async function workbook(date1904: boolean): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  book.properties.date1904 = date1904;
  const sheet = book.addWorksheet('Log');
  sheet.addRow(['Event', 'When', 'Count']);
  sheet.addRow(['Launch', new Date(Date.UTC(2026, 2, 4)), 46085]); // the same number, not a date
  const meeting = sheet.addRow(['Meeting', new Date(Date.UTC(2026, 2, 4, 9, 30)), 3]);
  meeting.getCell(2).numFmt = 'yyyy-mm-dd hh:mm';
  const lunch = sheet.addRow(['Lunch', 0.5, 1]);
  lunch.getCell(2).numFmt = 'h:mm';
  return new Uint8Array(await book.xlsx.writeBuffer());
}

describe('workbooks', () => {
  it.each([false, true])('XLSX (date1904 %s): date cells as ISO dates, numbers as numbers', async (date1904) => {
    const doc = await xlsxParser.parse(await workbook(date1904), 'log.xlsx', DEFAULT_PARSE_LIMITS);
    expect(doc.text).toContain('Launch | 2026-03-04 | 46085\nMeeting | 2026-03-04 09:30 | 3\nLunch | 12:00 | 1');
  });

  it('ODS: date and time cells from their ISO values, not the text shown', async () => {
    const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"';
    const cell = (attrs: string, shown: string) => `<table:table-cell ${attrs}><text:p>${shown}</text:p></table:table-cell>`;
    const rows = [
      `<table:table-row>${cell('', 'Launch')}${cell('office:value-type="date" office:date-value="2026-03-04"', '03/04/26')}</table:table-row>`,
      `<table:table-row>${cell('', 'Meeting')}${cell('office:value-type="date" office:date-value="2026-03-04T09:30:00"', 'Wednesday 4 March 2026 9:30')}</table:table-row>`,
      `<table:table-row>${cell('', 'Lunch')}${cell('office:value-type="time" office:time-value="PT12H00M00S"', '12:00 PM')}</table:table-row>`,
      `<table:table-row>${cell('', 'Count')}${cell('office:value-type="float" office:value="46085"', '46085')}</table:table-row>`,
    ];
    const bytes = zipSync({
      mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }],
      'content.xml': strToU8(`<?xml version="1.0"?><office:document-content ${ns}><office:body><office:spreadsheet><table:table table:name="Log">${rows.join('')}</table:table></office:spreadsheet></office:body></office:document-content>`),
    });
    const doc = await odsParser.parse(bytes, 'log.ods', DEFAULT_PARSE_LIMITS);
    expect(doc.text).toContain('Launch | 2026-03-04\nMeeting | 2026-03-04 09:30\nLunch | 12:00\nCount | 46085');
  });
});
