// FTS5's tombstones (store/fts-tombstones.ts): an edited long document leaves its old chunks'
// rowids — consecutive — in the tombstone hash of the segment that held them, and every row a
// query walks there is looked up in it. A watching host rewrites such a segment once idle, even
// when it is the only one, and answers exactly as before; a few scattered edits are left alone.
// SQLite only: FTS5 segments are the SQLite storage's own mechanics.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Engine, SearchResponse } from '../../src-main/engine/index.js';
import { openDatabase } from '../../src-main/engine/store/database.js';
import { FtsMerge } from '../../src-main/engine/store/fts-merge.js';
import { pageWalk } from '../../src-main/engine/store/fts-tombstones.js';
import { openEngine } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

const section = (i: number) => `## Part ${i}\n\n${'The keeper logs wind and swell while retries back off with jitter. '.repeat(20)}\n`;
const long = (edition: number) => `# Long notes ${edition}\n\n${Array.from({ length: 40 }, (_, i) => section(i)).join('\n')}`;
/** A few of 2,000 made-up words per note, so the vocabulary fills pages of its own. */
const words = (i: number) => Array.from({ length: 12 }, (_, k) => `w${((i * 7919 + k * 104729) % 2000).toString(36)}x`).join(' ');
const queries = ['keeper wind swell', 'retries jitter', 'harbour lantern'];
const view = (r: SearchResponse) => r.results.map((h) => `${h.path} ${h.score}`);

async function indexedAndCompacted(): Promise<{ engine: Engine; root: string; merge: FtsMerge }> {
  const root = tempDir('trove-tombstones-');
  writeTree(root, {
    'long.md': long(1),
    // enough other notes that an edit's new segment is small beside the rest, and long.md's chunks
    // under a tenth of the rows (FTS5 rewrites a segment with more deleted rows than that itself)
    ...Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`short-${i}.md`, `# Short ${i}\n\nThe harbour lantern and the keeper's wind log, note ${i}: ${words(i)}.\n`])),
  });
  const engine = await openEngine();
  await engine.addCollection({ root, name: 'notes' });
  await engine.index();
  await engine.compactIndex();
  const merge = new FtsMerge(openDatabase(path.join(engine.profileDir, 'index.sqlite')));
  expect(merge.shape()).toMatchObject({ segments: 1, tombstones: 0, tombstoneWalk: 0 });
  return { engine, root, merge };
}

const answers = (engine: Engine) => Promise.all(queries.map(async (q) => view(await engine.search({ query: q, limit: 20 }))));

describe('tombstones', () => {
  it('a long document edited leaves a run of tombstones that an idle host rewrites away, answering as before', async () => {
    const { engine, root, merge } = await indexedAndCompacted();
    fs.writeFileSync(path.join(root, 'long.md'), long(2));
    await engine.index();
    const edited = merge.shape();
    expect(edited.tombstones).toBeGreaterThanOrEqual(40); // every old chunk of long.md
    expect(edited.tombstoneWalk).toBeGreaterThanOrEqual(4);
    expect(merge.worthMerging(edited)).toBe(true);
    const before = await answers(engine);

    await engine.startWatching();
    const deadline = Date.now() + 20_000;
    while (merge.shape().tombstones > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await engine.stopWatching();
    expect(merge.shape()).toMatchObject({ segments: 1, tombstones: 0, tombstoneWalk: 0 });
    expect(await answers(engine)).toEqual(before);
  });

  it('a few scattered edits are not worth a rewrite; compacting drops them anyway', async () => {
    const { engine, root, merge } = await indexedAndCompacted();
    for (const i of [2, 7]) fs.writeFileSync(path.join(root, `short-${i}.md`), `# Short ${i}\n\nThe harbour lantern, edited.\n`);
    await engine.index();
    const edited = merge.shape();
    expect(edited.tombstones).toBe(2);
    expect(edited.tombstoneWalk).toBeLessThan(4);
    // the small new segment alone is not worth a full merge either
    expect(merge.worthMerging(edited)).toBe(false);
    expect(merge.step()).toBe(false);
    const before = await answers(engine);
    await engine.compactIndex();
    expect(merge.shape()).toMatchObject({ segments: 1, tombstones: 0 });
    expect(await answers(engine)).toEqual(before);
  });
});

describe('pageWalk', () => {
  const page = (keyBytes: 4 | 8, slots: (0 | 1)[]) => {
    const b = Buffer.alloc(8 + slots.length * keyBytes);
    b[0] = keyBytes;
    b.writeUInt32BE(slots.filter(Boolean).length, 4);
    slots.forEach((used, i) => {
      if (!used) return;
      if (keyBytes === 4) b.writeUInt32BE(100 + i, 8 + i * 4);
      else b.writeBigUInt64BE(BigInt(100 + i), 8 + i * 8);
    });
    return b;
  };

  it('averages the occupied slots a lookup walks past over the slot it starts from', () => {
    expect(pageWalk(page(4, [0, 0, 0, 0, 0, 0, 0, 0]))).toBe(0);
    expect(pageWalk(page(4, [0, 1, 0, 1, 0, 1, 0, 1]))).toBe(4 / 8); // runs of one: one slot each
    expect(pageWalk(page(4, [0, 1, 1, 1, 0, 0, 0, 0]))).toBe(6 / 8); // a run of three: 3 + 2 + 1
    expect(pageWalk(page(8, [1, 1, 0, 0, 0, 0, 0, 1]))).toBe(6 / 8); // the run wraps around the end
    expect(pageWalk(page(4, [1, 1, 1, 1]))).toBe(4); // full: the whole page
    expect(pageWalk(Buffer.from([9, 0, 0, 0, 0, 0, 0, 0]))).toBe(0); // not a tombstone page
  });
});
