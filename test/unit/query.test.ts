// Query building (search/query.ts, terms.ts, cjk.ts): every tricky input in every syntax either
// becomes an FTS5 expression that a real FTS5 table accepts, or is refused with INVALID_INPUT.
// No FTS5 syntax error may ever escape.
import { afterAll, describe, expect, it } from 'vitest';
import { TroveError } from '../../src-main/engine/errors.js';
import { parseQuery, type QuerySyntax } from '../../src-main/engine/search/query.js';
import { ftsFixture } from '../helpers/fts.js';

const fts = ftsFixture([
  /* 1 */ { title: 'Retry policy', body: 'How to retry failed requests with exponential backoff. The client waits before each retry.' },
  /* 2 */ { title: 'Near field', body: 'NEAR field communication and the AND gate; C++ templates and node.js streams.' },
  /* 3 */ { body: 'Quotes "inside" text (parenthesised) and a dash-separated word: e-mail.' },
  /* 4 */ { title: '全文检索', body: '全文检索是一种信息检索技术。我们用它搜索文档。' },
  /* 5 */ { title: '日本語', body: '日本語の検索エンジンは東京で開発されました。' },
  /* 6 */ { body: 'rocket launch 🚀 tomorrow morning' },
  /* 7 */ { body: 'Backoff without retry, only waiting.' },
  /* 8 */ { body: '明日は雨です。傘を持って出かけてください。' },
  /* 9 */ { body: 'Crème brûlée at the café' },
]);
afterAll(() => fts.close());

const SYNTAXES: QuerySyntax[] = ['match', 'phrase', 'prefix', 'boolean'];
type Expect = number[] | 'invalid';
/** What the loosest expression finds, per syntax (omitted: only "no FTS5 error" is checked). */
interface Case {
  input: string;
  match?: Expect;
  phrase?: Expect;
  prefix?: Expect;
  boolean?: Expect;
}

const CASES: Case[] = [
  { input: 'retry', match: [1, 7], phrase: [1, 7], prefix: [1, 7], boolean: [1, 7] },
  { input: 'retry backoff', match: [1, 7], boolean: [1, 7] },
  { input: '"exponential backoff"', match: [1, 7], phrase: [1], boolean: [1] },
  { input: '"exponential backoff', phrase: [1], boolean: [1] }, // unbalanced quote
  { input: '"', match: 'invalid', phrase: 'invalid', prefix: 'invalid', boolean: 'invalid' },
  { input: '""""', match: 'invalid', phrase: 'invalid', prefix: 'invalid', boolean: 'invalid' },
  { input: "'retry'", match: [1, 7], boolean: [1, 7] },
  { input: '(retry OR backoff', boolean: [1, 7] }, // unbalanced parenthesis
  { input: 'retry)', match: [1, 7], boolean: [1, 7] },
  { input: ')))retry(((', boolean: [1, 7] },
  { input: '(((', match: 'invalid', phrase: 'invalid', prefix: 'invalid', boolean: 'invalid' },
  { input: '*', match: 'invalid', phrase: 'invalid', prefix: 'invalid', boolean: 'invalid' },
  { input: 'retr*', prefix: [1, 7], boolean: [1, 7] },
  { input: '*retry', match: [1, 7], boolean: [1, 7] },
  { input: '-', match: 'invalid', boolean: 'invalid' },
  { input: '- - -', match: 'invalid', phrase: 'invalid', boolean: 'invalid' },
  { input: '-retry', match: [1, 7], boolean: 'invalid' }, // only a negation
  { input: 'NOT retry', boolean: 'invalid' },
  { input: '-retry -backoff', boolean: 'invalid' },
  { input: 'retry -backoff', boolean: [] },
  { input: 'retry NOT exponential', boolean: [7] },
  { input: 'retry -"exponential backoff"', boolean: [7] },
  { input: 'retry AND backoff', match: [1, 7], boolean: [1, 7] },
  { input: 'retry OR rocket', boolean: [1, 6, 7] },
  { input: 'retry OR', boolean: [1, 7] },
  { input: 'OR retry', boolean: [1, 7] },
  { input: 'AND', boolean: 'invalid' },
  { input: 'AND OR NOT', boolean: 'invalid' },
  { input: 'retry && backoff || rocket', boolean: [1, 6, 7] },
  { input: 'NEAR', match: [2], phrase: [2], boolean: [2] },
  { input: 'NEAR(retry backoff)', match: [1, 2, 7] },
  { input: 'retry NEAR/2 backoff', match: [1, 2, 7] },
  { input: 'NEAR field', phrase: [2] },
  { input: 'title:retry', match: [1, 7] },
  { input: '{title body}: retry', match: [1, 7] },
  { input: '^retry', match: [1, 7], boolean: [1, 7] },
  { input: 'retry + backoff', match: [1, 7] },
  { input: 'c++', match: [2] },
  { input: 'node.js', match: [2], phrase: [2], boolean: [2] },
  { input: 'e-mail', match: [3], phrase: [3], boolean: [3] },
  { input: '🚀', match: 'invalid', phrase: 'invalid', prefix: 'invalid', boolean: 'invalid' },
  { input: '🚀 rocket', match: [6], phrase: [6], boolean: [6] },
  { input: '!!! ??? ...', match: 'invalid', phrase: 'invalid', prefix: 'invalid', boolean: 'invalid' },
  { input: '\\', match: 'invalid', boolean: 'invalid' },
  { input: 'retry\0backoff', match: [1, 7] },
  { input: 'the of and', match: [1, 2, 3, 9] }, // only stop words: they are searched rather than dropped
  { input: '全文检索', match: [4], phrase: [4], prefix: [4], boolean: [4] },
  { input: '信息检索', match: [4], phrase: [4] },
  { input: '検索エンジン', match: [5], phrase: [5], boolean: [5] },
  { input: '東京', match: [5], phrase: [5], boolean: [5] },
  { input: '東京 retry', match: [1, 5, 7] },
  { input: '傘', match: [8], phrase: [8], prefix: [8], boolean: [8] }, // a lone character: a prefix of bigrams
  { input: '"傘" -雨', boolean: [] },
  { input: 'CAFÉ', match: [9], phrase: [9], prefix: [9], boolean: [9] },
  { input: 'creme brulee', match: [9], phrase: [9] },
  { input: 'retry OR (rocket AND NOT launch)', boolean: [1, 7] },
  { input: 'a AND (b OR NOT c)', boolean: 'invalid' }, // the negated branch stands alone
  { input: `${'zzz '.repeat(300)}retry`, match: [1, 7] },
];

function run(input: string, syntax: QuerySyntax): number[] | 'invalid' {
  try {
    const expressions = fts.expressions(input, syntax);
    let last: number[] = [];
    for (const e of expressions) last = fts.match(e); // throws if FTS5 rejects the expression
    return last;
  } catch (err) {
    if (err instanceof TroveError && err.code === 'INVALID_INPUT') return 'invalid';
    throw err;
  }
}

describe('query building over a real FTS5 table', () => {
  for (const c of CASES) {
    for (const syntax of SYNTAXES) {
      const want = c[syntax];
      it(`${syntax.padEnd(7)} ${JSON.stringify(c.input.length > 40 ? `${c.input.slice(0, 37)}...` : c.input)}`, () => {
        const got = run(c.input, syntax);
        if (want === 'invalid') expect(got).toBe('invalid');
        else if (want) expect(got === 'invalid' ? got : [...got].sort((a, b) => a - b)).toEqual(want);
        else expect(got === 'invalid' || Array.isArray(got)).toBe(true);
      });
    }
  }
});

describe('parseQuery', () => {
  it('quotes every term, so FTS5 operators in user text are just words', () => {
    const p = parseQuery('NEAR AND OR title:x', 'match');
    expect(p.kind).toBe('terms');
    if (p.kind !== 'terms') return;
    expect(p.terms.map((t) => t.token.text)).toEqual(['near', 'title', 'x']); // and/or are stop words
  });

  it('drops stop words from match queries unless nothing else is left', () => {
    const p = parseQuery('how to retry the request', 'match');
    expect(p.kind === 'terms' && p.terms.map((t) => t.token.text)).toEqual(['retry', 'request']);
    const only = parseQuery('the of', 'match');
    expect(only.kind === 'terms' && only.terms.map((t) => t.token.text)).toEqual(['the', 'of']);
  });

  it('marks words as prefixes in prefix syntax, but never CJK bigrams', () => {
    const p = parseQuery('retr 全文', 'prefix');
    expect(p.kind === 'terms' && p.terms.map((t) => [t.token.text, t.prefix])).toEqual([
      ['retr', true],
      ['全文', false],
    ]);
  });

  it('turns boolean syntax into a grouped expression with negation', () => {
    const p = parseQuery('retry -backoff OR "exponential backoff"', 'boolean');
    expect(p.kind).toBe('expression');
    if (p.kind !== 'expression') return;
    expect(p.expression).toBe('((("retry") NOT ("backoff")) OR "exponential backoff")');
    // negated words are not highlighted in snippets
    expect(p.highlight.map((t) => t.token.text)).toEqual(['retry', 'exponential', 'backoff']);
  });

  it('gives the same expression as a tree for the storage backends (stemmed terms, prefixes as typed)', () => {
    const p = parseQuery('retries -backoff OR "exponential backoff" OR conf*', 'boolean');
    if (p.kind !== 'expression') throw new Error('an expression');
    const t = (text: string, term = text, prefix = false) => ({ text, term, prefix });
    expect(p.tree).toEqual({
      t: 'or',
      items: [
        { t: 'and', items: [{ t: 'term', term: t('retries', 'retri') }], not: [{ t: 'term', term: t('backoff') }] },
        { t: 'phrase', terms: [t('exponential', 'exponenti'), t('backoff')] },
        { t: 'term', term: t('conf', 'conf', true) },
      ],
    });
    const top = parseQuery('retries -backoff -"http client"', 'boolean');
    if (top.kind !== 'expression') throw new Error('an expression');
    expect(top.excludeTree).toEqual({ t: 'or', items: [{ t: 'term', term: t('backoff') }, { t: 'phrase', terms: [t('http'), t('client')] }] });
    const cjk = parseQuery('傘', 'phrase');
    expect(cjk.kind === 'expression' && cjk.tree).toEqual({ t: 'term', term: t('傘', '傘', true) });
  });

  it('keeps words of a phrase in order', () => {
    const p = parseQuery('Exponential  BACKOFF!', 'phrase');
    expect(p.kind === 'expression' && p.expression).toBe('"exponential backoff"');
  });

  it('refuses a query with no searchable words with a clear message', () => {
    for (const syntax of SYNTAXES) {
      expect(() => parseQuery('🚀 !!!', syntax)).toThrow(/no searchable words/);
    }
  });
});
