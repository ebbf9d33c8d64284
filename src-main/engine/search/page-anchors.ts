// The anchors of a page of hits — each hit's chunk, its document, its collection's name and (when
// snippets are cut) the text around the chunk — read in one round over the storage interface:
// three batch reads side by side. On PostgreSQL that is the difference between a page costing ~4
// round trips per hit and ~4 in all. Texts and collection names are kept until the index changes
// (the engine's generation): searches in a row tend to land on the same documents (half of the
// hits of bench:search's 500 questions were among the last 500 documents shown). Only the chunk's
// stretch of its document is read (on SQLite the compressed blocks it covers, not the whole text:
// store/content-blocks.ts).
import type { ChunkRow } from '../store/chunks.js';
import type { DocumentRow } from '../store/documents.js';
import type { Storage, TextWindow } from '../store/storage.js';
import { snippetAround, type Snippet, type TermMatcher } from './snippet.js';
import { DocumentTextCache } from './text-cache.js';

export interface PageAnchor {
  chunk: ChunkRow;
  doc: DocumentRow;
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
  return a.window.text.slice(a.chunk.charStart - a.window.start, a.chunk.charEnd - a.window.start);
}

const NO_TEXT: TextWindow = { start: 0, text: '' };

export class PageAnchors {
  private generation = -1;
  private readonly texts: DocumentTextCache;
  private names = new Map<number, string>();

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
    const chunkIds = hits.map((h) => h.chunkId);
    const [chunks, docs, texts] = await Promise.all([
      this.storage.chunks.byIds(chunkIds),
      this.storage.documents.byIds(hits.map((h) => h.documentId)),
      withText ? this.textsOf(chunkIds, fresh) : Promise.resolve(new Map<number, TextWindow>()),
    ]);
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

  /** The texts around chunks by chunk id, the recently read ones from the cache. */
  private async textsOf(chunkIds: readonly number[], fresh: boolean): Promise<Map<number, TextWindow>> {
    const out = new Map<number, TextWindow>();
    const missing: number[] = [];
    for (const id of new Set(chunkIds)) {
      const t = fresh ? undefined : this.texts.get(id);
      if (t === undefined) missing.push(id);
      else out.set(id, t);
    }
    if (missing.length) {
      for (const [id, t] of await this.storage.documents.chunkWindows(missing)) {
        this.texts.put(id, t);
        out.set(id, t);
      }
    }
    return out;
  }

  private at(generation: number): void {
    if (generation === this.generation) return;
    this.generation = generation;
    this.texts.clear();
    this.names = new Map();
  }
}
