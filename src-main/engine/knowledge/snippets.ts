// Snippets as the knowledge tools give them: plain text, whitespace collapsed, at most
// snippet_length characters (the spec's shape), cut from the engine's line-numbered snippet, with
// the spans of the words the query searched for (marked the same way as every face marks them).
import { highlightSpans, type Span } from '../search/highlight.js';
import type { TermMatcher } from '../search/snippet.js';

const LINE_NUMBER = /^\d+: /gm;

export function plainSnippet(numbered: string, maxChars: number): string | null {
  const text = numbered.replace(LINE_NUMBER, '').replace(/\s+/g, ' ').trim();
  if (!text) return null;
  return clip(text, maxChars);
}

/** Where a text shows the query's words (none for no text or no words). */
export function spansIn(text: string | null, matcher: TermMatcher | null): Span[] {
  return text && matcher ? highlightSpans(text, matcher) : [];
}

/** At most maxChars characters, cut after a word where one ends near the limit. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const space = text.lastIndexOf(' ', maxChars);
  if (space > maxChars - 20 && space > 0) end = space;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // never half a surrogate pair
  return text.slice(0, end).trimEnd();
}
