// PDF reading order from the text items' positions (pdf-layout.ts), on pages built item by item:
// two columns drawn row by row or right column first come out column by column with a spanning
// title and footer in place; a table and a single column keep their content order.
import { describe, expect, it } from 'vitest';
import { toLines, type TextItemLike } from '../../src-main/engine/ingest/parsers/pdf-layout.js';

const SIZE = 10;
const item = (str: string, x: number, y: number, eol = false): TextItemLike => ({
  str,
  transform: [SIZE, 0, 0, SIZE, x, y],
  width: str.length * SIZE * 0.5,
  height: SIZE,
  hasEOL: eol,
});
const left = ['the first column opens the story', 'and runs down the left half of it', 'until it reaches the end of its lines'];
const right = ['the second column carries it on', 'down the right half of the same page', 'and closes the story at the bottom'];
const rowY = (i: number) => 700 - i * 14;

describe('PDF reading order', () => {
  it('two columns drawn row by row are read column by column, the title and footer in place', () => {
    const items = [
      item('A Title Across Both Columns Of The Page', 150, 740, true), // centred over both
      ...left.flatMap((l, i) => [item(l, 60, rowY(i)), item(right[i]!, 260, rowY(i), true)]),
      item('a footer line that runs the full width of the page below both columns', 60, 640, true),
    ];
    expect(toLines(items).map((l) => l.text)).toEqual(['A Title Across Both Columns Of The Page', ...left, ...right, 'a footer line that runs the full width of the page below both columns']);
  });

  it('a right column drawn first is read after the left one', () => {
    const items = [...right.map((r, i) => item(r, 260, rowY(i), true)), ...left.map((l, i) => item(l, 60, rowY(i), true))];
    const lines = toLines(items);
    expect(lines.map((l) => l.text)).toEqual([...left, ...right]);
    expect(lines.map((l) => l.gapBefore)).toEqual([true, false, false, true, false, false]); // the next column starts a paragraph
  });

  it('a table of short cells and uneven text stays row by row', () => {
    const cells = [['Quay', 'opens at six in the morning'], ['The old market hall with its clock', 'closed on Sundays'], ['Museum', 'free entry on Mondays'], ['Lighthouse gallery', 'guided visits every afternoon']];
    const items = cells.flatMap(([a, b], i) => [item(a!, 60, rowY(i)), item(b!, 260, rowY(i), true)]);
    expect(toLines(items).map((l) => l.text)).toEqual(cells.map(([a, b]) => `${a} ${b}`));
  });

  it('a single column keeps its content order', () => {
    const items = [...left, ...right].map((l, i) => item(l, 60, rowY(i), true));
    expect(toLines(items).map((l) => l.text)).toEqual([...left, ...right]);
  });
});
