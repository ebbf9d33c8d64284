// What FTS5's tombstones cost a keyword search. Trove's FTS5 tables are contentless_delete: a
// deleted row stays in its segment and its rowid goes into that segment's tombstone hash, which
// every row a query walks in the segment is looked up in. The hash is open addressing with linear
// probing on the rowid itself, so the rowids of one deleted document (its chunks are consecutive)
// fill consecutive slots, and a lookup whose slot falls in such a run walks to its end: one edited
// long document makes every walk over common words several times slower (bench/RESULTS.md,
// "FTS5's tombstones"), whatever the size of the index, until the segment is rewritten. The hash
// is sized by its entries, not by the segment, so a few suffice.
// Layout read here (fts5_index.c): a tombstone page's rowid is ((segid + 2^16) << 37) + page; its
// bytes are the key size (4 or 8), a flag, the entry count (big-endian), then the slots, 0 empty.
import type { Db } from './database.js';
import type { KeywordIndex } from './keyword-index.js';

const TOMBSTONE_ROWIDS = 1n << 53n;
const SEGID_SHIFT = 37n;
const SEGID_BASE = 1n << 16n;
const HEADER_BYTES = 8;

export interface TombstoneLoad {
  /** Deleted rows still in their segments. */
  entries: number;
  /** Per segment id, the slots a lookup of a live rowid walks past on average. */
  walk: Map<number, number>;
}

export class FtsTombstones {
  private readonly pagesStmt;

  constructor(db: Db, index: KeywordIndex) {
    this.pagesStmt = db.prepare<[bigint], { id: bigint; block: Buffer }>(`SELECT id, block FROM ${index}_data WHERE id >= ?`).safeIntegers(true);
  }

  read(): TombstoneLoad {
    const walk = new Map<number, { pages: number; slots: number }>();
    let entries = 0;
    for (const { id, block } of this.pagesStmt.all(TOMBSTONE_ROWIDS)) {
      const segid = Number((id >> SEGID_SHIFT) - SEGID_BASE);
      entries += block.length >= HEADER_BYTES ? block.readUInt32BE(4) : 0;
      const w = walk.get(segid) ?? { pages: 0, slots: 0 };
      w.pages++;
      w.slots += pageWalk(block);
      walk.set(segid, w);
    }
    return { entries, walk: new Map([...walk].map(([segid, w]) => [segid, w.slots / w.pages])) };
  }
}

/**
 * The occupied slots a lookup of an absent key walks past in one hash page, on average over the
 * slot it starts from: a run of L occupied slots costs L + (L - 1) + … + 1 over its L starts.
 */
export function pageWalk(block: Buffer): number {
  const keyBytes = block[0];
  if ((keyBytes !== 4 && keyBytes !== 8) || block.length <= HEADER_BYTES) return 0;
  const slots = Math.floor((block.length - HEADER_BYTES) / keyBytes);
  const occupied = (i: number) => {
    const at = HEADER_BYTES + i * keyBytes;
    return keyBytes === 4 ? block.readUInt32BE(at) !== 0 : block.readBigUInt64BE(at) !== 0n;
  };
  let empty = -1;
  for (let i = 0; i < slots && empty < 0; i++) if (!occupied(i)) empty = i;
  if (empty < 0) return slots; // full: a lookup walks the whole page
  let total = 0;
  let run = 0;
  for (let k = 1; k <= slots; k++) {
    if (occupied((empty + k) % slots)) run++;
    else {
      total += (run * (run + 1)) / 2;
      run = 0;
    }
  }
  return total / slots;
}
