// The PostgreSQL keyword index's postings as rows of `<index>_postings`: one row per term per
// written run of chunks, its postings as parallel arrays (chunk id − lo, weighted frequency, the
// chunk's length), instead of one row and one B-tree entry per (term, chunk). A batch of 64 mfc
// files has ~36,000 postings but ~4,400 distinct terms: keyed per posting, the B-tree inserts
// were the largest part of the server's work in writing a batch (bench/RESULTS.md, issue 28).
// Ranking unnests a term's few rows; the AND step's intersection joins them (keyword-index.ts);
// a statement-level trigger takes a deleted keyword row's chunks out of the arrays
// (migrations.ts).
import { COPY_PART_CHARS, CopyBuffer, copyText } from './copy-rows.js';
import type { KeywordRow } from './keyword-index.js';
import type { TermTable } from './term-table.js';

/**
 * The most chunks one row's run covers: a common term's row is then at most this many postings,
 * all of which an AND step's probe unnests (a batch of 64 files has ~1,150 chunks: one run).
 */
export const MAX_RUN_CHUNKS = 2048;
/** Offsets are int4: a run spans fewer chunk ids than this (a batch's span a few thousand). */
const MAX_RUN_SPAN = 2 ** 31 - 1;

/** One postings row: the batch's term `t` (index into termIds), its postings [from, to) of ks/fs, ascending. */
export interface PostingsRow {
  t: number;
  /** The base: each posting's chunk id is lo + its offset (the row's smallest chunk id). */
  lo: number;
  /** The row's largest chunk id. */
  hi: number;
  n: number;
  from: number;
  to: number;
}

/** The chunks' keyword rows in chunk-id order with their postings grouped by term, and how many postings. */
export interface BatchPostings {
  rows: readonly KeywordRow[];
  ids: number[];
  lens: number[];
  /** The table the batch's term ids are of. */
  table: TermTable;
  /** The batch's distinct terms, in term order (the index's). */
  termIds: Int32Array;
  /** Term termIds[t]'s postings are ks/fs[start[t] .. start[t + 1]): the chunk's position in ids, and f. */
  start: Int32Array;
  ks: Int32Array;
  fs: Int32Array;
  count: number;
}

export function batchPostings(unsorted: readonly KeywordRow[]): BatchPostings {
  const rows = unsorted.every((r, i) => i === 0 || unsorted[i - 1]!.id < r.id) ? unsorted : [...unsorted].sort((a, b) => a.id - b.id);
  const table = rows[0]!.doc.table;
  // a batch whose documents straddle a fresh table (termTable's bound): the others' ids in this one's
  const pairsOf = rows.map(({ doc }) => (doc.table === table ? doc.terms : remap(doc.terms, doc.table, table)));
  // the distinct terms and their postings counts (a pass over the table's scratch slots)
  const serial = table.beginPass();
  const distinctIds: number[] = [];
  const counts: number[] = [];
  let count = 0;
  for (const pairs of pairsOf) {
    for (let i = 0; i < pairs.length; i += 2) {
      const id = pairs[i]!;
      let d = table.slotIn(serial, id);
      if (d < 0) {
        d = distinctIds.push(id) - 1;
        counts.push(0);
        table.setSlot(serial, id, d);
      }
      counts[d]!++;
    }
    count += pairs.length / 2;
  }
  // in the index's order, near enough (UTF-16 order differs from the bytes' only past U+FFFF): the rows fill its pages in turn
  const terms = table.terms;
  const order = distinctIds.map((_, d) => d).sort((a, b) => (terms[distinctIds[a]!]! < terms[distinctIds[b]!]! ? -1 : 1));
  const termIds = new Int32Array(order.length);
  const start = new Int32Array(order.length + 1);
  const cursor = new Int32Array(order.length);
  order.forEach((d, t) => {
    termIds[t] = distinctIds[d]!;
    start[t + 1] = start[t]! + counts[d]!;
    table.setSlot(serial, distinctIds[d]!, t);
  });
  cursor.set(start.subarray(0, order.length));
  const ks = new Int32Array(count);
  const fs = new Int32Array(count);
  pairsOf.forEach((pairs, k) => {
    for (let i = 0; i < pairs.length; i += 2) {
      const at = cursor[table.slotIn(serial, pairs[i]!)]!++;
      ks[at] = k;
      fs[at] = pairs[i + 1]!;
    }
  });
  return { rows, ids: rows.map((r) => r.id), lens: rows.map((r) => r.doc.length), table, termIds, start, ks, fs, count };
}

/** Term pairs of one table as ids of another. */
function remap(pairs: Int32Array, from: TermTable, to: TermTable): Int32Array {
  const out = new Int32Array(pairs.length);
  for (let i = 0; i < pairs.length; i += 2) {
    out[i] = to.intern(from.terms[pairs[i]!]!);
    out[i + 1] = pairs[i + 1]!;
  }
  return out;
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

/** The batch's postings rows, term by term (the index's order), each term's runs in chunk order. */
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
  for (let t = 0; t < b.termIds.length; t++) {
    let i = b.start[t]!;
    const end = b.start[t + 1]!;
    while (i < end) {
      const from = i;
      const run = runOf(b.ks[i]!);
      for (i++; i < end && runOf(b.ks[i]!) === run; i++);
      yield { t, lo: b.ids[b.ks[from]!]!, hi: b.ids[b.ks[i - 1]!]!, n: i - from, from, to: i };
    }
  }
}

/** A row's term, and its arrays in PostgreSQL's array text form (`{0,3,7}`): the few rows a memory entry writes, by INSERT. */
export function rowArrays(b: BatchPostings, r: PostingsRow): { term: string; d: string; f: string; len: string } {
  const d: number[] = [];
  const f: number[] = [];
  const len: number[] = [];
  for (let i = r.from; i < r.to; i++) {
    d.push(b.ids[b.ks[i]!]! - r.lo);
    f.push(b.fs[i]!);
    len.push(b.lens[b.ks[i]!]!);
  }
  return { term: b.table.terms[b.termIds[r.t]!]!, d: `{${d.join(',')}}`, f: `{${f.join(',')}}`, len: `{${len.join(',')}}` };
}

/**
 * Postings rows in COPY's text format, written as bytes into buffers of ~1 MB: a batch has ~100
 * thousand numbers to write, and as strings (a piece per number, joined) they were most of this
 * step's time and garbage.
 */
export function* postingsCopy(b: BatchPostings, rows: Iterable<PostingsRow>): Generator<Buffer> {
  let out = new CopyBuffer(COPY_PART_CHARS);
  for (const r of rows) {
    const id = b.termIds[r.t]!;
    const plain = b.table.plainTerm(id);
    const term = plain ?? Buffer.from(copyText(b.table.terms[id]!));
    const need = term.length + 4 * 21 + r.n * 3 * 12 + 8;
    if (out.pos + need > out.buf.length) {
      if (out.pos) yield out.take();
      out = new CopyBuffer(Math.max(COPY_PART_CHARS, need));
    }
    out.bytes(term);
    out.byte(TAB);
    out.number(r.lo);
    out.byte(TAB);
    out.number(r.hi);
    out.byte(TAB);
    out.number(r.n);
    out.byte(TAB);
    for (let col = 0; col < 3; col++) {
      out.byte(OPEN);
      for (let i = r.from; i < r.to; i++) {
        if (i > r.from) out.byte(COMMA);
        const k = b.ks[i]!;
        out.number(col === 0 ? b.ids[k]! - r.lo : col === 1 ? b.fs[i]! : b.lens[k]!);
      }
      out.byte(CLOSE);
      out.byte(col < 2 ? TAB : NEWLINE);
    }
  }
  if (out.pos) yield out.take();
}

/**
 * The chunks' keyword rows (chunk_id, tsv, len) in COPY's binary format: the tsvectors copied as
 * they were made (term-table.ts), so the server does not parse them.
 */
export function* keywordRowsCopy(b: BatchPostings): Generator<Buffer> {
  let out = Buffer.allocUnsafe(COPY_PART_CHARS);
  let p = BINARY_HEADER.copy(out, 0);
  for (let k = 0; k < b.rows.length; k++) {
    const tsv = b.rows[k]!.doc.tsv;
    const need = 2 + 4 + 8 + 4 + tsv.length + 4 + 4 + 2;
    if (p + need > out.length) {
      yield out.subarray(0, p);
      out = Buffer.allocUnsafe(Math.max(COPY_PART_CHARS, need));
      p = 0;
    }
    p = out.writeInt16BE(3, p);
    p = out.writeInt32BE(8, p);
    p = out.writeBigInt64BE(BigInt(b.ids[k]!), p);
    p = out.writeInt32BE(tsv.length, p);
    out.set(tsv, p);
    p += tsv.length;
    p = out.writeInt32BE(4, p);
    p = out.writeInt32BE(b.lens[k]!, p);
  }
  p = out.writeInt16BE(-1, p);
  yield out.subarray(0, p);
}

/** COPY's binary signature, no flags, no header extension. */
const BINARY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);

const [TAB, NEWLINE, OPEN, CLOSE, COMMA] = [9, 10, 123, 125, 44];

/** The columns postingsCopy writes, in its order. */
export const POSTINGS_COLUMNS = ['term', 'lo', 'hi', 'n', 'd', 'f', 'len'] as const;
