// The text of recently shown documents, for snippets. A hit's snippet needs its anchor chunk's
// range of the document text, but SQLite reads the whole value (31 KB on average in cpp-docs,
// with its overflow pages): ~30 µs a hit, a sixth of a keyword search. Searches in a row tend
// to land on the same documents (half of the hits of bench:search's 500 questions were among
// the last 500 documents shown), so those reads are kept, bounded by size, until the index
// changes (the engine's generation).
export class DocumentTextCache {
  private generation = -1;
  private chars = 0;
  private readonly texts = new Map<number, string>();

  constructor(
    private readonly read: (documentId: number) => string | undefined,
    /** Characters kept in all (UTF-16: at most twice this in bytes). */
    private readonly maxChars = 4_000_000,
    /** Longer documents are read every time: one would push out many others. */
    private readonly maxDocumentChars = maxChars / 16,
  ) {}

  get(documentId: number, generation: number): string | undefined {
    if (generation !== this.generation) {
      this.texts.clear();
      this.chars = 0;
      this.generation = generation;
    }
    const cached = this.texts.get(documentId);
    if (cached !== undefined) {
      this.texts.delete(documentId); // most recently used last
      this.texts.set(documentId, cached);
      return cached;
    }
    const text = this.read(documentId);
    if (text === undefined || text.length > this.maxDocumentChars) return text;
    this.texts.set(documentId, text);
    this.chars += text.length;
    for (const [id, t] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(id);
      this.chars -= t.length;
    }
    return text;
  }
}
