// The retrieval modes of knowledge.get over one item's text and chunks, under a token budget:
// snippet, chunk, chunk_with_siblings, full (paged by cursor). Tokens are estimated as
// ceil(characters / chars_per_token) and the content never exceeds max_tokens by that
// estimate, in any mode: what does not fit is cut (around the query's words when it can) and
// marked truncated. Pure functions over text; the sources supply text and chunks.
import { invalidInput } from '../errors.js';
import type { TermMatcher } from '../search/snippet.js';
import type { RetrievalInfo, RetrievalMode } from '../types/knowledge.js';
import { budgetChars, estimateTokens } from './options.js';

/** One chunk of an item: a range of its text (chunks may overlap, as the chunker makes them). */
export interface ItemChunk {
  index: number;
  charStart: number;
  charEnd: number;
  lineStart: number | null;
  lineEnd: number | null;
  page?: number;
  headingPath?: string[];
}

export interface ResolvedRetrieval {
  mode: Exclude<RetrievalMode, 'auto'>;
  snippetLength: number;
  maxTokens: number;
  charsPerToken: number;
  siblingWindow: number;
}

export interface RetrievalInput {
  text: string;
  chunks: readonly ItemChunk[];
  chunking: RetrievalInfo['chunking'];
  /** Position of the anchor in `chunks` (null: the item has no text to anchor in). */
  anchor: number | null;
  anchoredBy: RetrievalInfo['anchored_by'];
  /** The query's words, to centre cuts on (null: cut from the start). */
  matcher: TermMatcher | null;
  options: ResolvedRetrieval;
  /** full: the page to start at. */
  cursor?: string;
  /** Changes when the item's text does: a cursor from another version is refused. */
  version: string;
}

/** The most a `full` page holds, whatever max_tokens says. */
export const FULL_PAGE_MAX_TOKENS = 50_000;

export function retrieve(input: RetrievalInput): { content: string; info: RetrievalInfo } {
  const { text, chunks, options } = input;
  const budget = budgetChars(options.maxTokens, options.charsPerToken);
  const anchor = input.anchor === null ? null : chunks[input.anchor]!;
  let start = 0;
  let end = 0;
  let covered: number[] = [];
  let truncated = false;
  let nextCursor: string | null = null;

  if (options.mode === 'full') {
    start = input.cursor ? decodeCursor(input.cursor, input.version, text.length) : 0;
    const page = budgetChars(Math.min(options.maxTokens, FULL_PAGE_MAX_TOKENS), options.charsPerToken);
    end = Math.min(text.length, start + page);
    if (end < text.length) end = cutBack(text, start, end);
    truncated = start > 0 || end < text.length;
    nextCursor = end < text.length ? encodeCursor(end, input.version) : null;
    covered = chunks.filter((c) => c.charEnd > start && c.charStart < end).map((c) => c.index);
  } else if (!anchor) {
    // nothing to anchor in (an empty item): empty content
  } else if (options.mode === 'snippet') {
    const width = Math.min(options.snippetLength, budget);
    [start, end] = windowAround(text, anchor.charStart, anchor.charEnd, width, input.matcher, { spill: true });
    truncated = start > anchor.charStart || end < anchor.charEnd;
    covered = [anchor.index];
  } else {
    const span = options.mode === 'chunk' ? [input.anchor!] : siblings(chunks, input.anchor!, options.siblingWindow, budget);
    start = chunks[span[0]!]!.charStart;
    end = chunks[span[span.length - 1]!]!.charEnd;
    if (end - start > budget) {
      // the anchor alone is over the budget: the part of it around the query's words
      [start, end] = windowAround(text, anchor.charStart, anchor.charEnd, budget, input.matcher, { spill: false });
      truncated = true;
    }
    covered = [anchor.index, ...span.filter((p) => p !== input.anchor).map((p) => chunks[p]!.index)];
  }

  let content = text.slice(start, end);
  if (options.mode === 'snippet') content = content.replace(/\s+/g, ' ').trim();
  const tokens = estimateTokens(content.length, options.charsPerToken);
  const first = anchor && options.mode !== 'full' ? anchor : null;
  return {
    content,
    info: {
      mode: options.mode,
      tokens,
      max_tokens: options.maxTokens,
      chars_per_token: options.charsPerToken,
      chunks: covered,
      anchor: first ? first.index : null,
      anchored_by: input.anchoredBy,
      chunking: input.chunking,
      char_start: start,
      char_end: end,
      line_start: text.length ? lineAt(text, start, chunks) : null,
      line_end: text.length ? lineAt(text, Math.max(start, end - 1), chunks) : null,
      truncated,
      next_cursor: nextCursor,
      total_chars: text.length,
    },
  };
}

/**
 * Positions (into `chunks`) of the anchor and the siblings that fit: one more on the left,
 * then one more on the right, up to `window` each side, while the contiguous span they cover
 * stays within `budget` characters. A side stops at its first sibling that does not fit.
 */
export function siblings(chunks: readonly ItemChunk[], anchor: number, window: number, budget: number): number[] {
  let lo = anchor;
  let hi = anchor;
  let leftOpen = true;
  let rightOpen = true;
  const fits = (a: number, b: number) => chunks[b]!.charEnd - chunks[a]!.charStart <= budget;
  for (let step = 1; step <= window && (leftOpen || rightOpen); step++) {
    if (leftOpen) {
      if (lo - 1 >= 0 && fits(lo - 1, hi)) lo--;
      else leftOpen = false;
    }
    if (rightOpen) {
      if (hi + 1 < chunks.length && fits(lo, hi + 1)) hi++;
      else rightOpen = false;
    }
  }
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

/**
 * A window of at most `width` characters in [rangeStart, rangeEnd) — or, with `spill`, in the
 * whole text around that range — placed where the most distinct query words fall, snapped to
 * word boundaries inside the width.
 */
export function windowAround(
  text: string,
  rangeStart: number,
  rangeEnd: number,
  width: number,
  matcher: TermMatcher | null,
  opts: { spill: boolean },
): [number, number] {
  const lo = opts.spill ? 0 : rangeStart;
  const hi = opts.spill ? text.length : rangeEnd;
  if (width <= 0) return [rangeStart, rangeStart];
  if (hi - lo <= width) return [lo, hi];
  let start = rangeStart;
  const matches = matcher && !matcher.empty ? matcher.find(text, rangeStart, rangeEnd) : [];
  if (matches.length) {
    let best = { i: 0, j: 0, distinct: 0 };
    for (let i = 0, j = 0; i < matches.length; i++) {
      if (j < i) j = i;
      while (j + 1 < matches.length && matches[j + 1]!.end - matches[i]!.start <= width) j++;
      const distinct = new Set(matches.slice(i, j + 1).map((m) => m.term)).size;
      if (distinct > best.distinct) best = { i, j, distinct };
    }
    const spanStart = matches[best.i]!.start;
    const spanEnd = matches[best.j]!.end;
    start = spanStart - Math.floor(Math.max(0, width - (spanEnd - spanStart)) / 2);
  } else if (opts.spill && rangeEnd - rangeStart < width) {
    start = rangeStart - Math.floor((width - (rangeEnd - rangeStart)) / 2); // a short chunk: centred
  }
  start = Math.max(lo, Math.min(start, hi - width));
  let end = start + width;
  // whole words where that costs little (never past the width)
  if (start > lo && /\S/.test(text[start - 1]!)) {
    for (let p = start; p < Math.min(end, start + 20); p++) {
      if (/\s/.test(text[p]!)) {
        start = p + 1;
        break;
      }
    }
  }
  if (end < hi && /\S/.test(text[end]!)) end = cutBack(text, start, end);
  return [start, safeEnd(text, start, end)];
}

/** Moves `end` back to just after a line break (or, failing that, a space) near it; never before `start`. */
function cutBack(text: string, start: number, end: number, reach = Math.max(20, Math.floor((end - start) / 5))): number {
  const floor = Math.max(start + 1, end - reach);
  const nl = text.lastIndexOf('\n', end - 1);
  if (nl >= floor) return nl + 1;
  for (let p = end - 1; p >= floor; p--) if (/\s/.test(text[p]!)) return p + 1;
  return safeEnd(text, start, end);
}

/** Never split a surrogate pair: the cut would hold half a character. */
function safeEnd(text: string, start: number, end: number): number {
  if (end > start && end < text.length) {
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) return end - 1;
  }
  return end;
}

/** The 1-based line of `offset`, counted from the nearest chunk that starts at or before it. */
function lineAt(text: string, offset: number, chunks: readonly ItemChunk[]): number {
  let from = 0;
  let line = 1;
  for (const c of chunks) {
    if (c.charStart > offset || c.lineStart === null) continue;
    if (c.charStart >= from) {
      from = c.charStart;
      line = c.lineStart;
    }
  }
  for (let i = text.indexOf('\n', from); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

interface Cursor {
  o: number;
  v: string;
}

function encodeCursor(offset: number, version: string): string {
  return Buffer.from(JSON.stringify({ o: offset, v: version } satisfies Cursor)).toString('base64url');
}

function decodeCursor(cursor: string, version: string, length: number): number {
  let c: Partial<Cursor>;
  try {
    c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Cursor>;
  } catch {
    throw invalidInput('cursor is not one knowledge.get returned (pass next_cursor back as it came)');
  }
  if (typeof c.o !== 'number' || !Number.isInteger(c.o) || c.o < 0 || typeof c.v !== 'string') {
    throw invalidInput('cursor is not one knowledge.get returned (pass next_cursor back as it came)');
  }
  if (c.v !== version || c.o > length) throw invalidInput('the item changed since this cursor was returned; start again without a cursor');
  return c.o;
}
