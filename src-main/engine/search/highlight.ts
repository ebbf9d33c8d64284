// Which words a result marks, decided once for every face (the app, the CLI, MCP): the terms the
// query searched for as the parser hands them to the planner — stop words left out ("the", "how",
// unless the query has nothing else), negated words left out, phrases word by word — matched on
// whole words with their stemmed forms (TermMatcher: "processes" marks "process" and "processing",
// never "the" inside "their"). Faces get spans ([start, end) offsets into the text they show) and
// only draw them: the app's <mark>, the CLI's colour, MCP's structured `highlights`.
// (Words the plan's final OR leaves out as too common still mark: the stricter steps searched for them.)
import type { Span } from '../types/search.js';
import { parseQuery, type QuerySyntax } from './query.js';
import { TermMatcher } from './snippet.js';

export type { Span };

/** A matcher for the words a query searched for; a query with no words marks nothing. */
export function queryMatcher(query: string, syntax: QuerySyntax): TermMatcher {
  try {
    return new TermMatcher(parseQuery(query, syntax).highlight);
  } catch {
    return new TermMatcher([]);
  }
}

const LINE_NUMBER = /^\d+: /;

/**
 * Spans of `text` where the matcher's terms are. `lineNumbered`: the text is `N: line` rows (what
 * `get` returns), and the numbers are not searched (a query for "2" must not mark line 2).
 */
export function highlightSpans(text: string, matcher: TermMatcher, lineNumbered = false): Span[] {
  if (matcher.empty) return [];
  if (!lineNumbered) return matcher.find(text).map((m) => [m.start, m.end]);
  const out: Span[] = [];
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const prefix = LINE_NUMBER.exec(text.slice(start, Math.min(end, start + 16)))?.[0].length ?? 0;
    for (const m of matcher.find(text, start + prefix, end)) out.push([m.start, m.end]);
    start = end + 1;
  }
  return out;
}
