// The OCR engine on real pages: a clean page read back word for word, EXIF orientation honoured,
// a mixed PDF whose text page is left alone while its scanned page is recognised and merged in as
// `[page 2, OCR]`, the bounds (a decompression bomb refused before decoding, a truncated image,
// pages over the per-file bound, a page over its time), the cache (an unchanged file is never read
// twice, even by a new engine), and a graceful shutdown mid-file.
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src-main/engine/ingest/chunker.js';
import { pdfParser } from '../../src-main/engine/ingest/parsers/pdf.js';
import { DEFAULT_PARSE_LIMITS } from '../../src-main/engine/ingest/parsers/types.js';
import { FileOcrCache } from '../../src-main/engine/ocr/cache.js';
import { mergeOcrPages } from '../../src-main/engine/ocr/merge.js';
import type { OcrEngine } from '../../src-main/engine/ocr/ocr-engine.js';
import type { OcrPage } from '../../src-main/engine/ocr/types.js';
import { threadNiceness } from '../helpers/threads.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { LETTER_PNG, LETTER_TEXT, makePdf, ocrEngine, wordRecall } from './helpers.js';

const engines: OcrEngine[] = [];
function engine(...args: Parameters<typeof ocrEngine>): OcrEngine {
  const e = ocrEngine(...args);
  engines.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  removeTempDirs();
});

describe('recognition', () => {
  it('reads a clean 300 dpi page back line by line, with its confidence', async () => {
    const r = await engine().recognize({ kind: 'image', bytes: LETTER_PNG, fileName: 'letter.png' });
    expect(r.failed).toEqual([]);
    expect(r.languages).toEqual(['eng']);
    expect(r.engine).toMatch(/^tesseract\.js-core 7\.\d+\.\d+; eng:45b4cb346724;/);
    const [page] = r.pages;
    expect(page!.page).toBe(1);
    expect(page!.text).toBe(LETTER_TEXT);
    expect(page!.paragraphs.flat().map((l) => l.text)).toEqual(LETTER_TEXT.split('\n'));
    expect(page!.confidence).toBeGreaterThan(85);
  });

  it('honours EXIF orientation: a photo stored sideways is read upright', async () => {
    // pixels turned a quarter left, EXIF orientation 6 ("turn right to view"), as a phone writes them
    const sideways = await sharp(LETTER_PNG).rotate(-90).jpeg({ quality: 92 }).withMetadata({ orientation: 6 }).toBuffer();
    const stripped = await sharp(sideways).jpeg({ quality: 92 }).toBuffer(); // same pixels, no orientation
    const e = engine();
    const upright = await e.recognize({ kind: 'image', bytes: sideways, fileName: 'photo.jpg' });
    expect(wordRecall(LETTER_TEXT, upright.pages[0]!.text)).toBeGreaterThan(0.95);
    const unturned = await e.recognize({ kind: 'image', bytes: stripped, fileName: 'photo.jpg' });
    expect(wordRecall(LETTER_TEXT, unturned.pages[0]?.text ?? '')).toBeLessThan(0.5);
  });

  it('a mixed PDF: only the scanned page is recognised, and merged in as an OCR page with its own locator', async () => {
    const bytes = await makePdf([{ text: 'Cover letter\nThe maintenance report is on the next page.' }, { png: LETTER_PNG }]);
    const parsed = await pdfParser.parse(bytes.slice(), 'mixed.pdf', DEFAULT_PARSE_LIMITS);
    expect(parsed.ocrPages).toEqual([2]);
    expect(parsed.warnings).toEqual(['needs OCR: page 2 has no text layer (scanned?)']);

    const seen: number[] = [];
    const r = await engine().recognize({ kind: 'pdf', bytes, pages: parsed.ocrPages, fileName: 'mixed.pdf' }, { onPage: (p) => seen.push(p.page) });
    expect(seen).toEqual([2]);
    expect(r.pages.map((p) => p.page)).toEqual([2]);
    expect(wordRecall(LETTER_TEXT, r.pages[0]!.text)).toBeGreaterThan(0.97);

    const merged = mergeOcrPages(parsed, r);
    expect(merged.text).toMatch(/^\[page 1\]\n\nCover letter\nThe maintenance report is on the next page\.\n\n\[page 2, OCR\]\n\nQuarterly maintenance report/);
    expect(merged.ocrPages).toEqual([]);
    expect(merged.warnings).toEqual([]);
    expect(merged.metadata.ocr).toEqual({ engine: r.engine, languages: ['eng'], confidence: { 2: Math.round(r.pages[0]!.confidence) } });
    const chunks = chunkDocument(merged);
    const onScan = chunks.find((c) => merged.text.slice(c.start, c.end).includes('cracked weld'))!;
    expect(onScan.page).toBe(2);
    const lines = merged.text.split('\n');
    const weld = lines.findIndex((l) => l.includes('cracked weld')) + 1; // 1-based, as a hit's lines
    expect(lines[weld - 1]).toBe('the hoist motor and a cracked weld near the boom pivot.');
    expect(weld).toBeGreaterThanOrEqual(onScan.lineStart);
    expect(weld).toBeLessThanOrEqual(onScan.lineEnd);
  });
});

describe('bounds', () => {
  it('a decompression bomb is refused from its header, before any pixel is decoded', async () => {
    // a real PNG whose header claims 60000×60000 pixels (3.6 GP); its data is a few bytes
    const small = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const bomb = withPngSize(small, 60_000, 60_000);
    const r = await engine().recognize({ kind: 'image', bytes: bomb, fileName: 'bomb.png' });
    expect(r.pages).toEqual([]);
    expect(r.failed).toEqual([{ page: 1, reason: expect.stringMatching(/60000×60000 pixels \(3600 MP\), over the 40 MP a page may have; it was not decoded/) }]);
  });

  it('a truncated image fails with that reason, and the next file is read', async () => {
    const jpeg = await sharp(LETTER_PNG).jpeg().toBuffer();
    const e = engine();
    const cut = await e.recognize({ kind: 'image', bytes: jpeg.subarray(0, Math.floor(jpeg.length / 2)), fileName: 'cut.jpg' });
    expect(cut.failed).toEqual([{ page: 1, reason: expect.stringMatching(/^the image is truncated/) }]);
    const whole = await e.recognize({ kind: 'image', bytes: jpeg, fileName: 'whole.jpg' });
    expect(wordRecall(LETTER_TEXT, whole.pages[0]!.text)).toBeGreaterThan(0.95);
  });

  it('pages past the per-file bound are left out with a warning; a page past its time is stopped and fails alone', async () => {
    const blank = await sharp({ create: { width: 600, height: 300, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const bytes = await makePdf([{ png: blank }, { png: blank }, { png: blank }]);
    const r = await engine({ limits: { maxPagesPerFile: 2 } }).recognize({ kind: 'pdf', bytes });
    expect(r.pages.map((p) => p.page)).toEqual([1, 2]);
    expect(r.pages.every((p) => p.text === '' && p.confidence === 0)).toBe(true);
    expect(r.warnings).toEqual(['3 pages need OCR; only the first 2 were read (the per-file bound)']);

    const slow = engine({ limits: { timePerPageMs: 1 } });
    const timed = await slow.recognize({ kind: 'image', bytes: LETTER_PNG });
    expect(timed.failed).toEqual([{ page: 1, reason: 'the page took longer than 1 ms and was stopped' }]);
  });
});

describe('the cache', () => {
  it('never reads an unchanged file twice: a new engine gets the pages from the cache without starting a worker', async () => {
    const dir = tempDir('trove-ocr-cache-');
    const first = await engine({ cache: new FileOcrCache(dir) }).recognize({ kind: 'image', bytes: LETTER_PNG });
    const again = engine({ cache: new FileOcrCache(dir) });
    const second = await again.recognize({ kind: 'image', bytes: LETTER_PNG, pages: [1] });
    expect(second.pages).toEqual(first.pages);
    expect(again.workers).toBe(0);
    // other language data is another key: read again
    const other = await new FileOcrCache(dir).get({ contentSha256: '0'.repeat(64), engine: first.engine });
    expect(other.size).toBe(0);
  });

  it('stays within its bound, dropping the least recently used entries', async () => {
    const dir = tempDir('trove-ocr-cache-');
    const cache = new FileOcrCache(dir, 3000);
    const page = (n: number): OcrPage => ({ page: n, text: 'x'.repeat(900), paragraphs: [], confidence: 90 });
    const key = (i: number) => ({ contentSha256: String(i).repeat(64).slice(0, 64), engine: 'e' });
    for (let i = 1; i <= 5; i++) await cache.put(key(i), [page(1)]);
    expect((await cache.get(key(5))).get(1)?.text).toHaveLength(900);
    expect((await cache.get(key(1))).size).toBe(0);
  });
});

describe('workers', () => {
  it('recognise on a thread niced by 10 (Linux), which stays for the next file and is gone after close', async () => {
    expect(process.platform).toBe('linux'); // per-thread niceness is what this checks; CI runs Linux
    const before = new Set(threadNiceness().keys());
    const e = engine({ pool: { workers: 1 } });
    await e.recognize({ kind: 'image', bytes: LETTER_PNG });
    expect(e.workers).toBe(1);
    const started = [...threadNiceness()].filter(([tid]) => !before.has(tid));
    const niced = started.filter(([, nice]) => nice >= 10).map(([tid]) => tid);
    expect(niced).toHaveLength(1); // the one worker's thread
    expect(threadNiceness().get(process.pid)).toBe(0); // this thread keeps its priority
    await e.close();
    expect(e.workers).toBe(0);
    expect(threadNiceness().has(niced[0]!)).toBe(false);
  });

  it('prewarm starts one reader ahead of a scan, which then reads it; a language not installed starts none', async () => {
    const missing = engine({ pool: { workers: 2 } });
    await missing.prewarm(['deu'], true);
    expect(missing.workers).toBe(0);
    await expect(missing.prewarm(['klingon'], false)).resolves.toBeUndefined();
    expect(missing.workers).toBe(0);

    const e = engine({ pool: { workers: 2 } });
    await e.prewarm(undefined, true);
    expect(e.workers).toBe(1);
    const r = await e.recognize({ kind: 'pdf', bytes: await makePdf([{ png: LETTER_PNG }]) });
    expect(r.pages[0]!.text).toBe(LETTER_TEXT);
    expect(e.workers).toBe(1); // the warmed reader took the page (a one-page file needs no second)
  });
});

describe('abort', () => {
  it('an aborted job drops its queued pages and rejects with the signal\'s reason; the engine goes on', async () => {
    const bytes = await makePdf([{ png: LETTER_PNG }, { png: LETTER_PNG }, { png: LETTER_PNG }]);
    const e = engine({ pool: { workers: 1 } });
    const stop = new AbortController();
    const done: number[] = [];
    const run = e.recognize({ kind: 'pdf', bytes }, {
      signal: stop.signal,
      onPage: (p) => {
        done.push(p.page);
        stop.abort(new Error('the user paused OCR'));
      },
    });
    await expect(run).rejects.toThrow('the user paused OCR');
    expect(done).toEqual([1]);
    await expect(e.recognize({ kind: 'image', bytes: LETTER_PNG }, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
    const after = await e.recognize({ kind: 'image', bytes: LETTER_PNG });
    expect(after.pages[0]!.text).toBe(LETTER_TEXT);
  });
});

describe('shutdown', () => {
  it('close() lets the page in progress finish, refuses the queued ones and ends every worker', async () => {
    const bytes = await makePdf([{ png: LETTER_PNG }, { png: LETTER_PNG }, { png: LETTER_PNG }]);
    const e = engine({ pool: { workers: 1 } });
    const done: number[] = [];
    const closing: Promise<void>[] = [];
    const run = e.recognize({ kind: 'pdf', bytes }, {
      onPage: (p) => {
        done.push(p.page);
        if (!closing.length) closing.push(e.close()); // page 2 is on the worker now, page 3 queued
      },
    });
    await expect(run).rejects.toThrow(/OCR was stopped/);
    await Promise.all(closing);
    expect(done).toEqual([1, 2]);
    expect(e.workers).toBe(0);
    await expect(e.recognize({ kind: 'image', bytes: LETTER_PNG })).rejects.toThrow(/OCR was stopped/);
  });
});

/** A PNG with its IHDR width and height replaced (CRC fixed), so only the header lies. */
function withPngSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(zlib.crc32(out.subarray(12, 29)), 29);
  return out;
}
