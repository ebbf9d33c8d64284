// A FAISS dataset's metadata file: the documents, in vector-id order, each with a title, a path
// (for attribution) and its text or a snippet. Producers name these fields differently, so the
// usual spellings are accepted (title/name, path/source/url/file, text/content/page_content); the
// rest of an entry is kept as the document's metadata.
import path from 'node:path';
import { TroveError } from '../errors.js';

export interface MetadataEntry {
  title: string;
  path: string;
  /** The full text, when the producer kept it. */
  text: string | null;
  snippet: string | null;
  /** Everything else in the entry. */
  rest: Record<string, unknown>;
}

const TITLE = ['title', 'name', 'heading'];
const PATH = ['path', 'source', 'url', 'file', 'filename', 'uri'];
const TEXT = ['text', 'content', 'page_content', 'body'];
const SNIPPET = ['snippet', 'summary', 'excerpt'];

/** Checks and normalises the parsed metadata JSON; throws UNAVAILABLE saying what is wrong. */
export function parseMetadata(json: unknown): { entries: MetadataEntry[]; warnings: string[] } {
  const list = entriesOf(json);
  const warnings: string[] = [];
  let pathless = 0;
  let textless = 0;
  const entries = list.map((item, i) => {
    if (typeof item === 'string') return { title: firstLine(item) || `#${i}`, path: `#${i}`, text: item, snippet: null, rest: {} };
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new TroveError('UNAVAILABLE', `metadata entry #${i} is ${describe(item)}, not a document object (title, path, text or snippet)`);
    }
    const o = item as Record<string, unknown>;
    const used = new Set<string>();
    const pick = (keys: string[]): string | null => {
      for (const k of keys) {
        const v = o[k];
        if (typeof v === 'string' && v.trim()) {
          used.add(k);
          return v;
        }
      }
      return null;
    };
    const title = pick(TITLE);
    const p = pick(PATH);
    const text = pick(TEXT);
    const snippet = pick(SNIPPET);
    if (!p) pathless++;
    if (!text && !snippet) textless++;
    const rest = Object.fromEntries(Object.entries(o).filter(([k]) => !used.has(k)));
    const where = p ?? `#${i}`;
    return { title: title ?? (p ? path.posix.basename(p.replace(/\\/g, '/')) || p : firstLine(text ?? snippet ?? '') || where), path: where, text, snippet, rest };
  });
  if (pathless) warnings.push(`${pathless} of ${entries.length} metadata entries have no path; their position (#n) stands in for it`);
  if (textless) warnings.push(`${textless} of ${entries.length} metadata entries have neither text nor a snippet; their results have an empty snippet`);
  return { entries, warnings };
}

/** An array; an object holding one as `documents`/`entries`/`metadata`; or an object keyed by position ("0", "1", …). */
function entriesOf(json: unknown): unknown[] {
  if (Array.isArray(json)) return json;
  if (typeof json === 'object' && json !== null) {
    const o = json as Record<string, unknown>;
    for (const k of ['documents', 'entries', 'metadata', 'docs']) if (Array.isArray(o[k])) return o[k];
    const keys = Object.keys(o);
    if (keys.length && keys.every((k) => /^(0|[1-9]\d*)$/.test(k))) {
      const out: unknown[] = new Array(keys.length);
      for (const k of keys) {
        const i = Number(k);
        if (i >= keys.length) throw new TroveError('UNAVAILABLE', `metadata is keyed by position but skips some: it has key "${k}" among ${keys.length} entries`);
        out[i] = o[k];
      }
      return out;
    }
  }
  throw new TroveError('UNAVAILABLE', `metadata must be a JSON array of the documents (title, path, text or snippet) in vector order; it is ${describe(json)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function firstLine(text: string): string {
  return text.trim().split('\n', 1)[0]!.slice(0, 120);
}
