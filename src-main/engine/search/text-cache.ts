// The text of recently shown documents, for snippets, kept by document. A hit's snippet needs its
// anchor chunk's range of the document text and a character either side; reading it costs a read
// of the compressed blocks it covers on SQLite (~45 µs a hit), a round trip's payload on
// PostgreSQL. Searches in a row tend to land on the same documents (half of the hits of
// bench:search's 500 questions were among the last 500 documents shown), and often on another
// chunk of one: so the stretches read are kept by document, and any chunk a kept stretch covers
// is served from it, bounded by size, until the index changes (page-anchors.ts clears it with the
// engine's generation).
import type { TextWindow } from '../store/storage.js';

/** A stretch of a document's text, and whether it runs to the text's end (then nothing lies past it). */
export interface CachedWindow extends TextWindow {
  toEnd: boolean;
}

/** A few stretches per document: a long document's hits land in different places. */
const WINDOWS_PER_DOCUMENT = 4;

/** Recently read stretches of documents' texts by document id, most recently used last, bounded by size. */
export class DocumentTextCache {
  private chars = 0;
  private readonly docs = new Map<number, CachedWindow[]>();
  /** Longer stretches are read every time: one would push out many others. */
  private readonly maxWindowChars: number;

  constructor(
    /** Characters kept in all (UTF-16: at most twice this in bytes). */
    private readonly maxChars: number,
    maxWindowChars = maxChars / 16,
  ) {
    this.maxWindowChars = maxWindowChars;
  }

  /** A kept stretch of the document holding [from, to) — clipped to the text where a stretch runs to its end. */
  find(id: number, from: number, to: number): TextWindow | undefined {
    const list = this.docs.get(id);
    const w = list?.find((w) => w.start <= from && (w.start + w.text.length >= to || (w.toEnd && w.start + w.text.length >= from)));
    if (w) {
      this.docs.delete(id);
      this.docs.set(id, list!);
    }
    return w;
  }

  put(id: number, window: CachedWindow): void {
    if (window.text.length > this.maxWindowChars) return;
    const list = this.docs.get(id) ?? [];
    if (list.some((w) => w.start === window.start && w.text.length === window.text.length)) return;
    this.docs.delete(id);
    list.push(window);
    this.chars += window.text.length;
    if (list.length > WINDOWS_PER_DOCUMENT) this.chars -= list.shift()!.text.length;
    this.docs.set(id, list);
    for (const [k, ws] of this.docs) {
      if (this.chars <= this.maxChars) break;
      this.docs.delete(k);
      for (const w of ws) this.chars -= w.text.length;
    }
  }

  clear(): void {
    this.docs.clear();
    this.chars = 0;
  }
}
