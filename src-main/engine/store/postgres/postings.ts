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

/** One postings row, its arrays in PostgreSQL's array text form (`{0,3,7}`), offsets ascending. */
export interface PostingsRow {
  term: string;
  /** The base: each posting's chunk id is lo + its offset (the row's smallest chunk id). */
  lo: number;
  /** The row's largest chunk id. */
  hi: number;
  n: number;
  d: string;
  f: string;
  len: string;
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
  const terms = [...b.byTerm.keys()].sort(byBytes);
  for (const term of terms) {
    const list = b.byTerm.get(term)!;
    let i = 0;
    while (i < list.length) {
      const run = runOf(list[i]!);
      const lo = b.ids[list[i]!]!;
      let d = '';
      let f = '';
      let len = '';
      let n = 0;
      let last = lo;
      for (; i < list.length && runOf(list[i]!) === run; i += 2, n++) {
        const k = list[i]!;
        last = b.ids[k]!;
        const sep = n ? ',' : '';
        d += sep + (last - lo);
        f += sep + list[i + 1]!;
        len += sep + b.lens[k]!;
      }
      yield { term, lo, hi: last, n, d: `{${d}}`, f: `{${f}}`, len: `{${len}}` };
    }
  }
}

/** Compares as the column's COLLATE "C" does (UTF-8 bytes): code points, not UTF-16 units. */
function byBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

/** Postings rows in COPY's text format, in parts of ~1 MB. */
export function* postingsText(rows: Iterable<PostingsRow>): Generator<string> {
  let part = '';
  for (const r of rows) {
    part += `${copyText(r.term)}\t${r.lo}\t${r.hi}\t${r.n}\t${r.d}\t${r.f}\t${r.len}\n`;
    if (part.length >= COPY_PART_CHARS) {
      yield part;
      part = '';
    }
  }
  if (part) yield part;
}

/** The columns postingsText writes, in its order. */
export const POSTINGS_COLUMNS = ['term', 'lo', 'hi', 'n', 'd', 'f', 'len'] as const;
