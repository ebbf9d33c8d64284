// The PostgreSQL keyword index's terms as small integers. Each distinct lower-case word of the
// indexed text is turned into its index terms once (text/terms.ts: folded, stemmed, CJK bigrams),
// each distinct term gets an id and its tsvector literal (`'term'`) as UTF-8 bytes, and a chunk's
// terms are counted in scratch arrays indexed by id. Its tsvector is written as bytes straight
// from those literals, and its postings are (id, f) pairs in a shared Int32Array: no map, string
// or array per term and chunk. Made as maps of strings (one map for the counts, one of position
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
  /** The tsvector literal as UTF-8 bytes (`'term':1A,7A 'other':3`). */
  tsv: Uint8Array;
  /** A lexeme of it holds a character COPY's text format escapes (backslash, tab, newline, CR): write it escaped. */
  escape: boolean;
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

const [COLON, COMMA, SPACE, LETTER_A, LETTER_B] = [58, 44, 32, 65, 66];

export class TermTable {
  /** id → term. */
  readonly terms: string[] = [];
  private readonly idOfTerm = new Map<string, number>();
  /** word → its term's id, or −1 − (index into wordLists) for a word of several terms (a CJK run). */
  private readonly idOfWord = new Map<string, number>();
  private readonly wordLists: number[][] = [];
  /** The terms' tsvector literals, end to end: id's at literal[litStart[id] .. litStart[id + 1]). */
  private literal = new Uint8Array(1 << 16);
  private litStart = new Int32Array(1 << 12);
  /** id → 1 for a term no tsvector may hold (over 2047 bytes): it counts only towards the length. */
  private tooLong = new Uint8Array(1 << 12);
  /** id → 1 for a term whose literal COPY would have to escape. */
  private needsEscape = new Uint8Array(1 << 12);
  /** Scratch by id: the set a pass last saw it in (stamp) and its place in that pass (slot). */
  private stamp = new Int32Array(1 << 12);
  private slot = new Int32Array(1 << 12);
  private serial = 0;
  private readonly ascii = new AsciiWords();
  // the document being made: its pass, counts and position
  private pass = 0;
  private distinct = 0;
  private kept = 0;
  private position = 0;
  private length = 0;
  // one chunk's scratch: its distinct terms (id, f, positions kept, first and last position's token)…
  private dId = new Int32Array(256);
  private dF = new Int32Array(256);
  private dKept = new Int32Array(256);
  private dHead = new Int32Array(256);
  private dTail = new Int32Array(256);
  // …and its kept positions (position × 4 + weight: 0 D, 1 A, 2 B), chained per term
  private tPos = new Int32Array(1024);
  private tNext = new Int32Array(1024);
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
    if (id + 1 >= this.litStart.length) this.growIds();
    const lit = Buffer.from(lexeme(term));
    const at = this.litStart[id]!;
    if (at + lit.length > this.literal.length) this.literal = grow(this.literal, at + lit.length);
    this.literal.set(lit, at);
    this.litStart[id + 1] = at + lit.length;
    this.tooLong[id] = term.length * 3 > MAX_LEXEME_BYTES && Buffer.byteLength(term) > MAX_LEXEME_BYTES ? 1 : 0;
    this.needsEscape[id] = /[\\\n\r\t]/.test(term) ? 1 : 0;
    return id;
  }

  /** A term's literal bytes without its quotes when it needed no escaping (its text as a COPY column), else null. */
  plainTerm(id: number): Uint8Array | null {
    const s = this.litStart[id]!;
    const e = this.litStart[id + 1]!;
    if (this.needsEscape[id] || e - s !== Buffer.byteLength(this.terms[id]!) + 2) return null;
    return this.literal.subarray(s + 1, e - 1);
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
      const code = weight === 'A' ? 1 : weight === 'B' ? 2 : 0;
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
    return { table: this, terms: this.pairs(distinct), length: this.length, tsv: this.tsvector(distinct, kept), escape: this.anyEscaped(distinct) };
  }

  /** One word's tokens (its value in idOfWord) at the next positions, weighted f, tsvector weight `code`. */
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
      if (this.dKept[d]! < MAX_POSITIONS_PER_LEXEME) {
        const t = this.kept++;
        if (t === this.tPos.length) this.growKept();
        this.dKept[d]!++;
        this.tPos[t] = this.position * 4 + code;
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

  /** The chunk's tsvector literal: each term's literal, `:`, its positions (digits, then A or B unless D) by commas. */
  private tsvector(distinct: number, kept: number): Uint8Array {
    let bound = kept * 8;
    for (let d = 0; d < distinct; d++) bound += this.litStart[this.dId[d]! + 1]! - this.litStart[this.dId[d]!]! + 2;
    if (this.bytesUsed + bound > this.bytes.length) {
      this.bytes = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bound));
      this.bytesUsed = 0;
    }
    const out = this.bytes;
    const start = this.bytesUsed;
    let p = start;
    for (let d = 0; d < distinct; d++) {
      if (d) out[p++] = SPACE;
      const id = this.dId[d]!;
      for (let i = this.litStart[id]!, e = this.litStart[id + 1]!; i < e; i++) out[p++] = this.literal[i]!;
      out[p++] = COLON;
      for (let t = this.dHead[d]!; t >= 0; t = this.tNext[t]!) {
        if (t !== this.dHead[d]) out[p++] = COMMA;
        const v = this.tPos[t]!;
        p = writeDigits(out, p, v >> 2);
        if (v & 3) out[p++] = (v & 3) === 1 ? LETTER_A : LETTER_B;
      }
    }
    this.bytesUsed = p;
    return out.subarray(start, p);
  }

  private anyEscaped(distinct: number): boolean {
    for (let d = 0; d < distinct; d++) if (this.needsEscape[this.dId[d]!]) return true;
    return false;
  }

  private growIds(): void {
    const n = this.litStart.length * 2;
    this.litStart = grow(this.litStart, n);
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

let current = new TermTable();

/** The table new documents are made with (a fresh one once it has learned MAX_WORDS words). */
export function termTable(): TermTable {
  if (current.full) current = new TermTable();
  return current;
}
