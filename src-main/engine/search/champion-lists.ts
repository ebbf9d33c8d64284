// Champion lists (Manning, Raghavan & Schütze, "Introduction to Information Retrieval" §7.1.3) for
// keyword steps over common words, exact: the same rows, order and scores as the step's statement.
//
// A step over words in a fifth of the index (an AND of "return" and "value", 109,520 of 904,714
// chunks at 100,000 documents) costs 40–110 ms, because both backends walk and score every row that
// matches before taking the best 60. BM25 is a sum of one part per word, each depending only on that
// word's frequency in the row and the row's length; so each common word's best rows alone (its
// "list": the word's own step, through the same storage statement, cut at LIST_ROWS) bound what any
// row can score. For an AND step: a row in every list has its exact score (the parts summed in the
// query's order, as FTS5 and PostgreSQL sum them); a row missing from a word's list has at most that
// list's last part for the word. When the page's last exact score is above everything a row outside
// the exact set could reach, the page is the statement's page; otherwise the step runs as before.
// A list is kept per index generation (the term counts and totals it was scored with are part of
// its key) and is made only for a word seen in an earlier step of the same generation, so an index
// that changes under every search never pays for lists it does not reuse.
import type { ResolvedFilters } from '../store/filters.js';
import type { KeywordCandidate, KeywordCounts, KeywordStep, PlannedKeywordTerm } from '../store/storage.js';

/** Below this many rows a word's step is a millisecond or two: the statement serves it. */
export const COMMON_DF = 20_000;
/**
 * Rows kept per word: deep enough that two common words' bounds usually fall below a page's bar
 * (at 100k documents 4,096 settled 16 of 29 such steps of the 500 questions, 16,384 49 of 60, 65,536 50).
 */
export const LIST_ROWS = 16_384;
/**
 * Words whose lists are kept at once (each ~600 KB at LIST_ROWS: at most ~38 MB). The 500
 * bench:scale questions have 52 common words; fewer lists than that made them again every round.
 */
const MAX_LISTS = 64;
/** Words remembered as seen in this generation (a list is made on the second sight). */
const MAX_SEEN = 4_096;

/** One word's best rows by its BM25 part alone, best first (ties by chunk id, as the statement orders), in flat arrays. */
export class TermList {
  readonly length: number;
  readonly chunk: Float64Array;
  readonly doc: Float64Array;
  /** The word's BM25 part in each row. */
  readonly part: Float64Array;
  /** Every row holding the word is listed. */
  readonly complete: boolean;
  /** The best part in the list, and the least: no unlisted row's part is above `floor` (0 when complete). */
  readonly top: number;
  readonly floor: number;
  /** Chunk ids ascending, and where each is in the lists above: a lookup is a binary search. */
  private readonly ids: Float64Array;
  private readonly at: Int32Array;

  constructor(rows: readonly KeywordCandidate[], cut: number) {
    const n = (this.length = rows.length);
    this.chunk = new Float64Array(n);
    this.doc = new Float64Array(n);
    this.part = new Float64Array(n);
    rows.forEach((r, i) => {
      this.chunk[i] = r.chunkId;
      this.doc[i] = r.documentId;
      this.part[i] = -r.rank;
    });
    this.complete = n < cut;
    this.top = n ? this.part[0]! : 0;
    this.floor = this.complete ? 0 : this.part[n - 1]!;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.chunk[a]! - this.chunk[b]!);
    this.at = Int32Array.from(order);
    this.ids = Float64Array.from(order, (i) => this.chunk[i]!);
  }

  /** The word's part in the row, or undefined when the row is not listed. */
  partOf(chunkId: number): number | undefined {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const id = this.ids[mid]!;
      if (id === chunkId) return this.part[this.at[mid]!];
      if (id < chunkId) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
}

/** Runs one step's statement (KeywordIndexRepository.candidates without filters). */
export type StepRunner = (step: KeywordStep, limit: number) => Promise<KeywordCandidate[]>;

export interface ChampionOptions {
  /** A word with fewer rows is left to the statement (COMMON_DF). */
  commonDf: number;
  /** Rows kept per word (LIST_ROWS). */
  listRows: number;
}

export class ChampionLists {
  private generation = -1;
  private readonly lists = new Map<string, Promise<TermList>>();
  private readonly seen = new Set<string>();
  /** Steps whose bounds did not hold this generation: they go to the statement directly. */
  private readonly failed = new Set<string>();

  constructor(private readonly opts: ChampionOptions = { commonDf: COMMON_DF, listRows: LIST_ROWS }) {}

  /** Forget everything (a page's chunk went missing: the index changed without a new generation). */
  clear(): void {
    this.lists.clear();
    this.seen.clear();
    this.failed.clear();
  }

  /**
   * The statement's best `limit` rows for the step, from the lists; null when the step is not one
   * they serve (filters, an OR of several words, a prefix or an expression, a rare word) or the
   * bounds do not settle the page — then the caller runs the statement.
   */
  async top(step: KeywordStep, filters: ResolvedFilters, limit: number, counts: KeywordCounts, generation: number, run: StepRunner): Promise<KeywordCandidate[] | null> {
    if (generation !== this.generation) {
      this.generation = generation;
      this.clear();
    }
    if (!servable(step, filters, this.opts.commonDf)) return null;
    const keys = step.terms.map((t) => listKey(t, counts));
    const stepKey = `${step.op}|${limit}|${keys.join('\n')}`;
    if (this.failed.has(stepKey)) return null;
    // a list for a word seen before in this generation; a step waits for none it would make on first sight
    const fresh = keys.filter((k) => !this.lists.has(k) && !this.seen.has(k));
    for (const k of fresh) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(k);
    }
    if (fresh.length) return null;
    const lists = await Promise.all(step.terms.map((t, i) => this.list(keys[i]!, t, run)));
    const page = exactTop(lists, limit);
    if (!page) this.failed.add(stepKey);
    return page;
  }

  private list(key: string, term: PlannedKeywordTerm, run: StepRunner): Promise<TermList> {
    let list = this.lists.get(key);
    if (list) {
      // most recently used last: the oldest goes first when full
      this.lists.delete(key);
      this.lists.set(key, list);
      return list;
    }
    if (this.lists.size >= MAX_LISTS) this.lists.delete(this.lists.keys().next().value!);
    const cut = this.opts.listRows;
    list = run({ op: 'and', terms: [term] }, cut).then((rows) => new TermList(rows, cut));
    list.catch(() => this.lists.get(key) === list && this.lists.delete(key)); // a failed read is not kept
    this.lists.set(key, list);
    return list;
  }
}

/** An AND of common exact words (or one common word), unfiltered. */
function servable(step: KeywordStep, filters: ResolvedFilters, commonDf: number): boolean {
  if (step.op === 'expression' || (step.op === 'or' && step.terms.length !== 1) || !step.terms.length) return false;
  if (!unfiltered(filters)) return false;
  const words = new Set<string>();
  for (const t of step.terms) {
    if (t.prefix || t.df < commonDf || words.has(t.term)) return false;
    words.add(t.term);
  }
  return true;
}

export function unfiltered(f: ResolvedFilters): boolean {
  return (
    f.collectionIds === undefined &&
    !f.pathGlob &&
    !f.kinds?.length &&
    f.modifiedAfterMs === undefined &&
    f.modifiedBeforeMs === undefined &&
    !f.tags?.length &&
    !f.extra
  );
}

/** A word's list holds for its count and the index's totals as the step scores with them. */
function listKey(t: PlannedKeywordTerm, counts: KeywordCounts): string {
  return `${t.term}\t${t.df}\t${counts.rows}\t${counts.avgLength}`;
}

/**
 * The best `limit` rows of the AND of the lists' words, exactly as the statement ranks them, or
 * null when a row outside the lists' common rows might belong on the page. Sums run in the words'
 * order from zero, as the statement's do, and floating-point addition is monotonic, so a sum of
 * upper bounds bounds the row's computed score.
 */
export function exactTop(lists: readonly TermList[], limit: number): KeywordCandidate[] | null {
  const n = lists.length;
  const sumWith = (pick: (j: number) => number): number => {
    let s = 0;
    for (let j = 0; j < n; j++) s += pick(j);
    return s;
  };
  // the rows in every list: exact scores (a short list first: fewer lookups)
  const shortest = lists.reduce((a, l) => (l.length < a.length ? l : a));
  const exact: { chunkId: number; documentId: number; score: number }[] = [];
  const parts: (number | undefined)[] = new Array<number | undefined>(n);
  for (let r = 0; r < shortest.length; r++) {
    const chunkId = shortest.chunk[r]!;
    let all = true;
    for (let j = 0; j < n && all; j++) all = (parts[j] = lists[j]!.partOf(chunkId)) !== undefined;
    if (all) exact.push({ chunkId, documentId: shortest.doc[r]!, score: sumWith((j) => parts[j]!) });
  }
  exact.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
  const bar = exact.length >= limit ? exact[limit - 1]!.score : -Infinity;
  // a row in no list: only if every list is cut short (a row outside a complete list lacks its word)
  if (lists.every((l) => !l.complete) && sumWith((j) => lists[j]!.floor) >= bar) return null;
  // a row in some lists, not all: its listed parts and the floors of the lists (cut short) it is missing from
  for (let i = 0; i < n; i++) {
    const list = lists[i]!;
    for (let r = 0; r < list.length; r++) {
      const part = list.part[r]!;
      // the lists are best first: once even the best parts elsewhere cannot lift a row to the bar, no later row can
      if (sumWith((j) => (j === i ? part : lists[j]!.top)) < bar) break;
      const chunkId = list.chunk[r]!;
      let possible = true;
      let partial = false;
      const bound = sumWith((j) => {
        const p = j === i ? part : lists[j]!.partOf(chunkId);
        if (p !== undefined) return p;
        partial = true;
        if (lists[j]!.complete) possible = false;
        return lists[j]!.floor;
      });
      if (partial && possible && bound >= bar) return null;
    }
  }
  return exact.slice(0, limit).map(({ chunkId, documentId, score }) => ({ chunkId, documentId, rank: -score }));
}
