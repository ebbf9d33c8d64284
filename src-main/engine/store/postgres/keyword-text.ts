// The PostgreSQL keyword index's terms, made in JavaScript so they are the very terms the SQLite
// index holds: the FTS columns (already in index form: CJK runs as bigrams, search/cjk.ts) are
// split by search/terms.ts's tokenizer (lower case, Latin accents folded, letters/digits/marks)
// and stemmed with the same Porter stemmer the planner and highlighting use. PostgreSQL's own
// parsers (to_tsvector with a language config) would stem with Snowball, drop stop words and split
// CJK differently, so plans, term counts and ranks would drift from SQLite's.
//
// A chunk becomes one tsvector with each column's positions weighted as BM25 weights them: title A
// (×4), headings B (×2), body D (×1), and a gap between columns so a phrase never spans two. Its
// length (tokens over all columns) is what FTS5's bm25() uses as the document length.
import { indexTerm, indexTerms, type Token } from '../../text/terms.js';
import type { KeywordExpression } from '../storage.js';

/** tsvector weight letter per column, and the BM25 column weight it stands for. */
export const COLUMN_WEIGHTS = { A: 4, B: 2, C: 1, D: 1 } as const;

/** PostgreSQL refuses lexemes over 2047 bytes and positions over 16383 (they are clamped). */
const MAX_LEXEME_BYTES = 2047;
const MAX_POSITION = 16383;
/** Positions left empty between columns: a phrase query never matches across them. */
const COLUMN_GAP = 64;
/** PostgreSQL keeps at most 256 positions per lexeme; the rest only count towards the length. */
const MAX_POSITIONS_PER_LEXEME = 256;

export interface KeywordDocument {
  /** A tsvector literal (`'term':1A,7A 'other':3`): cast with ::tsvector. */
  tsvector: string;
  /** Tokens over all columns: BM25's document length. */
  length: number;
  /** Each term's weighted frequency (Σ column weight × occurrences): the postings' f. */
  terms: Map<string, number>;
}

/** The index form of one chunk's FTS columns (as ChunkWrite carries them). */
export function keywordDocument(title: string, headings: string, body: string): KeywordDocument {
  const positions = new Map<string, string[]>();
  const terms = new Map<string, number>();
  let position = 0;
  let length = 0;
  const columns: [string, 'A' | 'B' | 'D'][] = [
    [title, 'A'],
    [headings, 'B'],
    [body, 'D'],
  ];
  for (const [text, weight] of columns) {
    if (!text) continue;
    for (const term of indexTerms(text)) {
      length++;
      position = Math.min(MAX_POSITION, position + 1);
      if (term.length * 3 > MAX_LEXEME_BYTES && Buffer.byteLength(term) > MAX_LEXEME_BYTES) continue;
      terms.set(term, (terms.get(term) ?? 0) + COLUMN_WEIGHTS[weight]);
      let list = positions.get(term);
      if (!list) positions.set(term, (list = []));
      if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(`${position}${weight === 'D' ? '' : weight}`);
    }
    position = Math.min(MAX_POSITION, position + COLUMN_GAP);
  }
  const parts: string[] = [];
  for (const [term, list] of positions) parts.push(`${lexeme(term)}:${list.join(',')}`);
  return { tsvector: parts.join(' '), length, terms };
}

/** A quoted lexeme for a tsvector or tsquery literal (quotes doubled, backslashes escaped). */
export function lexeme(term: string): string {
  if (!/[\\']/.test(term)) return `'${term}'`;
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** One query term as a tsquery operand: the stemmed term, or a prefix (`'pre':*`, unstemmed like FTS5's). */
export function tsqueryTerm(t: { token: Token; prefix: boolean }): string {
  return t.prefix ? `${lexeme(t.token.text)}:*` : lexeme(indexTerm(t.token));
}

/** Words in this order (a phrase): `'a' <-> 'b'`. */
export function tsqueryPhrase(tokens: readonly Token[], prefixLast = false): string {
  return tokens
    .map((t, i) => (prefixLast && i === tokens.length - 1 ? `${lexeme(t.text)}:*` : lexeme(indexTerm(t))))
    .join(' <-> ');
}

/** A term already in index form (KeywordTerm) as a tsquery operand. */
export function tsqueryOperand(t: { term: string; prefix: boolean }): string {
  return t.prefix ? `${lexeme(t.term)}:*` : lexeme(t.term);
}

/** The phrase and boolean syntaxes' tree as a tsquery (the FTS5 MATCH expression's counterpart). */
export function tsqueryOf(e: KeywordExpression): string {
  switch (e.t) {
    case 'term':
      return tsqueryOperand(e.term);
    case 'phrase':
      return `(${e.terms.map((t, i) => tsqueryOperand({ term: t.term, prefix: t.prefix || (!!e.prefixLast && i === e.terms.length - 1) })).join(' <-> ')})`;
    case 'or':
      return `(${e.items.map(tsqueryOf).join(' | ')})`;
    case 'and': {
      const pos = e.items.map(tsqueryOf).join(' & ');
      const neg = (e.not ?? []).map((n) => `!${tsqueryOf(n)}`);
      return `(${[pos, ...neg].filter(Boolean).join(' & ')})`;
    }
  }
}
