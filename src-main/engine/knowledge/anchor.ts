// Where knowledge.get anchors in an item: the chunk a result's loc names, or — with no loc — a
// light search in the item (the chunk where the most distinct query words fall), or its first
// chunk. Items without chunks of their own (a FAISS dataset's entries), or a caller asking for
// other sizes (prefer_prechunked false), are chunked on the fly with the indexer's chunker.
import { chunkDocument } from '../ingest/chunker.js';
import { invalidInput } from '../errors.js';
import { queryMatcher } from '../search/highlight.js';
import type { TermMatcher } from '../search/snippet.js';
import type { KnowledgeAnchor, RetrievalInfo } from '../types/knowledge.js';
import type { ItemChunk } from './retrieval.js';

/** Chunks of about `sizeChars`, repeating about `overlapChars` of the previous one: paragraphs and lines kept whole where they fit. */
export function chunkOnTheFly(text: string, sizeChars: number, overlapChars: number): ItemChunk[] {
  if (!text.trim()) return [];
  const parsed = { text, title: '', kind: 'text', tags: [], metadata: {}, headings: [], atomic: [], bodyStart: 0 };
  return chunkDocument(parsed, { targetChars: sizeChars, overlapChars }).map((c, index) => ({
    index,
    charStart: c.start,
    charEnd: c.end,
    lineStart: c.lineStart,
    lineEnd: c.lineEnd,
  }));
}

/** The words a query searched for, as every face marks them (search/highlight.ts); null for no usable words. */
export function matcherFor(query: string | undefined): TermMatcher | null {
  if (!query?.trim()) return null;
  const m = queryMatcher(query, 'match');
  return m.empty ? null : m; // only stop words or punctuation: nothing to look for
}

/**
 * The anchor's position in `chunks`. A loc must name a chunk the item has (else INVALID_INPUT
 * saying which exist); without one, the light search picks the chunk where the most distinct
 * query words fall (then the most matches, then the earliest).
 */
export function findAnchor(
  text: string,
  chunks: readonly ItemChunk[],
  loc: KnowledgeAnchor | undefined,
  matcher: TermMatcher | null,
): { position: number | null; by: RetrievalInfo['anchored_by'] } {
  if (!chunks.length) return { position: null, by: 'first' };
  if (loc && [loc.chunk_index, loc.page, loc.line, loc.approx_offset].some((v) => v !== undefined)) return { position: fromLoc(chunks, loc), by: 'loc' };
  if (matcher) {
    let best = { position: -1, distinct: 0, count: 0 };
    chunks.forEach((c, position) => {
      const found = matcher.find(text, c.charStart, c.charEnd);
      if (!found.length) return;
      const distinct = new Set(found.map((m) => m.term)).size;
      if (distinct > best.distinct || (distinct === best.distinct && found.length > best.count)) best = { position, distinct, count: found.length };
    });
    if (best.position >= 0) return { position: best.position, by: 'query' };
  }
  return { position: 0, by: 'first' };
}

function fromLoc(chunks: readonly ItemChunk[], loc: KnowledgeAnchor): number {
  if (loc.chunk_index !== undefined) {
    const p = chunks.findIndex((c) => c.index === loc.chunk_index);
    if (p < 0) throw invalidInput(`loc.chunk_index ${loc.chunk_index} is not a chunk of this item (it has chunks 0–${chunks[chunks.length - 1]!.index})`);
    return p;
  }
  if (loc.page !== undefined) {
    const p = chunks.findIndex((c) => c.page !== undefined && c.page >= loc.page!);
    if (p < 0) throw invalidInput(`loc.page ${loc.page} is not a page of this item`);
    return p;
  }
  if (loc.line !== undefined) {
    const p = chunks.findIndex((c) => c.lineStart !== null && c.lineEnd !== null && c.lineStart <= loc.line! && loc.line! <= c.lineEnd);
    if (p < 0) throw invalidInput(`loc.line ${loc.line} is not a line of this item`);
    return p;
  }
  const offset = loc.approx_offset!;
  const p = chunks.findIndex((c) => c.charStart <= offset && offset < c.charEnd);
  if (p >= 0) return p;
  // between chunks (trimmed whitespace) or past the end: the nearest chunk before it
  for (let i = chunks.length - 1; i >= 0; i--) if (chunks[i]!.charStart <= offset) return i;
  return 0;
}
