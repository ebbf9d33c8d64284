// Splits user text into the tokens the FTS index knows: lower-cased words (letters, digits)
// and CJK bigrams. Anything else — quotes, operators, punctuation — is a separator here.
import { stemmer } from 'stemmer';
import { bigrams, hasCjk } from './cjk.js';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK_OR_OTHER = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]+)|([^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]+)/gu;

export interface Token {
  text: string;
  cjk: boolean;
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const [raw] of text.toLowerCase().matchAll(WORD)) wordTokens(raw, out);
  return out;
}

/** One lower-case word's tokens (a CJK run becomes its bigrams). */
function wordTokens(raw: string, out: Token[]): void {
  const word = foldDiacritics(raw);
  if (!hasCjk(word)) {
    out.push({ text: word, cjk: false });
    return;
  }
  for (const m of word.matchAll(CJK_OR_OTHER)) {
    if (m[1]) for (const b of bigrams(m[1])) out.push({ text: b, cjk: true });
    else if (m[2]) out.push({ text: m[2], cjk: false });
  }
}

/** A text's lower-case words, each one the tokenizer splits no further than into CJK bigrams (wordIndexTerms). */
export function lowerCaseWords(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** One lower-case word (of lowerCaseWords) as index terms: usually one, a CJK run's bigrams several. */
export function wordIndexTerms(raw: string): string[] {
  const tokens: Token[] = [];
  wordTokens(raw, tokens);
  return tokens.map(indexTerm);
}

/**
 * Accents off Latin letters ("café" → "cafe"), as FTS5's unicode61 remove_diacritics=2 stores
 * them; other scripts keep theirs (unicode61 leaves Greek tonos and Cyrillic ё alone). Without
 * this, vocabulary lookups for accented query words found nothing and the words were dropped.
 * Expects lower-case text.
 */
export function foldDiacritics(word: string): string {
  if (/^[\x00-\x7f]*$/.test(word)) return word;
  return word.normalize('NFD').replace(/([a-z])[\u0300-\u036f]+/g, '$1').normalize('NFC');
}

/** The term as the porter tokenizer stores it (for vocabulary lookups and highlighting). */
export function indexTerm(token: Token): string {
  return token.cjk ? token.text : stem(token.text);
}

const STEM_CACHE_SIZE = 50_000;
const stems = new Map<string, string>();

/**
 * Porter stem of a lower-case word, memoised: snippets stem every word of every hit's chunk,
 * and a corpus repeats its words (stemming them was ~10% of a keyword search). A pure
 * function's cache, bounded, so it is safe to share between engines.
 */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stems.set(word, (s = stemmer(word)));
  }
  return s;
}

/** FTS5 string literal: the only way user text reaches a MATCH expression. */
export function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

// Function words that carry no topic. They never gate a match; BM25 would give them ~0 weight anyway.
export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be been being but by can could did do does doing for from had has have having he her here ' +
    'hers him his how i if in into is it its me my no nor not of on or our ours she should so than that the their ' +
    'theirs them then there these they this those through to too was we were what when where which while who whom ' +
    'why will with would you your yours about above after again against all am any because before below between ' +
    'both during each few further more most other over own same some such under until up very just also use used ' +
    'using get make')
    .split(' '),
);
