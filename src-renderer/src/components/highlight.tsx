// Marks the query's words in a snippet. The engine's snippet is plain text; highlighting is a
// view concern, so it is done here with the same idea of a "word" (letters and digits; CJK
// runs as character pairs, the way the index stores them).
import type { ReactNode } from 'react';

const OPERATORS = new Set(['and', 'or', 'not', 'near']);
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const word of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (OPERATORS.has(word)) continue;
    if (CJK.test(word)) {
      const chars = [...word];
      if (chars.length === 1) terms.add(word);
      for (let i = 0; i + 1 < chars.length; i++) terms.add(chars[i]! + chars[i + 1]!);
    } else if (word.length >= 2) terms.add(word);
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

export function highlight(text: string, terms: string[]): ReactNode[] {
  if (!terms.length) return [text];
  const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // word starts only for Latin terms (so "art" does not light up inside "start"); CJK has no spaces
  const re = new RegExp(escaped.map((t, i) => (CJK.test(terms[i]!) ? t : `(?<![\\p{L}\\p{N}])${t}`)).join('|'), 'giu');
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(<mark key={`${m.index}`}>{m[0]}</mark>);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
