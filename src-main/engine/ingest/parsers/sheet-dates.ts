// Dates in spreadsheets. XLSX stores a date as a number (days since 1899-12-30, or since 1904-01-01
// when the workbook says date1904) and only its cell style's number format says it is a date;
// ODS stores an ISO value beside the text a program chose to show. Both come out as ISO dates
// ("2026-03-04", "2026-03-04 09:30", "09:30:00"), so a date reads and searches the same whatever
// the file's locale — never as the serial 46085. A space, not "T", joins date and time: the
// keyword tokenizer would glue "04T09" into one word.
import { find, findAll, parseXml } from './xml.js';

/** What a number format shows: a date, a time of day, both, or (null) a plain number. */
export type DateShape = 'date' | 'time' | 'datetime';

export interface DateStyle {
  shape: DateShape;
  /** The format shows seconds (else a time is given to the minute). */
  seconds: boolean;
}

// Built-in number formats (ECMA-376 §18.8.30) that show dates or times; 27–36 and 50–58 are the
// East Asian date formats. 46 ([h]:mm:ss) is a duration: a number, not a time of day.
const BUILT_IN: Record<number, DateStyle> = {
  14: { shape: 'date', seconds: false }, 15: { shape: 'date', seconds: false }, 16: { shape: 'date', seconds: false },
  17: { shape: 'date', seconds: false }, 18: { shape: 'time', seconds: false }, 19: { shape: 'time', seconds: true },
  20: { shape: 'time', seconds: false }, 21: { shape: 'time', seconds: true }, 22: { shape: 'datetime', seconds: false },
  45: { shape: 'time', seconds: true }, 47: { shape: 'time', seconds: true },
};
for (const id of [27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58]) BUILT_IN[id] = { shape: 'date', seconds: false };
for (const id of [32, 33, 55, 56]) BUILT_IN[id] = { shape: 'time', seconds: false };

/** A custom format code's shape: y, d or a month's m make a date; h, s or AM/PM a time; [h] is a duration. */
export function formatShape(code: string): DateStyle | null {
  const bare = code
    .split(';')[0]! // the format for positive numbers
    .replace(/"[^"]*"/g, '') // quoted literals
    .replace(/\\./g, '') // escaped characters
    .replace(/_.|\*./g, ''); // padding
  if (/\[(h+|m+|s+)\]/i.test(bare)) return null; // elapsed time: a duration
  const noBrackets = bare.replace(/\[[^\]]*\]/g, ''); // colours, locales, conditions
  if (/general/i.test(noBrackets)) return null;
  const ampm = /am\/pm|a\/p/i.test(noBrackets);
  const tokens = noBrackets.replace(/am\/pm|a\/p/gi, '');
  const hasTime = ampm || /[hs]/i.test(tokens);
  // y, d, a month's m; g and b are the Japanese and Buddhist era years ("E" is scientific notation)
  const hasDate = /[ydgb]/i.test(tokens) || (/m/i.test(tokens) && !hasTime);
  if (!hasTime && !hasDate) return null;
  return { shape: hasTime && hasDate ? 'datetime' : hasTime ? 'time' : 'date', seconds: /s/i.test(tokens) };
}

/** For each cell style (`s` on a cell, an index into cellXfs), its date style or null. */
export function readDateStyles(stylesXml: string | undefined): (DateStyle | null)[] {
  if (!stylesXml) return [];
  const root = parseXml(stylesXml);
  const custom = new Map<number, string>();
  for (const f of findAll(root, 'numFmt')) custom.set(Number(f.attribs.numFmtId), f.attribs.formatCode ?? '');
  const cellXfs = find(root, 'cellXfs');
  if (!cellXfs) return [];
  return findAll(cellXfs, 'xf').map((xf) => {
    const id = Number(xf.attribs.numFmtId ?? 0);
    const code = custom.get(id);
    return code !== undefined ? formatShape(code) : (BUILT_IN[id] ?? null);
  });
}

/** The workbook counts days from 1904-01-01 (old Mac Excel) rather than 1899-12-30. */
export function usesDate1904(workbookXml: string): boolean {
  const pr = /<(?:\w+:)?workbookPr\b[^>]*>/.exec(workbookXml)?.[0];
  return !!pr && /\bdate1904\s*=\s*["'](1|true)["']/.test(pr);
}

const DAY_MS = 86_400_000;
/** 1899-12-30 and 1904-01-01 as Unix milliseconds. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** A serial date number as ISO text in the style's shape; the raw text when it is no date. */
export function serialToIso(raw: string, style: DateStyle, date1904: boolean): string {
  const serial = Number(raw);
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return raw; // 9999-12-31 is the last date Excel has
  if (!date1904 && serial >= 60 && serial < 61) return style.shape === 'time' ? clock(serial, style) : '1900-02-29'; // Lotus 1-2-3's leap day, kept by Excel
  // before 1900-03-01 the 1900 system counts the leap day that never was: one day less
  const days = !date1904 && serial < 60 ? serial + 1 : serial;
  const ms = Math.round(((date1904 ? EPOCH_1904 : EPOCH_1900) + days * DAY_MS) / 1000) * 1000;
  const iso = new Date(ms).toISOString(); // 2026-03-04T09:30:15.000Z
  const date = iso.slice(0, 10);
  const time = style.seconds ? iso.slice(11, 19) : iso.slice(11, 16);
  switch (style.shape) {
    case 'date':
      return date;
    case 'time':
      return time;
    case 'datetime':
      return `${date} ${time}`;
  }
}

function clock(serial: number, style: DateStyle): string {
  const seconds = Math.round((serial % 1) * 86_400);
  const hh = String(Math.floor(seconds / 3600) % 24).padStart(2, '0');
  const mm = String(Math.floor(seconds / 60) % 60).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return style.seconds ? `${hh}:${mm}:${ss}` : `${hh}:${mm}`;
}

/** An OpenDocument date value ("2026-03-04", "2026-03-04T09:30:00") in the same ISO form. */
export function odfDate(value: string): string {
  const m = /^(-?\d{4,}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(:\d{2})?)?/.exec(value.trim());
  if (!m) return value.trim();
  if (!m[2] || (m[2] === '00:00' && (!m[3] || m[3] === ':00'))) return m[1]!;
  return `${m[1]} ${m[2]}${m[3] && m[3] !== ':00' ? m[3] : ''}`;
}

/** An OpenDocument time value (an ISO 8601 duration, "PT09H30M00S") as a clock time. */
export function odfTime(value: string): string {
  const m = /^-?P(?:\d+D)?T(\d+)H(\d+)M(\d+)(?:\.\d+)?S$/i.exec(value.trim());
  if (!m) return value.trim();
  const [hh, mm, ss] = [m[1]!, m[2]!, m[3]!].map((n) => n.padStart(2, '0'));
  return ss === '00' ? `${hh}:${mm}` : `${hh}:${mm}:${ss}`;
}
