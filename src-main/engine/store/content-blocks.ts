// A document's text as SQLite keeps it: compressed in blocks (table content_blocks), so a read of
// a range — a hit's snippet, an embedding's chunk texts — decompresses only the blocks it covers.
//
// Why: the extracted text stored whole was 1.10× the corpus text on its own at 100,000 documents
// (bench/RESULTS.md, "bench:scale baseline"). The codec was measured on this machine
// (bench/RESULTS.md "The text blocks in zstd"): compression runs on the indexing writer's thread and
// a hit's snippet decompresses a block inside every search, so both speeds count. zstd at level 1
// (zstd-napi: libzstd's contexts, reused) compresses cpp-docs' Markdown 2.54× at ~230 MB/s and
// inflates a block in ~6 µs; brotli at quality 1 (node:zlib, the first codec) made 2.42× at ~100 MB/s
// and ~18 µs a block, most of it node:zlib's per-call set-up. 8,192 chars a block: smaller blocks
// compress worse and cost a long read more calls, larger ones decompress text a snippet does not show.
//
// A block starts at a multiple of BLOCK_CHARS UTF-16 code units (the offsets chunks and get use),
// one unit later where that would split a surrogate pair (an emoji, a rare CJK character): each
// block is then valid text on its own, stored as UTF-8 like the whole text was. The row carries its
// start, so a reader finds the block holding an offset by one index seek whatever the block sizes:
// memory entries keep their text in one block however long (store/sqlite/memory.ts).
import zlib from 'node:zlib';
import { Compressor, Decompressor } from 'zstd-napi';
import zstdBinding from 'zstd-napi/binding.js';

export const BLOCK_CHARS = 8192;
const ZSTD_LEVEL = 1;
/** The four bytes every zstd frame starts with (ZSTD_MAGICNUMBER, little-endian). */
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

// One compression and one decompression context per thread (the engine's, each reader thread's):
// libzstd's contexts are reused across calls, which is most of what makes a small block cheap.
let compressor: Compressor | undefined;
let decompressor: zstdBinding.DCtx | undefined;

export interface PackedBlock {
  /** The block's first character, in UTF-16 code units from the start of the text. */
  start: number;
  /** The block's text as UTF-8, one zstd frame. */
  data: Buffer;
}

/** A stretch of a document's text: `text` begins at character `start` of the document. */
export interface TextWindow {
  start: number;
  text: string;
}

/** A range of a document's text to read: characters [from, to) in UTF-16 code units. */
export interface TextRange {
  id: number;
  from: number;
  to: number;
}

/** `text` cut into blocks of `blockChars` (never inside a surrogate pair) and compressed; an empty text is one empty block. */
export function packText(text: string, blockChars = BLOCK_CHARS): PackedBlock[] {
  const out: PackedBlock[] = [];
  let start = 0;
  do {
    let end = Math.min(text.length, (Math.floor(start / blockChars) + 1) * blockChars);
    if (end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) end++;
    out.push({ start, data: compress(text.slice(start, end)) });
    start = end;
  } while (start < text.length);
  return out;
}

/** The whole text as one block (a memory entry: short, and read whole by its SQL). */
export function packWhole(text: string): PackedBlock[] {
  return [{ start: 0, data: compress(text) }];
}

function compress(text: string): Buffer {
  compressor ??= makeCompressor();
  return compressor.compress(Buffer.from(text, 'utf8'));
}

function makeCompressor(): Compressor {
  const c = new Compressor();
  c.setParameters({ compressionLevel: ZSTD_LEVEL });
  return c;
}

/**
 * A block's UTF-8 bytes: for SQLite's trove_inflate (a BLOB its SQL casts to TEXT: a whole text,
 * a memory entry) and for the range reads, which inflate their rows here (windowsFromBlocks).
 */
export function inflateBlock(data: Uint8Array): Buffer {
  // libzstd's calls directly: the library's Decompressor walks the frames in JavaScript and checks
  // the size it got, ~1 µs a block of the ~6 a block costs. Every block is one frame that says its
  // size (Compressor writes it); a frame that does not is inflated the long way.
  const size = zstdBinding.getFrameContentSize(data);
  if (size === null) return new Decompressor().decompress(data);
  decompressor ??= new zstdBinding.DCtx();
  const out = Buffer.allocUnsafe(size);
  decompressor.decompress(out, data);
  return out;
}

/**
 * A block written by the first codec (brotli, schema 17) in zstd; a zstd block as it is. For the
 * migration that re-encodes a profile's blocks (store/migrations.ts): a brotli stream from node:zlib
 * never starts with zstd's magic bytes (its first byte is odd: the window size Trove wrote it with).
 */
export function recodeBrotliBlock(data: Uint8Array): Buffer {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.subarray(0, 4).equals(ZSTD_MAGIC)) return bytes;
  const text = zlib.brotliDecompressSync(bytes);
  compressor ??= makeCompressor();
  return compressor.compress(text);
}

/** Registers trove_inflate(blob) on a connection: the engine's and each reader thread's. */
export function registerBlockFunctions(db: { function: (name: string, opts: { deterministic: boolean }, fn: (v: unknown) => unknown) => unknown }): void {
  db.function('trove_inflate', { deterministic: true }, (v: unknown) => (v instanceof Uint8Array ? inflateBlock(v) : null));
}

/**
 * SQL for a document's whole text from its blocks (NULL when it has none), for a statement over
 * the file outside the storage's own (a migration to PostgreSQL, a bench): its connection needs
 * registerBlockFunctions.
 */
export function wholeTextSql(documentId: string): string {
  return `(SELECT group_concat(CAST(trove_inflate(b.data) AS TEXT), '' ORDER BY b.start) FROM content_blocks b WHERE b.document_id = ${documentId})`;
}

/** A row of a range read: the key it answers (a range's index, a chunk's id), a block's start and its compressed bytes. */
export interface PackedBlockRow {
  i: number;
  start: number;
  data: Uint8Array;
}

/** Rows of (key, block start, compressed block) in order, inflated and joined into one window per key. */
export function windowsFromBlocks(rows: readonly PackedBlockRow[]): Map<number, TextWindow> {
  const out = new Map<number, TextWindow>();
  for (const r of rows) {
    const text = inflateBlock(r.data).toString('utf8');
    const w = out.get(r.i);
    if (w) w.text += text;
    else out.set(r.i, { start: r.start, text });
  }
  return out;
}

/** `text[from, to)` of a window (the caller asked for a range the window covers). */
export function sliceWindow(w: TextWindow, from: number, to: number): string {
  return w.text.slice(from - w.start, to - w.start);
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
