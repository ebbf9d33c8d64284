// Chunker: sections at headings, heading paths, code fences kept whole, overlap when a section
// is split, and exact char/line ranges for every chunk.
import { describe, expect, it } from 'vitest';
import { chunkDocument, type Chunk } from '../../src-main/engine/ingest/chunker.js';
import { markdownParser } from '../../src-main/engine/ingest/parsers/markdown.js';
import { textParser } from '../../src-main/engine/ingest/parsers/text.js';
import { DocBuilder } from '../../src-main/engine/ingest/parsers/doc-builder.js';

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Every chunk's ranges agree with the text: non-empty, trimmed, line numbers exact, in order. */
function expectExactRanges(text: string, chunks: Chunk[]): void {
  expect(chunks.length).toBeGreaterThan(0);
  let prevStart = -1;
  for (const c of chunks) {
    expect(c.end).toBeGreaterThan(c.start);
    expect(c.end).toBeLessThanOrEqual(text.length);
    const body = text.slice(c.start, c.end);
    expect(body).toBe(body.trim());
    expect(c.lineStart).toBe(lineOf(text, c.start));
    expect(c.lineEnd).toBe(lineOf(text, c.end - 1));
    expect(c.start).toBeGreaterThan(prevStart);
    prevStart = c.start;
  }
}

/** No word of the document is lost between chunks. */
function expectFullCoverage(text: string, from: number, chunks: Chunk[]): void {
  const covered = new Uint8Array(text.length);
  for (const c of chunks) covered.fill(1, c.start, c.end);
  for (let i = from; i < text.length; i++) if (!/\s/.test(text[i]!)) expect(covered[i], `offset ${i} (${JSON.stringify(text.slice(i, i + 20))})`).toBe(1);
}

const paragraph = (seed: string, words: number) =>
  Array.from({ length: words }, (_, i) => `${seed}${i}`).join(' ').replace(/(\S+ \S+ \S+ \S+ \S+ \S+ \S+ \S+) /g, '$1\n');

describe('chunkDocument', () => {
  it('starts chunks at headings and records the heading path', () => {
    const text = [
      '# Guide',
      '',
      paragraph('intro', 60),
      '',
      '## Install',
      '',
      paragraph('install', 60),
      '',
      '### On Linux',
      '',
      paragraph('linux', 60),
      '',
      '## Usage',
      '',
      paragraph('usage', 60),
    ].join('\n');
    const doc = markdownParser.parse(text, 'guide.md');
    const chunks = chunkDocument(doc, { targetChars: 500, overlapChars: 0 });
    expectExactRanges(text, chunks);
    expectFullCoverage(text, 0, chunks);
    const pathFor = (word: string) => chunks.find((c) => text.slice(c.start, c.end).includes(word))!.headingPath;
    expect(pathFor('intro3')).toEqual(['Guide']);
    expect(pathFor('install3')).toEqual(['Guide', 'Install']);
    expect(pathFor('linux3')).toEqual(['Guide', 'Install', 'On Linux']);
    expect(pathFor('usage3')).toEqual(['Guide', 'Usage']);
    // a level-2 heading always starts a new chunk
    for (const h of ['## Install', '## Usage']) expect(chunks.some((c) => text.slice(c.start).startsWith(h))).toBe(true);
  });

  it('keeps a code fence whole when it fits in twice the target', () => {
    const code = ['```ts', ...Array.from({ length: 30 }, (_, i) => `const value${i} = compute(${i});`), '', '// blank line above is inside the fence', '```'].join('\n');
    const text = ['# Code', '', paragraph('before', 50), '', code, '', paragraph('after', 50)].join('\n');
    const doc = markdownParser.parse(text, 'code.md');
    expect(doc.atomic).toHaveLength(1);
    const target = 700;
    expect(code.length).toBeGreaterThan(target);
    expect(code.length).toBeLessThan(target * 2);
    const chunks = chunkDocument(doc, { targetChars: target, overlapChars: 0 });
    expectExactRanges(text, chunks);
    const fenceStart = text.indexOf('```ts');
    const fenceEnd = text.lastIndexOf('```') + 3;
    const holder = chunks.filter((c) => c.start <= fenceStart && c.end >= fenceEnd);
    expect(holder).toHaveLength(1);
    // and no other chunk cuts into it
    for (const c of chunks) if (c !== holder[0]) expect(c.end <= fenceStart || c.start >= fenceEnd).toBe(true);
  });

  it('splits a long section near the target size with overlap between neighbours', () => {
    const text = paragraph('word', 800);
    const doc = textParser.parse(text, 'long.txt');
    const chunks = chunkDocument(doc, { targetChars: 400, overlapChars: 100 });
    expectExactRanges(text, chunks);
    expectFullCoverage(text, 0, chunks);
    expect(chunks.length).toBeGreaterThan(5);
    // a piece of at most the target, plus the repeated context before it
    for (const c of chunks) expect(c.end - c.start).toBeLessThanOrEqual(400 + 100);
    for (let i = 1; i < chunks.length; i++) {
      const overlap = chunks[i - 1]!.end - chunks[i]!.start;
      expect(overlap, `chunk ${i} overlaps the previous one`).toBeGreaterThan(0);
      expect(overlap).toBeLessThanOrEqual(100 + 80); // the overlap snaps to a line start
    }
  });

  it('does not overlap when overlap is 0', () => {
    const text = paragraph('word', 800);
    const chunks = chunkDocument(textParser.parse(text, 'long.txt'), { targetChars: 400, overlapChars: 0 });
    expectExactRanges(text, chunks);
    for (const c of chunks) expect(c.end - c.start).toBeLessThanOrEqual(400);
    expectFullCoverage(text, 0, chunks);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBeGreaterThanOrEqual(chunks[i - 1]!.end);
  });

  it('splits a single over-long line at spaces and keeps line numbers right', () => {
    const text = `first line\n${'x'.repeat(10)} ${Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ')}\nlast line`;
    const chunks = chunkDocument(textParser.parse(text, 'one-line.txt'), { targetChars: 300, overlapChars: 0 });
    expectExactRanges(text, chunks);
    expectFullCoverage(text, 0, chunks);
    expect(chunks.at(-1)!.lineEnd).toBe(3);
  });

  it('skips front matter and chunks the body only', () => {
    const text = '---\ntitle: T\ntags: [a]\n---\n# Body\n\nsome body text here\n';
    const doc = markdownParser.parse(text, 'fm.md');
    const chunks = chunkDocument(doc, { targetChars: 500, overlapChars: 0 });
    expectExactRanges(text, chunks);
    expect(chunks[0]!.start).toBe(doc.bodyStart);
    expect(chunks[0]!.lineStart).toBe(5);
    expect(text.slice(chunks[0]!.start, chunks[0]!.end)).toBe('# Body\n\nsome body text here');
  });

  it('joins small subsections into one chunk and lists their headings', () => {
    const text = '# Top\n\nintro\n\n### A\n\nalpha\n\n### B\n\nbeta\n';
    const chunks = chunkDocument(markdownParser.parse(text, 'small.md'), { targetChars: 1000, overlapChars: 0 });
    expectExactRanges(text, chunks);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.headingPath).toEqual(['Top']);
    expect(chunks[0]!.innerHeadings).toEqual(['A', 'B']);
  });

  it('returns no chunks for whitespace only', () => {
    expect(chunkDocument(textParser.parse('  \n\n \t\n', 'blank.txt'))).toEqual([]);
  });

  it('handles CRLF-free CJK text without spaces by cutting at 。', () => {
    const sentence = '全文检索是一种信息检索技术。';
    const text = sentence.repeat(60);
    const chunks = chunkDocument(textParser.parse(text, 'zh.txt'), { targetChars: 200, overlapChars: 0 });
    expectExactRanges(text, chunks);
    expectFullCoverage(text, 0, chunks);
    for (const c of chunks.slice(0, -1)) expect(text[c.end - 1]).toBe('。');
  });
});

describe('documents with pages', () => {
  it('no chunk crosses a page start; each carries its page, small pages stay apart, the heading path carries over', () => {
    const b = new DocBuilder(1_000_000);
    b.page('page', 1);
    b.heading(1, 'Report');
    b.paragraph('Short first page.');
    b.page('page', 2);
    b.paragraph('Short second page continues the report.');
    b.page('page', 3);
    b.heading(2, 'Findings');
    for (let i = 0; i < 40; i++) b.paragraph(`Finding number ${i} is written out at some length so that the page needs several chunks.`);
    const doc = b.build('Report', 'pdf');
    const chunks = chunkDocument(doc, { targetChars: 400, overlapChars: 100 });
    expectExactRanges(doc.text, chunks);
    const starts = doc.pages!.map((p) => p.offset);
    for (const c of chunks) {
      const page = doc.pages!.filter((p) => p.offset <= c.start).at(-1)!.page;
      expect(c.page).toBe(page);
      expect(starts.some((s) => s > c.start && s < c.end), `chunk ${c.start}-${c.end} crosses a page`).toBe(false);
    }
    expect(chunks.filter((c) => c.page === 2).map((c) => c.headingPath)).toEqual([['Report']]);
    expect(chunks.filter((c) => c.page === 3).length).toBeGreaterThan(3);
    // past the marker line (prepare.ts drops a chunk that is only a marker), page 3 is under its heading
    const page3 = chunks.filter((c) => c.page === 3 && !/^\[page 3\]$/.test(doc.text.slice(c.start, c.end)));
    expect(page3.every((c) => c.headingPath.join('/') === 'Report/Findings')).toBe(true);
  });

  it('documents without pages have page null', () => {
    const chunks = chunkDocument(markdownParser.parse('# A\n\ntext\n', 'a.md'));
    expect(chunks.map((c) => c.page)).toEqual([null]);
  });
});
