// Highlight spans beside a redacted text move with it: every replacement shifts the spans after it
// by the difference in length, and a span that touches a replaced stretch is dropped (nothing may
// be marked that is not shown).
import type { Span } from '../types/search.js';

/** One replacement in a text: the stretch [start, end) of the text as it was, replaced by `length` characters. */
export interface Cut {
  start: number;
  end: number;
  length: number;
}

/** The spans after one pass of non-overlapping replacements (cuts in the coordinates of the text before the pass). */
export function moveSpans(spans: readonly Span[], cuts: readonly Cut[]): Span[] {
  if (!cuts.length) return spans.map((s): Span => [s[0], s[1]]);
  return spans.flatMap(([a, b]): Span[] => {
    let shift = 0;
    for (const c of cuts) {
      if (c.start < b && a < c.end) return []; // marked text is gone
      if (c.end <= a) shift += c.length - (c.end - c.start);
    }
    return [[a + shift, b + shift]];
  });
}

/** The text with every rule's matches replaced, and the spans moved with it (in-process; the tests and small callers use it). */
export function redactTextWithSpans(text: string, rules: readonly RegExp[], spans: readonly Span[], replacement = '[redacted]'): { text: string; spans: Span[] } {
  let out = text;
  let kept = spans.map((s): Span => [s[0], s[1]]);
  for (const re of rules) {
    const cuts: Cut[] = [];
    re.lastIndex = 0;
    out = out.replace(re, (match: string, ...args: unknown[]) => {
      const offset = args.find((a) => typeof a === 'number')!;
      cuts.push({ start: offset, end: offset + match.length, length: replacement.length });
      return replacement;
    });
    kept = moveSpans(kept, cuts);
  }
  return { text: out, spans: kept };
}
