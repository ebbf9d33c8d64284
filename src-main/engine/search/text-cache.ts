// The text around recently shown chunks, for snippets. A hit's snippet needs its anchor chunk's
// range of the document text; reading it costs a read of the compressed blocks it covers and their
// inflate on SQLite (~25 µs a block), a round trip's payload on PostgreSQL. Searches in a row tend
// to land on the same documents (half of the hits of bench:search's 500 questions were among the
// last 500 documents shown), so those reads are kept, bounded by size, until the index changes
// (page-anchors.ts clears it with the engine's generation).
import type { TextWindow } from '../store/storage.js';

/** Recently read texts around chunks by chunk id, most recently used last, bounded by size. */
export class DocumentTextCache {
  private chars = 0;
  private readonly texts = new Map<number, TextWindow>();
  /** Longer windows are read every time: one would push out many others. */
  private readonly maxDocumentChars: number;

  constructor(
    /** Characters kept in all (UTF-16: at most twice this in bytes). */
    private readonly maxChars: number,
    maxDocumentChars = maxChars / 16,
  ) {
    this.maxDocumentChars = maxDocumentChars;
  }

  get(id: number): TextWindow | undefined {
    const t = this.texts.get(id);
    if (t !== undefined) {
      this.texts.delete(id);
      this.texts.set(id, t);
    }
    return t;
  }

  put(id: number, window: TextWindow): void {
    if (window.text.length > this.maxDocumentChars || this.texts.has(id)) return;
    this.texts.set(id, window);
    this.chars += window.text.length;
    for (const [k, t] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(k);
      this.chars -= t.text.length;
    }
  }

  clear(): void {
    this.texts.clear();
    this.chars = 0;
  }
}
