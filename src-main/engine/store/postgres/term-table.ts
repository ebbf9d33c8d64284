// The PostgreSQL keyword index's terms as small integers. Each distinct lower-case word of the
// indexed text is turned into its index terms once (text/terms.ts: folded, stemmed, CJK bigrams),
// each distinct term gets an id and its UTF-8 bytes, and a chunk's terms are counted in scratch
// arrays indexed by id. Its tsvector is written in PostgreSQL's binary form (tsvectorsend's, what
// COPY … (FORMAT binary) reads: the server parsing tsvector text was ~0.2 s of an mfc run) straight
// from those bytes, and its postings are (id, f) pairs in a shared Int32Array: no map, string or
// array per term and chunk. Made as maps of strings (one map for the counts, one of position
// strings per term, a joined tsvector), the terms were the largest part of the node side's CPU
// in indexing into PostgreSQL, and their garbage most of its GC (bench/RESULTS.md, issue 28).
import { lowerCaseWords, wordIndexTerms } from '../../text/terms.js';
import { AsciiWords, FNV_START, foldChar, isAscii, WORD_CHAR } from './ascii-words.js';

/** A chunk's keyword terms: what its keyword row and its postings are written from. */
export interface KeywordDocument {
  /** The table whose ids `terms` holds. */
  table: TermTable;
  /** Distinct terms in first-occurrence order as pairs: term id, weighted frequency (Σ column weight × occurrences). */
  terms: Int32Array;
  /** Tokens over all columns: BM25's document length. */
  length: number;
  /**
   * The tsvector in binary form: int32 lexemes, then each lexeme's UTF-8 bytes, a NUL, uint16
   * positions and the positions (uint16: weight << 14 | position; weight A 3, B 2, D 0), big-endian.
   */
  tsv: Uint8Array;
}

/** One indexed column: its text and its tsvector weight (A title ×4, B headings ×2, D body ×1). */
export type WeightedColumn = readonly [text: string, weight: 'A' | 'B' | 'D'];

/** tsvector weight letter per column, and the BM25 column weight it stands for. */
export const COLUMN_WEIGHTS = { A: 4, B: 2, C: 1, D: 1 } as const;

/** PostgreSQL refuses lexemes over 2047 bytes and positions over 16383 (they are clamped). */
const MAX_LEXEME_BYTES = 2047;
const MAX_POSITION = 16383;
/** Positions left empty between columns: a phrase query never matches across them. */
const COLUMN_GAP = 64;
/** PostgreSQL keeps at most 256 positions per lexeme; the rest only count towards the length. */
const MAX_POSITIONS_PER_LEXEME = 256;
/** Words a table learns before a fresh one is started (documents keep the table they were made with). */
const MAX_WORDS = 100_000;
/** Bytes of tsvectors and ints of term pairs allocated at a time; a chunk's own slice is a view. */
const SLAB_BYTES = 1 << 18;
const SLAB_INTS = 1 << 15;

/** A position's weight bits (WordEntryPos) per column weight. */
const WEIGHT_BITS = { A: 3 << 14, B: 2 << 14, C: 1 << 14, D: 0 } as const;

export class TermTable {
  /** id → term. */
  readonly terms: string[] = [];
  private readonly idOfTerm = new Map<string, number>();
  /** word → its term's id, or −1 − (index into wordLists) for a word of several terms (a CJK run). */
  private readonly idOfWord = new Map<string, number>();
  private readonly wordLists: number[][] = [];
  // The scratch is sized for a corpus's vocabulary (~20,000 terms for mfc) from the start: a typed
  // array field replaced as it grows deoptimises the code that reads it, and a first run paid ~0.1 s
  // of CPU for that (the arrays take ~1 MB).
  /** The terms' UTF-8 bytes, end to end: id's at utf8[utf8Start[id] .. utf8Start[id + 1]). */
  private utf8 = new Uint8Array(1 << 18);
  private utf8Start = new Int32Array(1 << 15);
  /** id → 1 for a term no tsvector may hold (over 2047 bytes): it counts only towards the length. */
  private tooLong = new Uint8Array(1 << 15);
  /** id → 1 for a term COPY's text format would have to escape (backslash, tab, newline, CR). */
  private needsEscape = new Uint8Array(1 << 15);
  /** Scratch by id: the set a pass last saw it in (stamp) and its place in that pass (slot). */
  private stamp = new Int32Array(1 << 15);
  private slot = new Int32Array(1 << 15);
  private serial = 0;
  private readonly ascii = new AsciiWords();
  // the document being made: its pass, counts and position
  private pass = 0;
  private distinct = 0;
  private kept = 0;
  private position = 0;
  private length = 0;
  // one chunk's scratch: its distinct terms (id, f, positions kept, first and last position's token)…
  private dId = new Int32Array(1 << 10);
  private dF = new Int32Array(1 << 10);
  private dKept = new Int32Array(1 << 10);
  private dHead = new Int32Array(1 << 10);
  private dTail = new Int32Array(1 << 10);
  // …and its kept positions (WordEntryPos: weight bits | position), chained per term
  private tPos = new Int32Array(1 << 12);
  private tNext = new Int32Array(1 << 12);
  private bytes = Buffer.allocUnsafe(SLAB_BYTES);
  private bytesUsed = 0;
  private ints = new Int32Array(SLAB_INTS);
  private intsUsed = 0;

  get full(): boolean {
    return this.idOfWord.size >= MAX_WORDS;
  }

  /** A term's id, added when new. */
  intern(term: string): number {
    let id = this.idOfTerm.get(term);
    if (id !== undefined) return id;
    id = this.terms.length;
    this.terms.push(term);
    this.idOfTerm.set(term, id);
    if (id + 1 >= this.utf8Start.length) this.growIds();
    const bytes = Buffer.from(term);
    const at = this.utf8Start[id]!;
    if (at + bytes.length > this.utf8.length) this.utf8 = grow(this.utf8, at + bytes.length);
    this.utf8.set(bytes, at);
    this.utf8Start[id + 1] = at + bytes.length;
    this.tooLong[id] = bytes.length > MAX_LEXEME_BYTES ? 1 : 0;
    this.needsEscape[id] = /[\\\n\r\t]/.test(term) ? 1 : 0;
    return id;
  }

  /** A term's UTF-8 bytes when COPY's text format takes them as they are, else null. */
  plainTerm(id: number): Uint8Array | null {
    return this.needsEscape[id] ? null : this.utf8.subarray(this.utf8Start[id]!, this.utf8Start[id + 1]!);
  }

  /** Begins a pass over a set of ids (stamp/slot): returns its serial. */
  beginPass(): number {
    if (++this.serial === 0x7fffffff) {
      this.stamp.fill(0);
      this.serial = 1;
    }
    return this.serial;
  }

  /** Where `id` was put in pass `serial`, or −1 when it has not been seen in it. */
  slotIn(serial: number, id: number): number {
    return this.stamp[id] === serial ? this.slot[id]! : -1;
  }

  setSlot(serial: number, id: number, slot: number): void {
    this.stamp[id] = serial;
    this.slot[id] = slot;
  }

  /** One chunk's columns as a keyword document. */
  document(columns: readonly WeightedColumn[]): KeywordDocument {
    this.pass = this.beginPass();
    this.distinct = this.kept = this.position = this.length = 0;
    for (const [text, weight] of columns) {
      if (!text) continue;
      const f = COLUMN_WEIGHTS[weight];
      const code = WEIGHT_BITS[weight];
      if (isAscii(text)) {
        // the words found where they stand (ascii-words.ts): no lower-case copy, no word strings
        const n = text.length;
        let i = 0;
        while (i < n) {
          let c = text.charCodeAt(i);
          if (!WORD_CHAR[c]) {
            i++;
            continue;
          }
          const start = i;
          let h = FNV_START;
          do {
            h = foldChar(h, c);
            c = ++i < n ? text.charCodeAt(i) : 0;
          } while (i < n && WORD_CHAR[c]);
          let v = this.ascii.get(text, start, i, h);
          if (v === undefined) {
            const raw = text.slice(start, i).toLowerCase();
            v = this.idOfWord.get(raw) ?? this.learn(raw);
            this.ascii.add(raw, h, v);
          }
          this.take(v, f, code);
        }
      } else {
        const words = lowerCaseWords(text);
        for (let w = 0; w < words.length; w++) this.take(this.idOfWord.get(words[w]!) ?? this.learn(words[w]!), f, code);
      }
      this.position = Math.min(MAX_POSITION, this.position + COLUMN_GAP);
    }
    const { distinct, kept } = this;
    return { table: this, terms: this.pairs(distinct), length: this.length, tsv: this.tsvector(distinct, kept) };
  }

  /** One word's tokens (its value in idOfWord) at the next positions, weighted f, with weight bits `code`. */
  private take(v: number, f: number, code: number): void {
    const list = v >= 0 ? null : this.wordLists[-1 - v]!;
    const n = list ? list.length : 1;
    for (let j = 0; j < n; j++) {
      const id = list ? list[j]! : v;
      this.length++;
      this.position = this.position < MAX_POSITION ? this.position + 1 : MAX_POSITION;
      if (this.tooLong[id]) continue;
      let d: number;
      if (this.stamp[id] === this.pass) d = this.slot[id]!;
      else {
        if (this.distinct === this.dId.length) this.growDistinct();
        d = this.distinct++;
        this.stamp[id] = this.pass;
        this.slot[id] = d;
        this.dId[d] = id;
        this.dF[d] = 0;
        this.dKept[d] = 0;
        this.dHead[d] = -1;
      }
      this.dF[d]! += f;
      if (this.dHead[d]! >= 0 && (this.tPos[this.dTail[d]!]! & 0x3fff) === this.position) {
        // past the last position PostgreSQL keeps, the positions are one: it keeps the highest weight
        const t = this.dTail[d]!;
        if (code > (this.tPos[t]! & 0xc000)) this.tPos[t] = code | this.position;
      } else if (this.dKept[d]! < MAX_POSITIONS_PER_LEXEME) {
        const t = this.kept++;
        if (t === this.tPos.length) this.growKept();
        this.dKept[d]!++;
        this.tPos[t] = code | this.position;
        this.tNext[t] = -1;
        if (this.dHead[d]! < 0) this.dHead[d] = t;
        else this.tNext[this.dTail[d]!] = t;
        this.dTail[d] = t;
      }
    }
  }

  /** A new word's terms (and the ids of new terms). */
  private learn(raw: string): number {
    const ids = wordIndexTerms(raw).map((t) => this.intern(t));
    const v = ids.length === 1 ? ids[0]! : -1 - (this.wordLists.push(ids) - 1);
    this.idOfWord.set(raw, v);
    return v;
  }

  private pairs(distinct: number): Int32Array {
    if (this.intsUsed + 2 * distinct > this.ints.length) {
      this.ints = new Int32Array(Math.max(SLAB_INTS, 2 * distinct));
      this.intsUsed = 0;
    }
    const out = this.ints.subarray(this.intsUsed, (this.intsUsed += 2 * distinct));
    for (let d = 0; d < distinct; d++) {
      out[2 * d] = this.dId[d]!;
      out[2 * d + 1] = this.dF[d]!;
    }
    return out;
  }

  /** The chunk's tsvector in binary form (KeywordDocument.tsv). */
  private tsvector(distinct: number, kept: number): Uint8Array {
    let bound = 4 + kept * 2;
    for (let d = 0; d < distinct; d++) bound += this.utf8Start[this.dId[d]! + 1]! - this.utf8Start[this.dId[d]!]! + 3;
    if (this.bytesUsed + bound > this.bytes.length) {
      this.bytes = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bound));
      this.bytesUsed = 0;
    }
    const out = this.bytes;
    const start = this.bytesUsed;
    out.writeInt32BE(distinct, start);
    let p = start + 4;
    for (let d = 0; d < distinct; d++) {
      const id = this.dId[d]!;
      for (let i = this.utf8Start[id]!, e = this.utf8Start[id + 1]!; i < e; i++) out[p++] = this.utf8[i]!;
      out[p++] = 0;
      const count = p;
      p += 2;
      let n = 0;
      for (let t = this.dHead[d]!; t >= 0; t = this.tNext[t]!, n++) {
        const v = this.tPos[t]!;
        out[p++] = v >> 8;
        out[p++] = v & 0xff;
      }
      out[count] = n >> 8;
      out[count + 1] = n & 0xff;
    }
    this.bytesUsed = p;
    return out.subarray(start, p);
  }

  private growIds(): void {
    const n = this.utf8Start.length * 2;
    this.utf8Start = grow(this.utf8Start, n);
    this.tooLong = grow(this.tooLong, n);
    this.needsEscape = grow(this.needsEscape, n);
    this.stamp = grow(this.stamp, n);
    this.slot = grow(this.slot, n);
  }

  private growDistinct(): void {
    const n = this.dId.length * 2;
    [this.dId, this.dF, this.dKept, this.dHead, this.dTail] = [grow(this.dId, n), grow(this.dF, n), grow(this.dKept, n), grow(this.dHead, n), grow(this.dTail, n)];
  }

  private growKept(): void {
    const n = this.tPos.length * 2;
    [this.tPos, this.tNext] = [grow(this.tPos, n), grow(this.tNext, n)];
  }
}

/** A non-negative integer's ASCII digits at `p`; returns the position after them. */
export function writeDigits(out: Uint8Array, p: number, v: number): number {
  let digits = 1;
  for (let x = v; x >= 10; x = (x / 10) | 0) digits++;
  let q = p + digits;
  let x = v;
  do {
    const next = (x / 10) | 0;
    out[--q] = 48 + x - next * 10;
    x = next;
  } while (x);
  return p + digits;
}

/** A binary tsvector (KeywordDocument.tsv) as its text literal (`'term':1A,7A 'other':3`), for the few rows written by INSERT. */
export function tsvectorText(tsv: Uint8Array): string {
  const b = Buffer.from(tsv.buffer, tsv.byteOffset, tsv.byteLength);
  const parts: string[] = [];
  let p = 4;
  for (let n = b.readInt32BE(0); n > 0; n--) {
    const end = b.indexOf(0, p);
    const term = b.toString('utf8', p, end);
    p = end + 1;
    const positions: string[] = [];
    for (let k = b.readUInt16BE(p), i = 0; i < k; i++) {
      const v = b.readUInt16BE(p + 2 + 2 * i);
      positions.push(`${v & 0x3fff}${WEIGHT_LETTER[v >> 14]}`);
    }
    p += 2 + 2 * positions.length;
    parts.push(`${lexeme(term)}:${positions.join(',')}`);
  }
  return parts.join(' ');
}

const WEIGHT_LETTER = ['', 'C', 'B', 'A'];

/** A quoted lexeme for a tsvector or tsquery literal (quotes doubled, backslashes escaped). */
export function lexeme(term: string): string {
  if (!/[\\']/.test(term)) return `'${term}'`;
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function grow<T extends Int32Array | Uint8Array>(a: T, atLeast: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(atLeast, a.length * 2));
  b.set(a);
  return b;
}

let current: TermTable | null = null;

/** The table new documents are made with (made when first needed; a fresh one once it has learned MAX_WORDS words). */
export function termTable(): TermTable {
  if (!current || current.full) current = new TermTable();
  return current;
}
