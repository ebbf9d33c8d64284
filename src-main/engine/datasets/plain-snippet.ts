// Dataset snippets are plain text (the spec's SearchResult): no line numbers, whitespace collapsed,
// at most the requested length. Cut around the query's words with the same matcher as document
// snippets, so a vector hit still shows the part of its text the query is about.
import { snippetAround, type TermMatcher } from '../search/snippet.js';

/** A window of `text` around the query's words (or its start), plain and ≤ maxChars. */
export function plainSnippet(text: string, matcher: TermMatcher, maxChars: number): string {
  if (!text) return '';
  const cut = snippetAround(text, 0, text.length, 1, matcher, maxChars).text;
  return flatten(cut, maxChars);
}

/** A line-numbered document snippet (`12: text`) as plain text of at most maxChars. */
export function flatten(numbered: string, maxChars: number): string {
  const plain = numbered
    .replace(/^\d+: /gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length <= maxChars ? plain : `${plain.slice(0, Math.max(0, maxChars - 1)).trimEnd()}…`;
}
