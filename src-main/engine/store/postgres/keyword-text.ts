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
// (The terms themselves are counted and written as bytes by term-table.ts.)
import { indexTerm, type Token } from '../../text/terms.js';
import type { KeywordExpression } from '../storage.js';
import { lexeme, termTable, type KeywordDocument } from './term-table.js';

export { COLUMN_WEIGHTS, lexeme, tsvectorText, type KeywordDocument } from './term-table.js';

/** The index form of one chunk's FTS columns (as ChunkWrite carries them). */
export function keywordDocument(title: string, headings: string, body: string): KeywordDocument {
  return termTable().document([
    [title, 'A'],
    [headings, 'B'],
    [body, 'D'],
  ]);
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
