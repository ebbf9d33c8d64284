// Parses the ways a caller can name a document: relative path, collection/path, #docid,
// trove://collection/path, each optionally with :LINE. Anything that could climb out of a
// collection root (.., absolute paths, encoded separators, NUL) is refused here, before lookup.
import { invalidInput } from '../errors.js';

export type Locator =
  | { kind: 'docid'; docid: string; line?: number; /** '#' given: never read as a path */ explicit: boolean }
  | { kind: 'path'; collection?: string; path: string; line?: number };

const DOCID = /^#?([0-9a-f]{6,16})$/i;
const BARE_DOCID = /^[0-9a-f]{6,8}$/i;

export function parseLocator(input: string): Locator {
  let s = input.trim();
  if (!s) throw invalidInput('empty locator');
  if (s.includes('\0')) throw invalidInput('locator contains a NUL byte');
  let line: number | undefined;
  const lineMatch = /:(\d+)$/.exec(s);
  if (lineMatch && !/^trove:\/\/[^/]*$/.test(s)) {
    line = Number(lineMatch[1]);
    s = s.slice(0, lineMatch.index);
  }
  if (s.startsWith('#') || BARE_DOCID.test(s)) {
    const m = DOCID.exec(s);
    if (!m) throw invalidInput(`"${input}" is not a docid (expected #abc123)`);
    return { kind: 'docid', docid: m[1]!.toLowerCase(), line, explicit: s.startsWith('#') };
  }
  if (/^trove:\/\//i.test(s)) {
    const rest = s.slice('trove://'.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) throw invalidInput(`"${input}" is not a trove:// URI (expected trove://collection/path)`);
    return { kind: 'path', collection: decode(rest.slice(0, slash), input), path: safePath(decode(rest.slice(slash + 1), input), input), line };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) throw invalidInput(`unsupported URI scheme in "${input}"`);
  return { kind: 'path', path: safePath(s, input), line };
}

function decode(part: string, input: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalidInput(`"${input}" has invalid percent-encoding`);
  }
}

/** Normalises a relative path and refuses anything that is not plainly inside a root. */
export function safePath(raw: string, input = raw): string {
  const p = raw.replace(/\\/g, '/');
  if (p.includes('\0')) throw invalidInput('path contains a NUL byte');
  if (p.startsWith('/') || /^[a-z]:/i.test(p) || p.startsWith('~')) {
    throw invalidInput(`"${input}": absolute paths are not allowed; use a path relative to its collection`);
  }
  const parts = p.split('/').filter((seg) => seg !== '' && seg !== '.');
  if (parts.some((seg) => seg === '..' || /%2e%2e|%2f|%5c/i.test(seg))) {
    throw invalidInput(`"${input}": paths may not leave their collection`);
  }
  if (!parts.length) throw invalidInput(`"${input}" does not name a file`);
  return parts.join('/');
}
