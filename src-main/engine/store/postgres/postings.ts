// The PostgreSQL keyword index's postings as rows of `<index>_postings`: one row per term per
// written run of chunks, its postings as parallel arrays (chunk id − lo, weighted frequency, the
// chunk's length), instead of one row and one B-tree entry per (term, chunk). A batch of 64 mfc
// files has ~36,000 postings but ~4,400 distinct terms: keyed per posting, the B-tree inserts
// were the largest part of the server's work in writing a batch (bench/RESULTS.md, issue 28).
// Ranking unnests a term's few rows; the AND step's intersection joins them (keyword-index.ts);
// a statement-level trigger takes a deleted keyword row's chunks out of the arrays
// (migrations.ts).
import { COPY_PART_CHARS, copyText } from './copy-rows.js';
import type { KeywordRow } from './keyword-index.js';

/**
 * The most chunks one row's run covers: a common term's row is then at most this many postings,
 * all of which an AND step's probe unnests (a batch of 64 files has ~1,150 chunks: one run).
 */
export const MAX_RUN_CHUNKS = 2048;
/** Offsets are int4: a run spans fewer chunk ids than this (a batch's span a few thousand). */
const MAX_RUN_SPAN = 2 ** 31 - 1;

/** One postings row: a term's postings list[from..to) (pairs of position in the batch's ids and f), ascending. */
export interface PostingsRow {
  term: string;
  /** The base: each posting's chunk id is lo + its offset (the row's smallest chunk id). */
  lo: number;
  /** The row's largest chunk id. */
  hi: number;
  n: number;
  list: readonly number[];
  from: number;
  to: number;
}

/** The chunks' keyword rows in chunk-id order with their postings grouped by term, and how many postings. */
export interface BatchPostings {
  ids: number[];
  lens: number[];
  tsvs: string[];
  /** Per term, the chunks holding it as (position in ids, f) pairs, positions ascending. */
  byTerm: Map<string, number[]>;
  count: number;
}

export function batchPostings(rows: readonly KeywordRow[]): BatchPostings {
  const sorted = rows.every((r, i) => i === 0 || rows[i - 1]!.id < r.id) ? rows : [...rows].sort((a, b) => a.id - b.id);
  const ids: number[] = [];
  const lens: number[] = [];
  const tsvs: string[] = [];
  const byTerm = new Map<string, number[]>();
  let count = 0;
  for (const { id, doc } of sorted) {
    const k = ids.length;
    ids.push(id);
    tsvs.push(doc.tsvector);
    lens.push(doc.length);
    for (const [term, f] of doc.terms) {
      const list = byTerm.get(term);
      if (list) list.push(k, f);
      else byTerm.set(term, [k, f]);
    }
    count += doc.terms.size;
  }
  return { ids, lens, tsvs, byTerm, count };
}

/** Where each run of chunks starts (positions in ids): a new run every MAX_RUN_CHUNKS chunks or before the span would overflow an offset. */
function runStarts(ids: readonly number[]): number[] {
  const starts = [0];
  for (let k = 1; k < ids.length; k++) {
    const s = starts[starts.length - 1]!;
    if (k - s >= MAX_RUN_CHUNKS || ids[k]! - ids[s]! >= MAX_RUN_SPAN) starts.push(k);
  }
  return starts;
}

/** The batch's postings rows, term by term (byte order: the index's order), each term's runs in chunk order. */
export function* postingsRows(b: BatchPostings): Generator<PostingsRow> {
  const starts = runStarts(b.ids);
  const runOf = (k: number): number => {
    if (starts.length === 1) return 0;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= k) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  // in the index's order, near enough (UTF-16 order differs from the bytes' only past U+FFFF): the rows fill its pages in turn
  const terms = [...b.byTerm.keys()].sort();
  for (const term of terms) {
    const list = b.byTerm.get(term)!;
    let i = 0;
    while (i < list.length) {
      const from = i;
      const run = runOf(list[i]!);
      for (i += 2; i < list.length && runOf(list[i]!) === run; i += 2);
      yield { term, lo: b.ids[list[from]!]!, hi: b.ids[list[i - 2]!]!, n: (i - from) / 2, list, from, to: i };
    }
  }
}

/** A row's arrays in PostgreSQL's array text form (`{0,3,7}`): the few rows a memory entry writes, by INSERT. */
export function rowArrays(b: BatchPostings, r: PostingsRow): { d: string; f: string; len: string } {
  const d: number[] = [];
  const f: number[] = [];
  const len: number[] = [];
  for (let i = r.from; i < r.to; i += 2) {
    d.push(b.ids[r.list[i]!]! - r.lo);
    f.push(r.list[i + 1]!);
    len.push(b.lens[r.list[i]!]!);
  }
  return { d: `{${d.join(',')}}`, f: `{${f.join(',')}}`, len: `{${len.join(',')}}` };
}

/**
 * Postings rows in COPY's text format, written as bytes into buffers of ~1 MB: a batch has ~100
 * thousand numbers to write, and as strings (a piece per number, joined) they were most of this
 * step's time and garbage.
 */
export function* postingsCopy(b: BatchPostings, rows: Iterable<PostingsRow>): Generator<Buffer> {
  let out = new CopyBuffer(COPY_PART_CHARS);
  for (const r of rows) {
    const term = copyText(r.term);
    const need = term.length * 3 + 4 * 21 + r.n * 3 * 12 + 8;
    if (out.pos + need > out.buf.length) {
      if (out.pos) yield out.take();
      out = new CopyBuffer(Math.max(COPY_PART_CHARS, need));
    }
    out.text(term);
    out.byte(TAB);
    out.number(r.lo);
    out.byte(TAB);
    out.number(r.hi);
    out.byte(TAB);
    out.number(r.n);
    out.byte(TAB);
    for (let col = 0; col < 3; col++) {
      out.byte(OPEN);
      for (let i = r.from; i < r.to; i += 2) {
        if (i > r.from) out.byte(COMMA);
        const k = r.list[i]!;
        out.number(col === 0 ? b.ids[k]! - r.lo : col === 1 ? r.list[i + 1]! : b.lens[k]!);
      }
      out.byte(CLOSE);
      out.byte(col < 2 ? TAB : NEWLINE);
    }
  }
  if (out.pos) yield out.take();
}

const [TAB, NEWLINE, OPEN, CLOSE, COMMA] = [9, 10, 123, 125, 44];

/** A buffer filled byte by byte: numbers as ASCII digits, text as UTF-8. */
class CopyBuffer {
  readonly buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  byte(c: number): void {
    this.buf[this.pos++] = c;
  }

  text(s: string): void {
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** A non-negative integer's digits (anything else as JavaScript prints it, which COPY reads alike). */
  number(v: number): void {
    if (!(v >= 0 && v <= 0x7fffffff && (v | 0) === v)) {
      this.text(String(v));
      return;
    }
    let digits = 1;
    for (let x = v; x >= 10; x = (x / 10) | 0) digits++;
    let p = this.pos + digits;
    let x = v;
    do {
      const q = (x / 10) | 0;
      this.buf[--p] = 48 + x - q * 10;
      x = q;
    } while (x);
    this.pos += digits;
  }

  take(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** The columns postingsCopy writes, in its order. */
export const POSTINGS_COLUMNS = ['term', 'lo', 'hi', 'n', 'd', 'f', 'len'] as const;
