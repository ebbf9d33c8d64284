// Background merging of the keyword index. FTS5 stores its index as a stack of b-tree segments:
// every write transaction adds one, and automerge folds them together only in coarse steps (set
// to 8 in the schema, for bulk indexing speed). A query seeks in every segment, so right after a
// bulk load (15 segments for cpp-docs) keyword search is ~1.5x slower than on a merged index
// (measured: SQL median 2.39 → 1.60 ms). Merging everything at the end of a run would cost
// indexing ~10%, so the host merges while it is idle instead, in slices of a few milliseconds
// that searches and new batches slip between (jobs/runner.ts). Each keyword index (one per
// collection kind, store/keyword-index.ts) is merged on its own: memory_fts gets a segment per
// memory write, so an agent storing notes one by one leaves many small segments behind.
// A segment that carries a costly tombstone hash (store/fts-tombstones.ts) is rewritten too, even
// alone: a merge drops its deleted rows and their tombstones.
import type { Db } from './database.js';
import { FtsTombstones } from './fts-tombstones.js';
import { KEYWORD_INDEXES, type KeywordIndex } from './keyword-index.js';

/** Pages of merge work per slice: ~10–20 ms here, short enough not to hold up a search. */
const PAGES_PER_SLICE = 200;
/**
 * A full merge rewrites the whole index, so it only starts once the segments besides the
 * largest hold at least this share of its pages: a bulk load, not a few edited files (whose
 * small segments automerge handles). Write amplification stays bounded at ~1/share.
 */
const SMALL_SEGMENTS_SHARE = 0.25;
/**
 * Tombstone slots a row of the index walks past on average (weighted by the segments' pages) from
 * which a full rewrite is worth it: each is a comparison and a division on every row a query
 * visits. One edited long document is far past it, a few edited notes are not (bench/RESULTS.md,
 * "FTS5's tombstones").
 */
const TOMBSTONE_WALK_WORTH_MERGING = 4;

export interface SegmentShape {
  segments: number;
  /** Leaf pages over all segments (from %_idx: about one entry per leaf page). */
  pages: number;
  largest: number;
  /** Deleted rows whose tombstones are still looked up. */
  tombstones: number;
  /** Tombstone slots a row walks past on average, over the index's pages. */
  tombstoneWalk: number;
}

export class FtsMerge {
  private merging = false;
  private readonly shapeStmt;
  private readonly mergeStmt;
  private readonly tombstoneReader;

  constructor(db: Db, readonly index: KeywordIndex = 'chunks_fts') {
    this.shapeStmt = db.prepare<[], { segid: number; pages: number }>(`SELECT segid, count(*) AS pages FROM ${index}_idx GROUP BY segid`);
    this.tombstoneReader = new FtsTombstones(db, index);
    // a negative page count merges every segment into one, incrementally, like 'optimize' in slices
    this.mergeStmt = db.prepare(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', -${PAGES_PER_SLICE})`);
  }

  shape(): SegmentShape {
    const segments = this.shapeStmt.all();
    const pages = segments.reduce((n, s) => n + s.pages, 0);
    const tombstones = this.tombstoneReader.read();
    const walked = segments.reduce((n, s) => n + s.pages * (tombstones.walk.get(s.segid) ?? 0), 0);
    return {
      segments: segments.length,
      pages,
      largest: Math.max(0, ...segments.map((s) => s.pages)),
      tombstones: tombstones.entries,
      tombstoneWalk: pages > 0 ? walked / pages : 0,
    };
  }

  /** Whether a full merge is worth starting now (see SMALL_SEGMENTS_SHARE and TOMBSTONE_WALK_WORTH_MERGING). */
  worthMerging(shape = this.shape()): boolean {
    if (shape.tombstoneWalk >= TOMBSTONE_WALK_WORTH_MERGING) return true;
    return shape.segments > 1 && shape.pages - shape.largest >= shape.pages * SMALL_SEGMENTS_SHARE;
  }

  /**
   * Does one slice of merge work if a merge is due or under way; false when there is nothing to
   * do. Once started, a merge goes on until one segment is left (its share measure is
   * meaningless half-way through). `always`: merge whenever there is more than one segment, or
   * deleted rows are left in the one. A merge that has just ended is not started again at once:
   * rows deleted meanwhile wait for the next look.
   */
  step(always = false): boolean {
    const shape = this.shape();
    const dropTombstones = always ? shape.tombstones > 0 : shape.tombstoneWalk >= TOMBSTONE_WALK_WORTH_MERGING;
    if (shape.segments <= 1 && (this.merging || !dropTombstones)) {
      this.merging = false;
      return false;
    }
    if (!this.merging && !always && !this.worthMerging(shape)) return false;
    this.merging = true;
    this.mergeStmt.run();
    return true;
  }
}

/**
 * An index written less than this long ago is not merged in the background: writes that arrive
 * one after another (an agent storing notes) would each add a segment to a merge that never ends,
 * and every slice would hold those writes up (measured: memory writes at a third of their speed).
 */
export const MERGE_QUIET_MS = 2000;

/** Every keyword index's merger: one slice of work at a time, for whichever index needs it first. */
export class FtsMerges {
  private readonly merges: FtsMerge[];
  private readonly writtenAt = new Map<KeywordIndex, number>();

  constructor(db: Db) {
    this.merges = KEYWORD_INDEXES.map((index) => new FtsMerge(db, index));
  }

  /** Another room wrote this index now (the job runner's own writes are between its merge slices). */
  written(index: KeywordIndex, at = Date.now()): void {
    this.writtenAt.set(index, at);
  }

  /** One slice of merge work on the first index that needs it and has been quiet; false when none does. `always`: now, quiet or not. */
  step(always = false, now = Date.now()): boolean {
    return this.merges.some((m) => (always || now - (this.writtenAt.get(m.index) ?? 0) >= MERGE_QUIET_MS) && m.step(always));
  }

  of(index: KeywordIndex): FtsMerge {
    return this.merges.find((m) => m.index === index)!;
  }
}
