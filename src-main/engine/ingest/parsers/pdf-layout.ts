// A PDF page's text items → lines in reading order. Items arrive in content-stream order, which
// is reading order for most producers (Chromium, Word, LaTeX) but not for all: some draw a
// two-column page row by row, or the right column first. So the order is decided from where the
// text is: items on one baseline join into a line (content order within it: right-to-left
// scripts stay in logical order); columns are found as gutters — vertical strips that the lines
// of both neighbours leave empty, with prose on either side (a table's narrow cells are not
// columns); a page with columns is read column by column, top to bottom, and a line that spans a
// gutter (a title, a full-width paragraph, a footer) stays where it is, between the column
// stretches above and below it. A page without columns keeps its content order.

export interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

export interface Line {
  text: string;
  y: number;
  size: number;
  /** A paragraph starts here (a vertical gap above it, or the top of a new column). */
  gapBefore: boolean;
}

interface Fragment {
  str: string;
  x0: number;
  x1: number;
  size: number;
}

/** One baseline's fragments, in content order. */
interface RawLine {
  frags: Fragment[];
  y: number;
  size: number;
  height: number;
  /** Rotated text (a margin note, an arXiv stamp): kept out of column finding, read after the page. */
  rotated: boolean;
}

interface Piece {
  frags: Fragment[];
  y: number;
  size: number;
  height: number;
  /** Column index, or -1 when the line spans a gutter. */
  column: number;
  order: number;
}

/** A vertical strip no column text crosses: [x0, x1] in page units. */
interface Gutter {
  x0: number;
  x1: number;
}

/** Text items of one page → its lines in reading order. */
export function toLines(items: readonly TextItemLike[]): Line[] {
  const raw = rawLines(items);
  const upright = raw.filter((l) => !l.rotated);
  const gutters = findGutters(upright);
  const ordered = gutters.length ? columnOrder(upright, gutters) : upright.map((l, order) => ({ ...l, column: 0, order }));
  for (const [order, l] of raw.entries()) if (l.rotated) ordered.push({ ...l, column: -1, order });
  return paragraphs(ordered);
}

/** Content order, one line per baseline run: an item on the same baseline joins the line, a jump starts another. */
function rawLines(items: readonly TextItemLike[]): RawLine[] {
  const lines: RawLine[] = [];
  let cur: RawLine | null = null;
  const end = () => {
    if (cur && cur.frags.some((f) => f.str.trim())) lines.push(cur);
    cur = null;
  };
  for (const item of items) {
    const [a = 1, b = 0, c = 0, d = 1, x = 0, y = 0] = item.transform;
    const size = Math.hypot(c, d) || item.height || 10;
    const rotated = Math.abs(b) > Math.abs(a) * 0.1;
    if (item.str) {
      const frag = { str: item.str, x0: x, x1: x + item.width, size };
      if (cur && cur.rotated === rotated && Math.abs(y - cur.y) <= Math.max(cur.height, size) * 0.5) {
        cur.frags.push(frag);
        cur.size = Math.max(cur.size, size);
      } else {
        end();
        cur = { frags: [frag], y, size, height: size, rotated };
      }
    }
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

/** A line's text: fragments joined, a space where the gap between them is wider than a hair. */
function textOf(frags: readonly Fragment[]): string {
  let text = '';
  let xEnd: number | null = null;
  for (const f of frags) {
    if (xEnd !== null && f.x0 - xEnd > f.size * 0.15 && !text.endsWith(' ') && !f.str.startsWith(' ')) text += ' ';
    text += f.str;
    xEnd = f.x1;
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** Fragments with letters, left to right (an item of spaces filling a gap shows no text). */
const inked = (frags: readonly Fragment[]): Fragment[] => frags.filter((f) => f.str.trim()).sort((p, q) => p.x0 - q.x0);

/** Stretches of a line's text with no gap wider than half its size between them (word gaps close up). */
function runsOf(line: RawLine): { x0: number; x1: number; chars: number }[] {
  const frags = inked(line.frags);
  const runs: { x0: number; x1: number; chars: number }[] = [];
  for (const f of frags) {
    const last = runs.at(-1);
    if (last && f.x0 - last.x1 < line.size * 0.5) {
      last.x1 = Math.max(last.x1, f.x1);
      last.chars += f.str.trim().length;
    } else runs.push({ x0: f.x0, x1: Math.max(f.x1, f.x0), chars: f.str.trim().length });
  }
  return runs;
}

const MIN_COLUMN_LINES = 3;
const MIN_PROSE_CHARS = 15;
/** How much of its column's width a typical line of a text column covers (the median line). */
const MIN_COLUMN_FILL = 0.7;

type PlacedRun = { x0: number; x1: number; chars: number; y: number };

/** The page's gutters, left to right; none for a single-column page. */
function findGutters(lines: readonly RawLine[]): Gutter[] {
  if (lines.length < MIN_COLUMN_LINES) return [];
  const runs: PlacedRun[] = lines.flatMap((l) => runsOf(l).map((r) => ({ ...r, y: l.y })));
  let left = Infinity;
  let right = -Infinity;
  for (const r of runs) {
    left = Math.min(left, r.x0);
    right = Math.max(right, r.x1);
  }
  const width = right - left;
  if (!(width > 50)) return [];
  const body = medianOf(lines.map((l) => l.size));
  // how many runs cover each slice of the page's width (a difference array, then its sums)
  const bins = Math.min(2000, Math.ceil(width));
  const scale = bins / width;
  const cover = new Int32Array(bins + 1);
  for (const r of runs) {
    cover[Math.max(0, Math.floor((r.x0 - left) * scale))]!++;
    cover[Math.min(bins, Math.ceil((r.x1 - left) * scale))]!--;
  }
  let peak = 0;
  for (let i = 0, n = 0; i < bins; i++) peak = Math.max(peak, (cover[i] = n += cover[i]!));
  if (peak < MIN_COLUMN_LINES) return [];
  // where few runs cross (at most 40% of the peak: lines spanning a gutter cross it — a title, a
  // footer), away from the edges, split the page at the emptiest point; the runs on either side
  // then say whether there are text columns there, and how wide the gap between them is
  const low = Math.floor(peak * 0.4);
  const splits: number[] = [];
  for (let i = 0; i < bins; ) {
    if (cover[i]! > low) {
      i++;
      continue;
    }
    let j = i;
    while (j < bins && cover[j]! <= low) j++;
    const at = left + emptiest(cover, i, j) / scale;
    if (at > left + width * 0.1 && at < right - width * 0.1) splits.push(at);
    i = j;
  }
  const gutters: Gutter[] = [];
  for (const [k, at] of splits.entries()) {
    const g = columnGap(runs, at, splits[k - 1] ?? -Infinity, splits[k + 1] ?? Infinity, body);
    if (g) gutters.push(g);
  }
  return gutters;
}

/** The middle of the longest stretch of [from, to) whose count is the least in it. */
function emptiest(cover: Int32Array, from: number, to: number): number {
  let least = Infinity;
  for (let i = from; i < to; i++) least = Math.min(least, cover[i]!);
  let best = { from, to: from };
  for (let i = from; i < to; ) {
    if (cover[i] !== least) {
      i++;
      continue;
    }
    let j = i;
    while (j < to && cover[j] === least) j++;
    if (j - i > best.to - best.from) best = { from: i, to: j };
    i = j;
  }
  return (best.from + best.to) / 2;
}

/**
 * The gutter at a split, when there are text columns on both sides: at least three lines of words
 * each, side by side, that fill their column (most prose lines run to the column's edge; a table's
 * cells and aligned program output leave most of theirs empty, and read better row by row), with a
 * clear gap between them. Runs crossing the split (lines spanning the columns) are left out.
 */
function columnGap(runs: readonly PlacedRun[], at: number, from: number, to: number, body: number): Gutter | null {
  const lefts = runs.filter((r) => r.x1 <= at && r.x0 >= from);
  const rights = runs.filter((r) => r.x0 >= at && r.x1 <= to);
  const prose = (side: PlacedRun[]) => side.filter((r) => r.chars >= MIN_PROSE_CHARS).length >= MIN_COLUMN_LINES;
  if (!prose(lefts) || !prose(rights)) return null;
  const gutter = { x0: lefts.reduce((m, r) => Math.max(m, r.x1), -Infinity), x1: rights.reduce((m, r) => Math.min(m, r.x0), Infinity) };
  if (gutter.x1 - gutter.x0 < body * 0.6) return null;
  const fills = (side: PlacedRun[]) => {
    const x0 = side.reduce((m, r) => Math.min(m, r.x0), Infinity);
    const x1 = side.reduce((m, r) => Math.max(m, r.x1), -Infinity);
    return medianOf(side.map((r) => (r.x1 - r.x0) / Math.max(1, x1 - x0))) >= MIN_COLUMN_FILL;
  };
  if (!fills(lefts) || !fills(rights)) return null;
  const span = (rs: PlacedRun[]) => [rs.reduce((m, r) => Math.min(m, r.y), Infinity), rs.reduce((m, r) => Math.max(m, r.y), -Infinity)] as const;
  const [lo1, hi1] = span(lefts);
  const [lo2, hi2] = span(rights);
  return Math.min(hi1, hi2) - Math.max(lo1, lo2) >= body * 2 ? gutter : null;
}

/** Lines cut at the gutters into column pieces (or kept whole when they span one), read column by column between spanning lines. */
function columnOrder(lines: readonly RawLine[], gutters: readonly Gutter[]): Piece[] {
  const columnAt = (x: number) => gutters.filter((g) => x >= (g.x0 + g.x1) / 2).length;
  const spanning: Piece[] = [];
  const columns: Piece[][] = gutters.map(() => []).concat([[]]);
  for (const [order, line] of lines.entries()) {
    const byColumn = new Map<number, Fragment[]>();
    let spans = false;
    for (const f of line.frags) {
      if (f.str.trim() && gutters.some((g) => f.x0 < (g.x0 + g.x1) / 2 && f.x1 > (g.x0 + g.x1) / 2)) spans = true;
      const c = columnAt((f.x0 + f.x1) / 2);
      byColumn.set(c, [...(byColumn.get(c) ?? []), f]);
    }
    // text on both sides with no more than a word gap between them across a gutter is one line
    if (!spans && byColumn.size > 1) spans = closeAcrossGutter(line.frags, gutters);
    const piece = (frags: Fragment[], column: number): Piece => ({ frags, y: line.y, size: line.size, height: line.height, column, order });
    if (spans) spanning.push(piece(line.frags, -1));
    else for (const [c, frags] of byColumn) columns[c]!.push(piece(frags, c));
  }
  const topDown = (p: Piece, q: Piece) => q.y - p.y || p.order - q.order;
  for (const col of columns) col.sort(topDown);
  spanning.sort(topDown);
  const out: Piece[] = [];
  const next = columns.map(() => 0);
  const emitAbove = (y: number) => {
    for (const [c, col] of columns.entries()) while (next[c]! < col.length && col[next[c]!]!.y > y) out.push(col[next[c]!++]!);
  };
  for (const s of spanning) {
    emitAbove(s.y);
    out.push(s);
  }
  emitAbove(-Infinity);
  return out;
}

function closeAcrossGutter(frags: readonly Fragment[], gutters: readonly Gutter[]): boolean {
  const sorted = inked(frags);
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i]!.x0 - sorted[i - 1]!.x1;
    const mid = (sorted[i - 1]!.x1 + sorted[i]!.x0) / 2;
    const g = gutters.find((g) => mid >= g.x0 && mid <= g.x1);
    if (g && gap < (g.x1 - g.x0) * 0.5) return true;
  }
  return false;
}

/** Pieces in reading order → lines, a paragraph starting after a vertical gap or at the top of the next column. */
function paragraphs(pieces: readonly (Piece | (RawLine & { column: number; order: number }))[]): Line[] {
  const lines: Line[] = [];
  let prev: { y: number; column: number } | null = null;
  for (const p of pieces) {
    const text = textOf(p.frags);
    if (!text) continue;
    const gapBelow = prev !== null && prev.y - p.y > p.height * 1.9;
    const wentUp = prev !== null && p.y > prev.y + p.height * 0.5;
    lines.push({ text, y: p.y, size: p.size, gapBefore: prev === null || gapBelow || wentUp || p.column !== prev.column });
    prev = p;
  }
  return lines;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 10;
}
