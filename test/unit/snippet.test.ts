// Snippets: line-numbered `N: text`, centred on the densest cluster of query terms, within bounds.
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src-main/engine/search/query.js';
import { snippetAround, TermMatcher } from '../../src-main/engine/search/snippet.js';

function matcher(query: string, syntax: 'match' | 'prefix' = 'match'): TermMatcher {
  const p = parseQuery(query, syntax);
  return new TermMatcher(p.highlight);
}

const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1} has some filler words about nothing in particular`);

describe('snippetAround', () => {
  it('numbers every line with its real line number', () => {
    const text = lines.join('\n');
    const s = snippetAround(text, 0, text.length, 1, matcher('particular'), 300);
    for (const row of s.text.split('\n')) expect(row).toMatch(/^\d+: /);
    const first = Number(s.text.split(':')[0]);
    expect(s.line).toBe(first);
    // each numbered row is the text of that line (modulo the … markers)
    for (const row of s.text.split('\n')) {
      const [n, ...rest] = row.split(': ');
      const body = rest.join(': ').replace(/^…|…$/g, '');
      expect(lines[Number(n) - 1]).toContain(body);
    }
  });

  it('centres the window on the match, far from the start of the range', () => {
    const body = [...lines.slice(0, 30), 'here the needle sits alone', ...lines.slice(30)];
    const text = body.join('\n');
    const s = snippetAround(text, 0, text.length, 1, matcher('needle'), 300);
    expect(s.text).toContain('31: here the needle sits alone');
    expect(s.line).toBeGreaterThan(25);
    expect(s.line).toBeLessThanOrEqual(31);
    const rows = s.text.split('\n');
    const at = rows.findIndex((r) => r.includes('needle'));
    // roughly as much context before the match as after it
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(rows.length - 1);
    expect(s.matches).toBe(1);
  });

  it('prefers the place where the most distinct terms meet', () => {
    const text = [
      'alpha appears here alone',
      ...lines.slice(0, 20),
      'beta and alpha together at last',
      ...lines.slice(20, 40),
      'beta alone',
    ].join('\n');
    const s = snippetAround(text, 0, text.length, 1, matcher('alpha beta'), 120);
    expect(s.text).toContain('22: beta and alpha together at last');
  });

  it('counts lines from the chunk start line and stays inside the range', () => {
    const text = lines.join('\n');
    const start = text.indexOf('line 40 ');
    const end = text.indexOf('line 45 ') - 1;
    const s = snippetAround(text, start, end, 40, matcher('filler'), 80);
    expect(s.line).toBe(40);
    expect(s.text.startsWith('40: ')).toBe(true);
    expect(s.text).toContain('filler');
    expect(s.text).not.toContain('line 39');
    expect(s.text).not.toContain('line 45');
  });

  it('keeps the window near maxChars and marks cut lines with …', () => {
    const text = 'word '.repeat(400) + 'target ' + 'word '.repeat(400);
    const s = snippetAround(text, 0, text.length, 1, matcher('target'), 100);
    const content = s.text.replace(/^1: /, '');
    expect(content.length).toBeLessThanOrEqual(100 + 2);
    expect(content).toContain('target');
    expect(content.startsWith('…')).toBe(true);
    expect(content.endsWith('…')).toBe(true);
  });

  it('starts at the range start when no term is found', () => {
    const text = lines.slice(0, 5).join('\n');
    const s = snippetAround(text, 0, text.length, 1, matcher('absent'), 60);
    expect(s.line).toBe(1);
    expect(s.text.startsWith('1: line 1')).toBe(true);
    expect(s.matches).toBe(0);
  });
});

describe('TermMatcher', () => {
  it('matches stems, prefixes and CJK bigrams the way the index does', () => {
    expect(matcher('retrying').termsIn('We retried the Retry loop')).toEqual(['retrying']);
    expect(matcher('retr', 'prefix').find('retrieve retry other').map((m) => m.term)).toEqual(['retr', 'retr']);
    expect(matcher('cafe').termsIn('Meet at the Café')).toEqual(['cafe']);
    expect(matcher('café').termsIn('Meet at the cafe')).toEqual(['cafe']);
    const zh = matcher('全文检索');
    expect(zh.find('关于全文检索的说明').length).toBe(3);
  });
});

describe('TermMatcher', () => {
  it('finds every inflection, accented spelling and prefix of the query terms, and nothing else', () => {
    const text = 'Retries retried RETRYING; café Cafés école ecoles; a retrospective; Y yes; unrelated words here';
    const words = (m: TermMatcher) => m.find(text).map((x) => text.slice(x.start, x.end));
    expect(words(matcher('retry'))).toEqual(['Retries', 'retried', 'RETRYING']);
    expect(words(matcher('cafe ecole'))).toEqual(['café', 'Cafés', 'école', 'ecoles']);
    expect(words(matcher('retr', 'prefix'))).toEqual(['Retries', 'retried', 'RETRYING', 'retrospective']);
    expect(words(matcher('y', 'prefix'))).toEqual(['Y', 'yes']);
    expect(words(matcher('nothing'))).toEqual([]);
  });
});

describe('snippet highlights', () => {
  it('point at the matched words in the numbered snippet, across lines and after an ellipsis', () => {
    const text = `${'filler words before the match '.repeat(6)}\nThe running processes\nthen their process runs on\nmore filler text after the words\n`;
    const s = snippetAround(text, 0, text.length, 10, matcher('how do I get the running processes'), 120);
    const marked = s.highlights.map(([a, b]) => s.text.slice(a, b));
    expect(marked).toEqual(['running', 'processes', 'process', 'runs']);
    expect(s.text).toMatch(/^10: …/); // cut inside the first line: the ellipsis shifts nothing
  });

  it('are empty when nothing matches', () => {
    expect(snippetAround(lines.join('\n'), 0, 200, 1, matcher('absent'), 80).highlights).toEqual([]);
  });
});
