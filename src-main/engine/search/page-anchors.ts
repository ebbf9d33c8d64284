// The anchors of a page of hits — each hit's chunk, its document, its collection's name and (when
// snippets are cut) the text around the chunk — read in one round over the storage interface:
// three batch reads side by side. On PostgreSQL that is the difference between a page costing ~4
// round trips per hit and ~4 in all. Texts and collection names are kept until the index changes
// (the engine's generation): searches in a row tend to land on the same documents (half of the
// hits of bench:search's 500 questions were among the last 500 documents shown). Only the chunk's
// stretch of its document is read (on SQLite the compressed blocks it covers, not the whole text:
// store/content-blocks.ts).
import type { ChunkRow } from '../store/chunks.js';
import { sliceWindow } from '../store/content-blocks.js';
import type { HitDocument } from '../store/documents.js';
import type { Storage, TextWindow } from '../store/storage.js';
import { snippetAround, type Snippet, type TermMatcher } from './snippet.js';
import { DocumentTextCache } from './text-cache.js';

export interface PageAnchor {
  chunk: ChunkRow;
  doc: HitDocument;
  collection: string;
  /** The text around the chunk (its range and a character either side), from character `window.start` of the document; '' at 0 when not asked for. */
  window: TextWindow;
}

/** The anchor chunk's snippet (see snippetAround): its range taken in the window. */
export function anchorSnippet(a: PageAnchor, matcher: TermMatcher, maxChars: number): Snippet {
  const { chunk, window } = a;
  return snippetAround(window.text, chunk.charStart - window.start, chunk.charEnd - window.start, chunk.lineStart, matcher, maxChars);
}

/** The anchor chunk's own text. */
export function anchorText(a: PageAnchor): string {
  return sliceWindow(a.window, a.chunk.charStart, a.chunk.charEnd);
}

const NO_TEXT: TextWindow = { start: 0, text: '' };
/** Chunk ranges remembered at most (~50 bytes each); forgotten all at once past it. */
const MAX_RANGES = 100_000;

export class PageAnchors {
  private generation = -1;
  private readonly texts: DocumentTextCache;
  private names = new Map<number, string>();
  /** Chunks' places in their documents, learnt from their rows (immutable while the generation holds). */
  private readonly ranges = new Map<number, { documentId: number; charStart: number; charEnd: number }>();

  constructor(
    private readonly storage: Storage,
    /** Characters of text kept in all (UTF-16: at most twice this in bytes). */
    maxChars = 4_000_000,
  ) {
    this.texts = new DocumentTextCache(maxChars);
  }

  /**
   * Anchors keyed by chunk id; a hit whose chunk or document left the index meanwhile is absent.
   * `fresh`: the texts read again, not taken from the cache (a page read again because the index
   * changed under it: a cached text may be older than its chunks).
   */
  async read(hits: readonly { chunkId: number; documentId: number }[], withText: boolean, generation: number, fresh = false): Promise<Map<number, PageAnchor>> {
    const out = new Map<number, PageAnchor>();
    if (!hits.length) return out;
    this.at(generation);
    // texts a kept stretch covers need no read: a chunk's range is known once its row was read
    const texts = new Map<number, TextWindow>();
    const missing: number[] = [];
    if (withText) {
      for (const h of new Map(hits.map((x) => [x.chunkId, x])).values()) {
        const r = fresh ? undefined : this.ranges.get(h.chunkId);
        const w = r && this.texts.find(r.documentId, Math.max(0, r.charStart - 1), r.charEnd + 1);
        if (w) texts.set(h.chunkId, w);
        else missing.push(h.chunkId);
      }
    }
    const [chunks, docs, read] = await Promise.all([
      this.storage.chunks.byIds(hits.map((h) => h.chunkId)),
      this.storage.documents.forHits(hits.map((h) => h.documentId)),
      missing.length ? this.storage.documents.chunkWindows(missing) : Promise.resolve(new Map<number, TextWindow>()),
    ]);
    this.learn(chunks.values(), read, texts);
    const unnamed = [...new Set([...docs.values()].map((d) => d.collectionId))].filter((id) => !this.names.has(id));
    const names = this.names;
    for (const id of unnamed) names.set(id, (await this.storage.collections.byId(id))?.name ?? '');
    for (const h of hits) {
      const chunk = chunks.get(h.chunkId);
      const doc = docs.get(h.documentId);
      if (!chunk || !doc || chunk.documentId !== doc.id) continue;
      out.set(h.chunkId, { chunk, doc, collection: names.get(doc.collectionId) ?? '', window: texts.get(chunk.id) ?? NO_TEXT });
    }
    return out;
  }

  /** Chunks' ranges remembered, and the stretches read kept by document (a read covers the chunk's range clipped to the text: one shorter ends at the text's end). */
  private learn(chunks: Iterable<ChunkRow>, read: Map<number, TextWindow>, texts: Map<number, TextWindow>): void {
    if (this.ranges.size > MAX_RANGES) this.ranges.clear();
    for (const c of chunks) {
      this.ranges.set(c.id, { documentId: c.documentId, charStart: c.charStart, charEnd: c.charEnd });
      const w = read.get(c.id);
      if (!w) continue;
      texts.set(c.id, w);
      this.texts.put(c.documentId, { ...w, toEnd: w.start + w.text.length < c.charEnd + 1 });
    }
  }

  private at(generation: number): void {
    if (generation === this.generation) return;
    this.generation = generation;
    this.texts.clear();
    this.ranges.clear();
    this.names = new Map();
  }
}
