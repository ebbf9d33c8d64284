// Draws the engine's highlight spans. Which words are marked is decided once, in the engine
// (search/highlight.ts: the terms the search used, whole words, stemmed forms included), and the
// app, the CLI and MCP all get the same spans; this only turns them into <mark> elements.
import type { ReactNode } from 'react';
import type { Span } from '../../../src-main/api/results';

/** `text` with `spans` ([start, end) offsets into it) marked. */
export function highlight(text: string, spans: readonly Span[] | undefined): ReactNode[] {
  if (!spans?.length) return [text];
  const out: ReactNode[] = [];
  let last = 0;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (start < last || end > text.length) continue;
    if (start > last) out.push(text.slice(last, start));
    out.push(<mark key={start}>{text.slice(start, end)}</mark>);
    last = end;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The spans that fall inside text[from, to), moved to offsets within it (one line of a longer text). */
export function spansWithin(spans: readonly Span[] | undefined, from: number, to: number): Span[] {
  return (spans ?? []).filter(([s, e]) => s >= from && e <= to).map(([s, e]) => [s - from, e - from]);
}
