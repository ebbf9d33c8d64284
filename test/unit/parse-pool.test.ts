// The parse workers: documents are prepared off the calling thread; a parser that runs past its
// time limit or its heap limit fails that file with the reason, and the next file gets a new
// worker; close() stops them all. Real workers, real parsers, real files.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { ParsePool } from '../../src-main/engine/ingest/parse-pool.js';
import { FORMATS, manyParagraphsOdt } from '../helpers/formats.js';

const pools: ParsePool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
const pool = (opts: ConstructorParameters<typeof ParsePool>[1] = {}) => {
  const p = new ParsePool(DEFAULT_CHUNKING, opts);
  pools.push(p);
  return p;
};
const fixture = (name: string) => fs.readFileSync(path.join(FORMATS, 'good', name));

describe('ParsePool', () => {
  it('prepares documents in workers: text, title, chunks with pages', async () => {
    const p = pool({ workers: 2 });
    const [pdf, pptx] = await Promise.all([p.prepare(fixture('report.pdf'), 'report.pdf'), p.prepare(fixture('deck.pptx'), 'deck.pptx')]);
    expect(pdf).toMatchObject({ ok: true, kind: 'pdf', title: 'Quarterly Field Report' });
    expect(pptx).toMatchObject({ ok: true, kind: 'pptx', title: 'Roadmap 2026' });
    if (!pdf.ok || !pptx.ok) return;
    expect(pdf.chunks.map((c) => c.page)).toEqual([1, 2, 3]);
    expect(pdf.chunks.every((c) => !c.ftsBody.includes('[page'))).toBe(true); // markers are shown, not indexed
    expect(pptx.chunks.map((c) => c.page)).toEqual([1, 2, 3]);
    expect(p.workers).toBe(2);
  });

  it('a file past the time limit fails with the reason; the next file is parsed by a new worker', async () => {
    const slow = pool({ workers: 1, timeoutMs: 1 });
    const r = await slow.prepare(fixture('report.pdf'), 'report.pdf');
    expect(r).toEqual({ ok: false, status: 'failed', reason: 'parsing took longer than 1 ms and was stopped', kind: 'pdf' });
    expect(slow.workers).toBe(0);
  });

  it('a parser that runs out of memory fails that file only', async () => {
    const p = pool({ workers: 1, maxHeapMb: 48 });
    const [huge, after] = await Promise.all([p.prepare(manyParagraphsOdt(2_000_000), 'huge.odt'), p.prepare(fixture('charter.odt'), 'charter.odt')]);
    expect(huge).toMatchObject({ ok: false, status: 'failed', kind: 'odt', reason: 'the parser ran out of memory (over 48 MB) and was stopped' });
    expect(after).toMatchObject({ ok: true, title: 'Project Charter' });
  });

  it('unsupported and unreadable files come back as results, never as rejections', async () => {
    const p = pool({ workers: 1 });
    expect(await p.prepare(Buffer.from('not a zip at all'), 'x.docx')).toMatchObject({ ok: false, status: 'failed', reason: expect.stringMatching(/^cannot read as docx: not a readable Word document/) });
    expect(await p.prepare(Buffer.alloc(0), 'empty.pdf')).toMatchObject({ ok: false, status: 'skipped', reason: 'empty file' });
    expect(await p.prepare(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 'old.xls')).toMatchObject({ ok: false, status: 'skipped', reason: expect.stringMatching(/^unsupported format: Excel 97-2003/) });
  });

  it('close() stops the workers; files asked for afterwards fail as closed', async () => {
    const p = pool({ workers: 2 });
    await p.prepare(fixture('novel.epub'), 'novel.epub');
    await p.close();
    expect(p.workers).toBe(0);
    expect(await p.prepare(fixture('novel.epub'), 'novel.epub')).toMatchObject({ ok: false, reason: expect.stringMatching(/closed/) });
  });
});
