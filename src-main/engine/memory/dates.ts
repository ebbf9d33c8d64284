// The date forms memory filters accept (ISO 8601, as the context server documents them):
// 2025-11-29, 2025-11-29T10:00[:00[.ffffff]], with Z or ±HH:MM (a space for the T too). A time
// without an offset is UTC. A date alone as an end date means the end of that day. Anything
// else is an error naming the parameter — never a silent "no filter".
import { invalidInput } from '../errors.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const DAY_MS = 86_400_000;

/** Epoch milliseconds of an ISO 8601 date or time; `end`: the end of a range (a date alone means its last millisecond). */
export function parseMemoryDate(value: string, name: string, end = false): number {
  const s = value.trim();
  const d = DATE.exec(s);
  if (d) {
    const start = utc(name, value, +d[1]!, +d[2]!, +d[3]!, 0, 0, 0, 0);
    return end ? start + DAY_MS - 1 : start;
  }
  const t = DATE_TIME.exec(s);
  if (!t) throw invalidInput(`${name} is not an ISO 8601 date or time: "${value}" (e.g. 2025-11-29 or 2025-11-29T10:00:00Z)`);
  // times are kept in milliseconds: a finer start rounds up and a finer end down, so the range never grows
  const digits = (t[7] ?? '').padEnd(3, '0');
  const ms = Number(digits.slice(0, 3)) + (!end && /[1-9]/.test(digits.slice(3)) ? 1 : 0);
  let at = utc(name, value, +t[1]!, +t[2]!, +t[3]!, +t[4]!, +t[5]!, t[6] ? +t[6] : 0, 0) + ms;
  const zone = t[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    const offset = (Number(m[2]) * 60 + Number(m[3])) * 60_000;
    if (Number(m[2]) > 23 || Number(m[3]) > 59) throw invalidInput(`${name} has an impossible time zone offset: "${value}"`);
    at -= m[1] === '+' ? offset : -offset;
  }
  return at;
}

function utc(name: string, raw: string, y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const at = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const back = new Date(at);
  // Date.UTC rolls 2025-02-30 over into March: refuse dates that do not exist
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw invalidInput(`${name} is not a real date or time: "${raw}"`);
  }
  return at;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
