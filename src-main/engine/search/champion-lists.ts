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
// list's last part for the word. Rows in some lists whose bound still reaches the page's last exact
// score are few: the storage scores just those (scoreChunks, the statement's own rank). When the
// page's last exact score is then above what a row in no list could reach, the page is the
// statement's page; otherwise the step runs as before.
// A list is kept per index generation (the term counts and totals it was scored with are part of
// its key) and is made only for a word seen in an earlier step of the same generation, so an index
// that changes under every search never pays for lists it does not reuse.
import type { ResolvedFilters } from '../store/filters.js';
import type { KeywordCandidate, KeywordCounts, KeywordStep, PlannedKeywordTerm } from '../store/storage.js';

/** Below this many rows a word's step is a millisecond or two: the statement serves it. */
export const COMMON_DF = 20_000;
/**
 * Rows kept per word. At 100k documents, of the 500 bench:scale questions' ~60 steps over common
 * words, lists of 2,048 rows settled 45, 4,096 48 (50 once doubtful rows were scored best bound
 * first), 8,192 49, 16,384 49; the rest are ANDs of three or more common words whose unlisted rows
 * could still reach the page. A list of 4,096 costs about 1.5–2 of the word's own steps to make,
 * one of 16,384 about 5.
 */
export const LIST_ROWS = 4_096;
/**
 * Words whose lists are kept at once (each ~150 KB at LIST_ROWS: at most ~10 MB). The 500
 * bench:scale questions have 52 common words; fewer lists than that made them again every round.
 */
const MAX_LISTS = 64;
/** Rows in some lists but not all that the storage may be asked to score for one step (~8 µs a row on SQLite); 8× as many are bounded at most. */
const MAX_DOUBTFUL = 1_024;
/** Rows in doubt scored per storage call: a first batch of the best bounds usually lifts the bar over the rest. */
const DOUBT_BATCH = 256;
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

/** The storage's statements, unfiltered: a step's best rows (candidates), and the step's rank of given rows (scoreChunks). */
export interface StepRunner {
  top(step: KeywordStep, limit: number): Promise<KeywordCandidate[]>;
  score(step: KeywordStep, chunkIds: readonly number[]): Promise<KeywordCandidate[]>;
}

export interface ChampionOptions {
  /** A word with fewer rows is left to the statement (COMMON_DF). */
  commonDf: number;
  /** Rows kept per word (LIST_ROWS). */
  listRows: number;
  /** Rows in doubt scored per storage call (DOUBT_BATCH). */
  doubtBatch?: number;
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
    // one list made per step at most (it costs about two of the word's own steps): the statement
    // answers until the step's last list is made, so no single search pays for three or four
    const missing = keys.findIndex((k) => !this.lists.has(k));
    if (missing >= 0) {
      await this.list(keys[missing]!, step.terms[missing]!, run);
      if (keys.some((k) => !this.lists.has(k))) return null;
    }
    const lists = await Promise.all(step.terms.map((t, i) => this.list(keys[i]!, t, run)));
    const bounds = listBounds(lists, limit, MAX_DOUBTFUL * 8);
    const page = bounds && (await this.settle(step, bounds, limit, run));
    if (!page) this.failed.add(stepKey);
    return page;
  }

  /**
   * The rows in doubt, best bound first, scored by the storage a batch at a time: each batch can
   * raise the page's bar, and the rows whose bound is below it need no look.
   */
  private async settle(step: KeywordStep, bounds: ListBounds, limit: number, run: StepRunner): Promise<KeywordCandidate[] | null> {
    const exact = bounds.exact;
    let bar = barOf(exact, limit);
    let next = 0;
    while (next < bounds.doubtful.length && bounds.doubtful[next]!.bound >= bar) {
      if (next >= MAX_DOUBTFUL) return null;
      const batch: number[] = [];
      for (; next < bounds.doubtful.length && bounds.doubtful[next]!.bound >= bar && batch.length < (this.opts.doubtBatch ?? DOUBT_BATCH); next++) batch.push(bounds.doubtful[next]!.chunkId);
      for (const r of await run.score(step, batch)) exact.push({ chunkId: r.chunkId, documentId: r.documentId, score: -r.rank });
      bar = barOf(exact, limit);
    }
    return pageOf(exact, limit, bounds.unseen);
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
    list = run.top({ op: 'and', terms: [term] }, cut).then((rows) => new TermList(rows, cut));
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

/** What the lists say of an AND step's best rows before any row is looked up. */
export interface ListBounds {
  /** The rows in every list, with their exact scores (unsorted). */
  exact: Scored[];
  /** Rows in some lists, not all, that might still reach the page, best bound first: to be scored by the statement. */
  doubtful: { chunkId: number; bound: number }[];
  /** The most a row in no list could score (-Infinity when a complete list rules such rows out). */
  unseen: number;
}

export interface Scored {
  chunkId: number;
  documentId: number;
  score: number;
}

/**
 * Bounds the rows of the AND of the lists' words. Sums run in the words' order from zero, as the
 * statement's do, and floating-point addition is monotonic, so a sum of upper bounds bounds the
 * row's computed score. Null when more than `maxDoubtful` rows would need looking up.
 */
export function listBounds(lists: readonly TermList[], limit: number, maxDoubtful: number): ListBounds | null {
  const n = lists.length;
  const sumWith = (pick: (j: number) => number): number => {
    let s = 0;
    for (let j = 0; j < n; j++) s += pick(j);
    return s;
  };
  // the rows in every list: exact scores (a short list first: fewer lookups)
  const shortest = lists.reduce((a, l) => (l.length < a.length ? l : a));
  const exact: Scored[] = [];
  const parts: (number | undefined)[] = new Array<number | undefined>(n);
  for (let r = 0; r < shortest.length; r++) {
    const chunkId = shortest.chunk[r]!;
    let all = true;
    for (let j = 0; j < n && all; j++) all = (parts[j] = lists[j]!.partOf(chunkId)) !== undefined;
    if (all) exact.push({ chunkId, documentId: shortest.doc[r]!, score: sumWith((j) => parts[j]!) });
  }
  const bar = barOf(exact, limit);
  // a row in no list: only if every list is cut short (a row outside a complete list lacks its word)
  const unseen = lists.every((l) => !l.complete) ? sumWith((j) => lists[j]!.floor) : -Infinity;
  // a row in some lists, not all: its listed parts and the floors of the lists (cut short) it is missing from
  const doubtful = new Map<number, number>();
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
      if (partial && possible && bound >= bar) {
        doubtful.set(chunkId, bound);
        if (doubtful.size > maxDoubtful) return null;
      }
    }
  }
  return { exact, doubtful: [...doubtful].map(([chunkId, bound]) => ({ chunkId, bound })).sort((a, b) => b.bound - a.bound), unseen };
}

/** The `limit`-th best score (ties by chunk id, as the statement orders), -Infinity when there are fewer rows; sorts `rows`. */
export function barOf(rows: Scored[], limit: number): number {
  rows.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
  return rows.length >= limit ? rows[limit - 1]!.score : -Infinity;
}

/**
 * The statement's page from the exact rows (the lists' and the doubtful rows the statement scored),
 * or null when a row in no list could still be on it.
 */
export function pageOf(exact: Scored[], limit: number, unseen: number): KeywordCandidate[] | null {
  const bar = barOf(exact, limit);
  if (unseen !== -Infinity && unseen >= bar) return null; // (no row in no list can match: fewer rows than `limit` are the page)
  return exact.slice(0, limit).map(({ chunkId, documentId, score }) => ({ chunkId, documentId, rank: -score }));
}
