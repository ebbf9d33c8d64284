// One file's bytes → what the store needs: parsed text, document fields, chunks in index form.
// Text formats are prepared by prepareDocument: in the parse workers when a batch has many of them
// (parse-worker.ts), where they are indexed when it has a few (no worker round trip); documents
// (PDF, Office, …) by prepareBinaryDocument, which the parse workers run; a document's
// attachments that are documents of their own (an e-mail's PDF) are prepared with it, in the same worker.
import { createHash } from 'node:crypto';
import { toIndexText } from '../text/cjk.js';
import type { ChunkWrite } from '../store/chunks.js';
import { mergeOcrPages } from '../ocr/merge.js';
import { chunkDocument, type ChunkOptions } from './chunker.js';
import { decodeText } from './decode.js';
import { documentParserFor, parserFor } from './parsers/index.js';
import { PAGE_MARKER_LINE, UnsupportedDocument, type ParsedDocument, type ParseLimits } from './parsers/types.js';

export type Prepared =
  | {
      ok: true;
      text: string;
      title: string;
      kind: string;
      tags: string[];
      metadata: Record<string, unknown>;
      note?: string;
      /** Indexed, but not all of it (see ParsedDocument.warnings); status lists it. */
      warning?: string;
      chunks: ChunkWrite[];
      /** Documents inside this one (an e-mail's attachments), each stored at `<path>/<its path>`. */
      attachments?: PreparedAttachment[];
      /** Pages only OCR can read (ParsedDocument.ocrPages). */
      ocrPages?: number[];
    }
  | { ok: false; status: 'skipped' | 'failed'; reason: string; kind: string };

export interface PreparedAttachment {
  /** Relative to its file: `report.pdf`, `3/report.pdf`. */
  path: string;
  size: number;
  hash: string;
  prepared: Prepared;
}

/** True when the file is a document read by a parse worker (PDF, Office, …), not as text. */
export function isBinaryDocument(path: string): boolean {
  return documentParserFor(path) !== undefined;
}

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
  return finish(parsed, chunking, decoded.note, false);
}

/** Recognised pages to merge into a document as it is prepared (the OCR stage's: ocr/merge.ts). */
export type OcrMerge = Parameters<typeof mergeOcrPages>[1];

/**
 * A document's bytes through its parser (in a parse worker; see parse-pool.ts). `ocr`: pages the
 * OCR stage recognised, which replace those pages' sections before the document is chunked.
 */
export async function prepareBinaryDocument(bytes: Uint8Array, path: string, chunking: ChunkOptions, limits: ParseLimits, ocr?: OcrMerge): Promise<Prepared> {
  const parser = documentParserFor(path);
  if (!parser) return { ok: false, status: 'failed', reason: 'not a document format', kind: 'unknown' };
  if (bytes.length === 0) return { ok: false, status: 'skipped', reason: 'empty file', kind: parser.kind };
  let parsed;
  try {
    parsed = await parser.parse(bytes, path, limits);
  } catch (err) {
    if (err instanceof UnsupportedDocument) return { ok: false, status: 'skipped', reason: err.message, kind: parser.kind };
    return { ok: false, status: 'failed', reason: `cannot read as ${parser.kind}: ${(err as Error).message}`, kind: parser.kind };
  }
  parsed.text = parsed.text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) => (c === '\u000b' || c === '\u000c' ? '\n' : ''));
  if (ocr) parsed = mergeOcrPages(parsed, ocr, 'page', limits.maxTextChars);
  const prepared = finish(parsed, chunking, undefined, true);
  if (!parsed.attachments?.length || !prepared.ok) return prepared;
  const attachments: PreparedAttachment[] = [];
  for (const file of parsed.attachments) {
    attachments.push({
      path: file.path,
      size: file.bytes.length,
      hash: createHash('sha256').update(file.bytes).digest('hex'),
      prepared: await prepareBinaryDocument(file.bytes, file.path, chunking, limits),
    });
  }
  return { ...prepared, attachments };
}

function finish(parsed: ParsedDocument, chunking: ChunkOptions, note: string | undefined, markers: boolean): Prepared {
  if (!parsed.text.trim()) {
    return { ok: false, status: 'skipped', reason: parsed.warnings?.length ? parsed.warnings.join('; ') : 'no text content', kind: parsed.kind };
  }
  const ftsTitle = toIndexText(parsed.title);
  const chunks: ChunkWrite[] = [];
  for (const c of chunkDocument(parsed, chunking)) {
    let body = parsed.text.slice(c.start, c.end);
    // a document's marker lines are shown by get, never searched: a chunk of nothing but a marker is left out
    if (markers) {
      body = body.replace(PAGE_MARKER_LINE, '');
      if (!body.trim()) continue;
    }
    const headings = c.innerHeadings.length ? [...c.headingPath, ...c.innerHeadings] : c.headingPath;
    chunks.push({
      ordinal: chunks.length,
      charStart: c.start,
      charEnd: c.end,
      lineStart: c.lineStart,
      lineEnd: c.lineEnd,
      headingPath: c.headingPath,
      page: c.page,
      tokens: estimateTokens(body),
      ftsTitle,
      ftsHeadings: toIndexText(headings.join(' \n ')),
      ftsBody: toIndexText(body),
    });
  }
  return {
    ok: true,
    text: parsed.text,
    title: parsed.title.slice(0, 500),
    kind: parsed.kind,
    tags: parsed.tags,
    metadata: parsed.metadata,
    note,
    ...(parsed.warnings?.length ? { warning: parsed.warnings.join('; ').slice(0, 2000) } : {}),
    ...(parsed.ocrPages?.length ? { ocrPages: parsed.ocrPages } : {}),
    chunks,
  };
}

/** Rough model-token count: ~4 characters per token for alphabetic text, one per CJK character. */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const m of text.matchAll(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g)) cjk += m[0].length;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}
