// Finds where a chunk matches the query and cuts a snippet around it, line-numbered (`N: text`),
// with the spans of the snippet where the query's words are (search/highlight.ts decides which).
import type { Span } from '../types/search.js';
import type { QueryTerm } from './query.js';
import { foldDiacritics, stem } from '../text/terms.js';

export interface TermMatch {
  start: number;
  end: number;
  term: string;
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Recognises the query's terms in original text the way the index does (stems, prefixes, CJK bigrams). */
export class TermMatcher {
  private readonly stems = new Map<string, string>();
  private readonly prefixes: string[] = [];
  private readonly cjk: string[] = [];
  /** Word → query term (null: none). Stemming every word of every hit's chunk was the snippet's main cost. */
  private readonly seen = new Map<string, string | null>();
  /**
   * First two letters of every stem and prefix (and one-letter prefixes): Porter stemming keeps
   * a word's first two letters (checked over cpp-docs' and powershell-docs' 84k words), so an
   * ASCII word starting otherwise cannot match and is not looked up at all.
   */
  private readonly heads = new Set<string>();
  private readonly oneLetterPrefixes = new Set<string>();

  constructor(terms: readonly QueryTerm[]) {
    for (const t of terms) {
      if (t.token.cjk) this.cjk.push(t.token.text);
      else if (t.prefix) {
        this.prefixes.push(t.token.text);
        if (t.token.text.length === 1) this.oneLetterPrefixes.add(t.token.text);
        else this.heads.add(t.token.text.slice(0, 2));
      } else {
        const s = stem(t.token.text);
        this.stems.set(s, t.token.text);
        this.heads.add(s.slice(0, 2));
      }
    }
  }

  get empty(): boolean {
    return !this.stems.size && !this.prefixes.length && !this.cjk.length;
  }

  find(text: string, from = 0, to = text.length): TermMatch[] {
    const out: TermMatch[] = [];
    const slice = text.slice(from, to);
    if (this.stems.size || this.prefixes.length) {
      for (const m of slice.matchAll(WORD)) {
        if (!this.mayMatch(m[0])) continue;
        const term = this.termFor(m[0]);
        if (term) out.push({ start: from + m.index, end: from + m.index + m[0].length, term });
      }
    }
    for (const b of this.cjk) {
      for (let i = slice.indexOf(b); i >= 0; i = slice.indexOf(b, i + 1)) out.push({ start: from + i, end: from + i + b.length, term: b });
    }
    return out.sort((a, b) => a.start - b.start);
  }

  private mayMatch(raw: string): boolean {
    if (raw.charCodeAt(0) > 0x7f || raw.charCodeAt(1) > 0x7f) return true; // folding may change them: look it up
    const head = raw.slice(0, 2).toLowerCase();
    return this.heads.has(head) || this.oneLetterPrefixes.has(head[0]!);
  }

  private termFor(raw: string): string | null {
    let term = this.seen.get(raw);
    if (term === undefined) {
      const word = foldDiacritics(raw.toLowerCase()); // query tokens are folded the same way
      term = this.stems.get(word) ?? this.stems.get(stem(word)) ?? this.prefixes.find((p) => word.startsWith(p)) ?? null;
      this.seen.set(raw, term);
    }
    return term;
  }

  /** Distinct query terms present in `text`. */
  termsIn(text: string): string[] {
    return [...new Set(this.find(text).map((m) => m.term))];
  }
}

export interface Snippet {
  text: string;
  /** 1-based line of the snippet's first character. */
  line: number;
  matches: number;
  /** Where `text` shows the matcher's terms (line numbers and ellipses accounted for). */
  highlights: Span[];
}

/**
 * A window of about `maxChars` inside [rangeStart, rangeEnd) of `text`, placed where the most
 * distinct terms fall and centred on them. `firstLine` is the line number at rangeStart.
 */
export function snippetAround(
  text: string,
  rangeStart: number,
  rangeEnd: number,
  firstLine: number,
  matcher: TermMatcher,
  maxChars: number,
): Snippet {
  const matches = matcher.find(text, rangeStart, rangeEnd);
  let start = rangeStart;
  if (matches.length) {
    let best = { i: 0, j: 0, distinct: 0 };
    for (let i = 0, j = 0; i < matches.length; i++) {
      while (j + 1 < matches.length && matches[j + 1]!.end - matches[i]!.start <= maxChars) j++;
      const distinct = new Set(matches.slice(i, j + 1).map((m) => m.term)).size;
      if (distinct > best.distinct) best = { i, j, distinct };
    }
    const spanStart = matches[best.i]!.start;
    const spanEnd = matches[best.j]!.end;
    start = Math.max(rangeStart, spanStart - Math.floor((maxChars - (spanEnd - spanStart)) / 2));
    start = snapBack(text, start, rangeStart);
  }
  let end = Math.min(rangeEnd, start + maxChars);
  if (end < rangeEnd) end = snapForward(text, end, start);
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  while (start < end && /\s/.test(text[start]!)) start++;
  const line = firstLine + countNewlines(text, rangeStart, start);
  const rows = text.slice(start, end).split('\n');
  const lead = start > 0 && text[start - 1] !== '\n' ? '…' : '';
  const tail = end < text.length && text[end] !== '\n' ? '…' : '';
  const numbered: string[] = [];
  const highlights: Span[] = [];
  let out = 0; // where the current row starts in the snippet
  let from = start; // where it starts in the text
  let next = 0; // the first match not yet placed
  for (const [k, row] of rows.entries()) {
    const prefix = `${line + k}: ${k === 0 ? lead : ''}`;
    numbered.push(`${prefix}${row}${k === rows.length - 1 ? tail : ''}`);
    const rowEnd = from + row.length;
    while (next < matches.length && matches[next]!.start < from) next++;
    for (; next < matches.length && matches[next]!.end <= rowEnd; next++) {
      const m = matches[next]!;
      highlights.push([out + prefix.length + (m.start - from), out + prefix.length + (m.end - from)]);
    }
    out += numbered[k]!.length + 1;
    from = rowEnd + 1;
  }
  return { text: numbered.join('\n'), line, matches: matches.length, highlights };
}

function snapBack(text: string, pos: number, floor: number): number {
  // start at a line start if one is close, else at a word start
  const nl = text.lastIndexOf('\n', pos);
  if (nl >= floor && pos - nl <= 40) return nl + 1;
  for (let p = pos; p > floor && pos - p < 20; p--) if (/\s/.test(text[p - 1]!)) return p;
  return pos;
}

function snapForward(text: string, pos: number, floor: number): number {
  for (let p = pos; p > floor && pos - p < 20; p--) if (/\s/.test(text[p]!)) return p;
  return pos;
}

export function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
