// Tokens and CJK bigrams: the same split is used for the index and for queries.
import { describe, expect, it } from 'vitest';
import { bigrams, hasCjk, toIndexText } from '../../src-main/engine/text/cjk.js';
import { foldDiacritics, indexTerm, lowerCaseWords, quote, tokenize, wordIndexTerms } from '../../src-main/engine/text/terms.js';

describe('tokenize', () => {
  it('lower-cases words and treats punctuation and operators as separators', () => {
    expect(tokenize('Hello, "World" (NEAR) foo*bar -baz').map((t) => t.text)).toEqual(['hello', 'world', 'near', 'foo', 'bar', 'baz']);
  });

  it('folds accents off Latin letters as the index does, and keeps digits', () => {
    expect(tokenize('Café 2024 naïve Müller cafe\u0301').map((t) => t.text)).toEqual(['cafe', '2024', 'naive', 'muller', 'cafe']);
  });

  it('leaves the marks of other scripts alone, as unicode61 does', () => {
    expect(tokenize('Ελληνικά ёлка łódź').map((t) => t.text)).toEqual(['ελληνικά', 'ёлка', 'łodz']);
    expect(foldDiacritics('ḿő')).toBe('mo');
  });

  it('splits Chinese into overlapping bigrams and keeps Latin words beside them', () => {
    expect(tokenize('SQLite全文检索').map((t) => [t.text, t.cjk])).toEqual([
      ['sqlite', false],
      ['全文', true],
      ['文检', true],
      ['检索', true],
    ]);
  });

  it('splits Japanese kana and kanji runs, and Korean, the same way', () => {
    expect(tokenize('東京タワー').map((t) => t.text)).toEqual(['東京', '京タ', 'タワ', 'ワー']);
    expect(tokenize('한국어').map((t) => t.text)).toEqual(['한국', '국어']);
  });

  it('yields nothing for emoji and symbols only', () => {
    expect(tokenize('🚀 !!! *** ---')).toEqual([]);
  });

  it('keeps a single CJK character as one token', () => {
    expect(tokenize('猫').map((t) => t.text)).toEqual(['猫']);
  });
});

describe('CJK index text', () => {
  it('rewrites CJK runs as bigrams and leaves other text alone', () => {
    expect(toIndexText('plain text only')).toBe('plain text only');
    expect(toIndexText('用全文检索搜索').trim().split(/\s+/)).toEqual(['用全', '全文', '文检', '检索', '索搜', '搜索']);
    expect(toIndexText('see 東京 now').split(/\s+/).filter(Boolean)).toEqual(['see', '東京', 'now']);
  });

  it('detects CJK text', () => {
    expect(hasCjk('abc')).toBe(false);
    expect(hasCjk('abc検索')).toBe(true);
    expect(bigrams('ab')).toEqual(['ab']);
    expect(bigrams('😀😀😀')).toEqual(['😀😀', '😀😀']); // code points, never split surrogate pairs
  });
});

describe('FTS helpers', () => {
  it('quotes by doubling quotes', () => {
    expect(quote('say "hi"')).toBe('"say ""hi"""');
  });

  it('stems words like the porter tokenizer, and leaves bigrams alone', () => {
    expect(indexTerm({ text: 'retrying', cjk: false })).toBe('retri');
    expect(indexTerm({ text: '检索', cjk: true })).toBe('检索');
  });
});

describe('lowerCaseWords and wordIndexTerms', () => {
  it('give each token its index term, as tokenize then indexTerm', () => {
    const text = 'Retrying the Café naïve ΣΟΦΟΣ 全文检索 東京の天気 search検索mixed v2.1 query_plan Processes processes';
    const expected = tokenize(text).map(indexTerm);
    expect(expected).toContain('retri');
    expect(lowerCaseWords(text).flatMap(wordIndexTerms)).toEqual(expected);
    expect(lowerCaseWords('')).toEqual([]);
  });
});
