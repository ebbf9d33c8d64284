// Documents' texts as SQLite keeps them, compressed in blocks (store/content-blocks.ts), and the
// range reads every backend answers (Storage.documents.windows, chunkWindows): whole texts, lines
// and character ranges across block edges with astral and CJK characters on them, a snippet of a
// chunk that straddles an edge, an empty text (migrated; an empty file is skipped), a text of exactly one block, a re-index and a
// removal leaving no stale blocks, memory entries (one block each), and the migrations of a
// profile written with the old `contents` table and of one whose blocks are brotli (the first codec).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { Engine as EngineClass } from '../../src-main/engine/index.js';
import { BLOCK_CHARS, packText, sliceWindow } from '../../src-main/engine/store/content-blocks.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { Storage } from '../../src-main/engine/store/storage.js';
import { describeBackends } from '../helpers/backends.js';
import { profileBefore } from '../helpers/older-profile.js';
import { removeTempDirs } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

/** Words and newlines, exactly `n` UTF-16 units long. */
function filler(n: number, seed = 0): string {
  const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit'];
  let s = '';
  for (let i = seed; s.length < n; i++) s += words[i % words.length] + (i % 9 === 8 ? '\n' : ' ');
  return s.slice(0, n);
}

const EMOJI = '😀'; // two UTF-16 units: a surrogate pair
// an emoji across the first block edge (units 8191–8192), CJK on the second (16383 | 16384), more after
const BIG = `${filler(BLOCK_CHARS - 14)} zephyrquartz${EMOJI}${filler(BLOCK_CHARS - 3, 3)}\n東京${filler(4000, 5)} 終わり\n`;
const EXACT = filler(BLOCK_CHARS, 1);

describe('packText', () => {
  it('cuts at multiples of the block size, one unit later where a surrogate pair would split', () => {
    expect(BIG.charCodeAt(BLOCK_CHARS - 1)).toBeGreaterThanOrEqual(0xd800); // the emoji straddles the edge
    expect(BIG.slice(2 * BLOCK_CHARS - 1, 2 * BLOCK_CHARS + 1)).toBe('東京');
    expect(packText(BIG).map((b) => b.start)).toEqual([0, BLOCK_CHARS + 1, 2 * BLOCK_CHARS]);
    expect(packText(EXACT).map((b) => b.start)).toEqual([0]);
    expect(packText('').map((b) => b.start)).toEqual([0]);
  });
});

describeBackends('document text in blocks', (b) => {
  let engine: Engine;
  let storage: Storage;
  let root: string;
  const idOf = async (p: string) => (await storage.documents.byPath((await storage.collections.get('notes'))!.id, p))?.id;
  /** SQLite's block starts of a document (PostgreSQL keeps the text whole: null). */
  const blockStarts = (id: number): number[] | null => {
    if (b.name !== 'sqlite') return null;
    const db = new Database(path.join(engine.profileDir, 'index.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT start FROM content_blocks WHERE document_id = ? ORDER BY start').all(id) as { start: number }[]).map((r) => r.start);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    const index = await b.indexedFolder({ 'big.txt': BIG, 'exact.txt': EXACT, 'empty.txt': '', 'gone.txt': filler(3 * BLOCK_CHARS, 7) });
    ({ engine, root } = index);
    storage = await b.peek(engine);
  });

  it('reads a text whole, by lines and by character ranges across block edges', async () => {
    const id = (await idOf('big.txt'))!;
    expect(await storage.documents.content(id)).toBe(BIG);
    expect((await storage.documents.contents([id])).get(id)).toBe(BIG);
    if (b.name === 'sqlite') expect(blockStarts(id)).toEqual([0, BLOCK_CHARS + 1, 2 * BLOCK_CHARS]);
    const lines = BIG.split('\n');
    const got = await engine.get('big.txt', { fromLine: 100, maxLines: 40 });
    expect(got.text).toBe(lines.slice(99, 139).join('\n'));
    expect(got.totalLines).toBe(lines.length);
    const edges = [0, 1, BLOCK_CHARS - 2, BLOCK_CHARS - 1, BLOCK_CHARS, BLOCK_CHARS + 1, BLOCK_CHARS + 2, 2 * BLOCK_CHARS - 1, 2 * BLOCK_CHARS, 2 * BLOCK_CHARS + 1, BIG.length - 1, BIG.length];
    const ranges = edges.flatMap((from) => [0, 1, 2, 3, 50, BLOCK_CHARS + 7].map((n) => ({ id, from, to: from + n })));
    const windows = await storage.documents.windows(ranges);
    ranges.forEach((r, i) => {
      const w = windows[i]!;
      expect(w.start).toBeLessThanOrEqual(r.from);
      expect(sliceWindow(w, r.from, r.to)).toBe(BIG.slice(r.from, r.to));
    });
    expect(await storage.documents.windows([{ id: 987_654, from: 0, to: 10 }])).toEqual([undefined]);
  });

  it('cuts the snippet of a chunk that straddles a block edge from its blocks', async () => {
    const id = (await idOf('big.txt'))!;
    const straddling = (await storage.chunks.forDocument(id)).find((c) => c.charStart < BLOCK_CHARS && c.charEnd > BLOCK_CHARS + 1)!;
    expect(straddling).toBeDefined();
    const w = (await storage.documents.chunkWindows([straddling.id])).get(straddling.id)!;
    expect(sliceWindow(w, straddling.charStart, straddling.charEnd)).toBe(BIG.slice(straddling.charStart, straddling.charEnd));
    const r = await engine.search({ query: 'zephyrquartz', limit: 5 });
    expect(r.results.map((h) => h.path)).toEqual(['big.txt']);
    expect(r.results[0]!.snippet).toContain(`zephyrquartz${EMOJI}`);
    const [from, to] = r.results[0]!.highlights![0]!;
    expect(r.results[0]!.snippet.slice(from, to)).toBe('zephyrquartz');
    const cjk = await engine.search({ query: '東京', limit: 5 });
    expect(cjk.results[0]?.snippet).toContain('東京');
  });

  it('keeps a text of exactly one block; an empty file has no text (skipped), so no blocks', async () => {
    const empty = (await idOf('empty.txt'))!;
    const exact = (await idOf('exact.txt'))!;
    expect(await storage.documents.content(empty)).toBeUndefined();
    expect(await storage.documents.content(exact)).toBe(EXACT);
    if (b.name === 'sqlite') {
      expect(blockStarts(empty)).toEqual([]);
      expect(blockStarts(exact)).toEqual([0]);
    }
    const [e, x1, x2] = await storage.documents.windows([
      { id: empty, from: 0, to: 10 },
      { id: exact, from: BLOCK_CHARS - 5, to: BLOCK_CHARS },
      { id: exact, from: BLOCK_CHARS, to: BLOCK_CHARS + 10 },
    ]);
    expect(e).toBeUndefined();
    expect(sliceWindow(x1!, BLOCK_CHARS - 5, BLOCK_CHARS)).toBe(EXACT.slice(-5));
    expect(sliceWindow(x2!, BLOCK_CHARS, BLOCK_CHARS + 10)).toBe('');
  });

  it('replaces a re-indexed text whole and drops a removed one', async () => {
    const id = (await idOf('big.txt'))!;
    const short = `${EMOJI} short now\n`;
    fs.writeFileSync(path.join(root, 'big.txt'), short);
    const gone = (await idOf('gone.txt'))!;
    fs.rmSync(path.join(root, 'gone.txt'));
    await engine.index();
    expect(await idOf('big.txt')).toBe(id);
    expect(await storage.documents.content(id)).toBe(short);
    expect(sliceWindow((await storage.documents.windows([{ id, from: 2, to: 20 }]))[0]!, 2, 20)).toBe(short.slice(2));
    if (b.name === 'sqlite') expect(blockStarts(id)).toEqual([0]); // no stale blocks of the longer text
    expect(await idOf('gone.txt')).toBeUndefined();
    expect(await storage.documents.content(gone)).toBeUndefined();
    if (b.name === 'sqlite') expect(blockStarts(gone)).toEqual([]);
    expect((await engine.search({ query: 'zephyrquartz', limit: 5 })).results).toEqual([]);
  });

  it('keeps memory entries whole, however long, and finds their duplicates', async () => {
    const long = `${filler(BLOCK_CHARS + 100, 2)} ${EMOJI} memoryneedle 東京`;
    const entry = { thread_id: 't', source: 'agent', text: long, created_at: '2025-11-28T10:00:00Z' };
    expect(await engine.memory.import([entry])).toEqual({ imported: 1, skipped: 0 });
    expect(await engine.memory.import([entry])).toEqual({ imported: 0, skipped: 1 });
    const [listed] = (await engine.memory.list({ limit: 5 })).entries;
    expect(listed!.text).toBe(long);
    const hit = (await engine.memory.search({ query: 'memoryneedle', mode: 'keyword', limit: 3 })).hits[0]!;
    expect(hit.entry.text).toBe(long);
    await engine.memory.update({ id: listed!.id, text: `edited ${EMOJI}` });
    expect((await engine.memory.get([listed!.id]))[0]!.text).toBe(`edited ${EMOJI}`);
  });
});

describe('the migration of texts kept whole (SQLite)', () => {
  it('converts every contents row into blocks, a memory entry into one, and loses nothing', async () => {
    const { profile, file, db, folder, memory, addDocument } = profileBefore('CREATE TABLE content_blocks');
    const texts = new Map<number, { text: string; memory: boolean }>();
    const put = db.prepare('INSERT INTO contents (document_id, text) VALUES (?, ?)');
    const add = (collection: number, p: string, text: string) => {
      const id = addDocument(collection, p, `d${texts.size}`);
      put.run(id, text);
      texts.set(id, { text, memory: collection === memory });
    };
    add(folder, 'big.txt', BIG);
    add(folder, 'exact.txt', EXACT);
    add(folder, 'empty.txt', '');
    for (let i = 0; i < 300; i++) add(folder, `n${i}.txt`, filler(50 + i * 97, i));
    add(memory, '1', `${filler(BLOCK_CHARS * 2, 4)}${EMOJI}`);
    db.close();

    const engine = await EngineClass.open({ profileDir: profile });
    await engine.close();
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'contents'").get()).toEqual({ n: 0 });
    const starts = (id: number) => (check.prepare('SELECT start FROM content_blocks WHERE document_id = ? ORDER BY start').all(id) as { start: number }[]).map((r) => r.start);
    for (const [id, t] of texts) expect(starts(id)).toEqual(t.memory ? [0] : packText(t.text).map((p) => p.start));
    check.close();
    const storage = SqliteStorage.open(file);
    try {
      for (const [id, t] of texts) expect(await storage.documents.content(id)).toBe(t.text);
    } finally {
      await storage.close();
    }
  });
});

describe('the migration of brotli blocks to zstd (SQLite)', () => {
  it('re-encodes every block, documents and memory entries alike, and every text reads back the same', async () => {
    const { profile, file, db, folder, memory, addDocument } = profileBefore('trove_recode_block');
    const block = db.prepare('INSERT INTO content_blocks (document_id, start, data) VALUES (?, ?, ?)');
    // the blocks as the first codec wrote them: brotli at quality 1, text mode, the size as a hint
    const brotli = (text: string) => {
      const bytes = Buffer.from(text, 'utf8');
      const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length };
      return zlib.brotliCompressSync(bytes, { params });
    };
    const texts = new Map<number, string>();
    const add = (collection: number, p: string, text: string, whole = false) => {
      const id = addDocument(collection, p, `d${texts.size}`);
      for (const b of whole ? [{ start: 0 }] : packText(text)) {
        const next = whole ? text.length : (packText(text).find((x) => x.start > b.start)?.start ?? text.length);
        block.run(id, b.start, brotli(text.slice(b.start, next)));
      }
      texts.set(id, text);
    };
    add(folder, 'big.txt', BIG);
    add(folder, 'exact.txt', EXACT);
    add(folder, 'empty.txt', '');
    for (let i = 0; i < 200; i++) add(folder, `n${i}.txt`, filler(30 + i * 131, i));
    add(memory, '1', `${filler(BLOCK_CHARS * 2, 4)}${EMOJI}`, true);
    const blocks = (db.prepare('SELECT count(*) AS n FROM content_blocks').get() as { n: number }).n;
    db.close();

    const engine = await EngineClass.open({ profileDir: profile });
    await engine.close();
    const check = new Database(file, { readonly: true });
    const rows = check.prepare('SELECT data FROM content_blocks').all() as { data: Buffer }[];
    expect(rows.length).toBe(blocks);
    for (const r of rows) expect([...r.data.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]); // a zstd frame
    check.close();
    const storage = SqliteStorage.open(file);
    try {
      for (const [id, text] of texts) expect(await storage.documents.content(id)).toBe(text);
    } finally {
      await storage.close();
    }
  });
});
