// The OCR stage through the engine, on both backends: a scanned PDF and a PNG are searchable by
// their names at once and by their recognised words after the stage runs (with the page, the
// `[page N, OCR]` marker and the page's confidence); a bad image fails alone with its reason;
// what was read is never read again for an unchanged file (the cache, across a fresh index).
import { expect, it } from 'vitest';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { LETTER_PNG, makePdf } from './helpers.js';

const NOTE = 'A plain note about the weekly harbour meeting.';

describeBackends('the OCR stage', (b) => {
  it('makes a scanned PDF and a PNG searchable by their recognised words, marked as OCR with the page', async () => {
    const scanned = Buffer.from(await makePdf([{ text: 'Cover page of the crane file' }, { png: LETTER_PNG }]));
    const { engine } = await b.indexedFolder({ 'note.md': NOTE, 'scans/crane.pdf': scanned, 'photos/letter.png': LETTER_PNG, 'photos/broken.png': LETTER_PNG.subarray(0, 200) });

    // indexed by the text layer and the name first; the recognised words are not there yet
    expect((await engine.search({ query: 'cover crane file', mode: 'keyword' })).results.map((r) => r.path)).toContain('scans/crane.pdf');
    expect((await engine.search({ query: 'Rotterdam', mode: 'keyword' })).results).toHaveLength(0);
    const before = (await engine.status()).ocr.collections[0]!;
    expect(before).toMatchObject({ collection: 'notes', pages: 3, done: 0, left: 3 });
    expect(before.summary).toMatch(/^OCR: 0 of 3 pages/);

    const seen: number[] = [];
    const [after] = await engine.recognize({ onProgress: (p) => seen.push(p.done) });
    expect(after).toMatchObject({ collection: 'notes', pages: 3, done: 2, failed: 1, left: 0 });
    expect(after!.summary).toMatch(/^OCR: 2 of 3 pages read \(1 could not be read/);
    expect(Math.max(...seen)).toBe(3);

    const hits = (await engine.search({ query: 'Rotterdam supplier', mode: 'keyword' })).results;
    expect(hits.map((h) => h.path).sort()).toEqual(['photos/letter.png', 'scans/crane.pdf']);
    const pdfHit = hits.find((h) => h.path === 'scans/crane.pdf')!;
    expect(pdfHit.page).toBe(2);
    expect(pdfHit.ocr?.confidence).toBeGreaterThan(50);
    expect(hits.find((h) => h.path === 'photos/letter.png')!.page).toBe(1);
    // the text layer's page is untouched and not marked
    const cover = (await engine.search({ query: 'cover crane file', mode: 'keyword' })).results.find((h) => h.path === 'scans/crane.pdf')!;
    expect(cover.page).toBe(1);
    expect(cover.ocr).toBeUndefined();

    // knowledge results say it too, in loc
    const k = (await engine.knowledge.search({ query: 'Rotterdam supplier' })).results.find((r) => r.path === 'scans/crane.pdf')!;
    expect(k.loc).toMatchObject({ page: 2, ocr_confidence: pdfHit.ocr!.confidence });

    const doc = await engine.get('notes/scans/crane.pdf');
    expect(doc.text).toContain('[page 2, OCR]');
    expect(doc.text).toContain('Cover page of the crane file');

    const failures = await engine.failures();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ collection: 'notes', path: 'photos/broken.png' });
    expect(failures[0]!.reason).toMatch(/^OCR could not read page 1: /);

    // nothing is left: a second run reads nothing and the failed page is not tried again
    const again: number[] = [];
    await engine.recognize({ onProgress: (p) => again.push(p.done) });
    expect(again).toEqual([]);
  });
});


describeBackends('OCR languages per collection', (b) => {
  it('a language not installed is refused with the pull to run, nothing added; English is the default and can be set back', async () => {
    const e = await b.open();
    const root = tempDir('trove-root-');
    writeTree(root, { 'scan.png': LETTER_PNG });
    await expect(e.addCollection({ root, name: 'german', ocrLanguages: ['eng', 'kor'] })).rejects.toThrow(/OCR language "kor" is not available: .*trove models pull tesseract-kor/);
    expect((await e.listCollections()).map((c) => c.name)).toEqual([]);
    const added = await e.addCollection({ root, name: 'scans', ocrLanguages: ['eng'] });
    expect(added.ocrLanguages).toEqual(['eng']);
    await expect(e.setCollectionOcrLanguages('scans', ['kor'])).rejects.toThrow(/tesseract-kor/);
    expect((await e.setCollectionOcrLanguages('scans', null)).ocrLanguages).toEqual(['eng']);
  });
});
