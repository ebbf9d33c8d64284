// A text's ASCII words looked up where they stand: each word's case-folded hash is taken while it is
// scanned and its value found in an open-addressing table of the words seen before, compared
// character by character — no lower-case copy of the text, no array of word strings, no string
// hashed twice. Most indexed text is ASCII; a column with anything else goes through the
// tokenizer's regular expression instead (term-table.ts), so both give the same words.

/** 1 for the ASCII characters that are \p{L}, \p{N} or \p{M} (text/terms.ts's WORD): letters and digits. */
export const WORD_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) WORD_CHAR[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0;

const NON_ASCII = /[^\x00-\x7f]/;

export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/** FNV-1a's step over a lower-cased ASCII character: a word's hash is this folded over its characters from FNV_START. */
export const FNV_START = 0x811c9dc5;
export function foldChar(h: number, c: number): number {
  return Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), 0x01000193);
}

/** ASCII words (lower case) → an int each. */
export class AsciiWords {
  // sized for ~30,000 words up front (grown, a replaced field deoptimises its readers: term-table.ts)
  private slots = new Int32Array(1 << 16);
  private hashes = new Int32Array(1 << 15);
  private starts = new Int32Array(1 << 15);
  private values = new Int32Array(1 << 15);
  private chars = new Uint8Array(1 << 18);
  private count = 0;

  /** The value of text[start, end) lower-cased, or undefined. */
  get(text: string, start: number, end: number, hash: number): number | undefined {
    const mask = this.slots.length - 1;
    const len = end - start;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === 0) return undefined;
      const w = e - 1;
      if (this.hashes[w] !== hash) continue;
      const from = this.starts[w]!;
      if (this.starts[w + 1]! - from !== len) continue;
      let j = 0;
      for (; j < len; j++) {
        const c = text.charCodeAt(start + j);
        if ((c >= 65 && c <= 90 ? c + 32 : c) !== this.chars[from + j]) break;
      }
      if (j === len) return this.values[w];
    }
  }

  /** Adds a word not yet in the table (`lower` is text[start, end) lower-cased). */
  add(lower: string, hash: number, value: number): void {
    if ((this.count + 1) * 2 > this.slots.length) this.rehash();
    if (this.count + 2 > this.hashes.length) {
      const n = this.hashes.length * 2;
      [this.hashes, this.starts, this.values] = [grown(this.hashes, n), grown(this.starts, n), grown(this.values, n)];
    }
    const w = this.count++;
    const from = this.starts[w]!;
    if (from + lower.length > this.chars.length) this.chars = grown(this.chars, from + lower.length);
    for (let j = 0; j < lower.length; j++) this.chars[from + j] = lower.charCodeAt(j);
    this.starts[w + 1] = from + lower.length;
    this.hashes[w] = hash;
    this.values[w] = value;
    this.place(w);
  }

  private place(w: number): void {
    const mask = this.slots.length - 1;
    let s = this.hashes[w]! & mask;
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = w + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let w = 0; w < this.count; w++) this.place(w);
  }
}

function grown<T extends Int32Array | Uint8Array>(a: T, atLeast: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(atLeast, a.length * 2));
  b.set(a);
  return b;
}
