// One file's bytes → what the store needs: parsed text, document fields, chunks in index form.
import { toIndexText } from '../search/cjk.js';
import type { ChunkWrite } from '../store/chunks.js';
import { chunkDocument, type ChunkOptions } from './chunker.js';
import { decodeText } from './decode.js';
import { parserFor } from './parsers/index.js';

export type Prepared =
  | {
      ok: true;
      text: string;
      title: string;
      kind: string;
      tags: string[];
      metadata: Record<string, unknown>;
      note?: string;
      chunks: ChunkWrite[];
    }
  | { ok: false; status: 'skipped' | 'failed'; reason: string; kind: string };

export function prepareDocument(buf: Buffer, path: string, chunking: ChunkOptions): Prepared {
  const parser = parserFor(path);
  if (buf.length === 0) return { ok: false, status: 'skipped', reason: 'empty file', kind: parser.kind };
  const decoded = decodeText(buf);
  if (!decoded.ok) return { ok: false, status: 'skipped', reason: decoded.reason, kind: parser.kind };
  let parsed;
  try {
    parsed = parser.parse(decoded.text, path);
  } catch (err) {
    return { ok: false, status: 'failed', reason: `cannot parse as ${parser.kind}: ${(err as Error).message}`, kind: parser.kind };
  }
  if (!parsed.text.trim()) return { ok: false, status: 'skipped', reason: 'no text content', kind: parsed.kind };
  const ftsTitle = toIndexText(parsed.title);
  const chunks = chunkDocument(parsed, chunking).map((c, ordinal): ChunkWrite => {
    const body = parsed.text.slice(c.start, c.end);
    const headings = c.innerHeadings.length ? [...c.headingPath, ...c.innerHeadings] : c.headingPath;
    return {
      ordinal,
      charStart: c.start,
      charEnd: c.end,
      lineStart: c.lineStart,
      lineEnd: c.lineEnd,
      headingPath: c.headingPath,
      tokens: estimateTokens(body),
      ftsTitle,
      ftsHeadings: toIndexText(headings.join(' \n ')),
      ftsBody: toIndexText(body),
    };
  });
  return {
    ok: true,
    text: parsed.text,
    title: parsed.title.slice(0, 500),
    kind: parsed.kind,
    tags: parsed.tags,
    metadata: parsed.metadata,
    note: decoded.note,
    chunks,
  };
}

/** Rough model-token count: ~4 characters per token for alphabetic text, one per CJK character. */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const m of text.matchAll(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g)) cjk += m[0].length;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}
