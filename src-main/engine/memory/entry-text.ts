// An entry's text → chunks in index form, as documents get them (ingest/prepare.ts): the same
// chunker for long texts, CJK runs as bigrams (search/cjk.ts), the title column from the entry's
// metadata.title when it is a string (so a titled note ranks like a titled document). Short
// entries — most of them — are one chunk, cut without running the chunker.
import { chunkDocument, type ChunkOptions } from '../ingest/chunker.js';
import { estimateTokens } from '../ingest/prepare.js';
import { toIndexText } from '../text/cjk.js';
import type { ChunkWrite } from '../store/chunks.js';

const TITLE_CHARS = 500;

/** The entry's title: metadata.title when it is a non-empty string. */
export function titleOf(metadata: Record<string, unknown>): string {
  const t = metadata.title;
  return typeof t === 'string' ? t.trim().slice(0, TITLE_CHARS) : '';
}

export function entryChunks(text: string, title: string, chunking: ChunkOptions): ChunkWrite[] {
  const ftsTitle = title ? toIndexText(title) : '';
  if (text.length <= chunking.targetChars) {
    let start = 0;
    let end = text.length;
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    const body = text.slice(start, end);
    const lineStart = 1 + countLines(text, 0, start);
    return [{ ordinal: 0, charStart: start, charEnd: end, lineStart, lineEnd: lineStart + countLines(body, 0, body.length), headingPath: [], tokens: estimateTokens(body), ftsTitle, ftsHeadings: '', ftsBody: toIndexText(body) }];
  }
  const chunks = chunkDocument({ text, title, kind: 'memory', tags: [], metadata: {}, headings: [], atomic: [], bodyStart: 0 }, chunking);
  return chunks.map((c, ordinal) => {
    const body = text.slice(c.start, c.end);
    return {
      ordinal,
      charStart: c.start,
      charEnd: c.end,
      lineStart: c.lineStart,
      lineEnd: c.lineEnd,
      headingPath: [],
      tokens: estimateTokens(body),
      ftsTitle,
      ftsHeadings: '',
      ftsBody: toIndexText(body),
    };
  });
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
