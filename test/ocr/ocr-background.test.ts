// The OCR stage as hosts run it (OcrOptions.auto), on both backends: scans added to a watched folder
// become searchable by themselves; the Settings switch turns it off and on without a restart; it
// pauses and resumes with indexing; an index built again from scratch takes every page from the
// cache; and on PostgreSQL two engines share the pages without reading one twice.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { Engine, type OcrProgress } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';
import { LETTER_PNG, makePdf } from './helpers.js';

const ocrLeft = async (e: Engine) => (await e.status()).ocr.collections.find((c) => c.collection === 'notes')?.left ?? -1;

/** Totals of an engine's OCR progress over every run so far (a run's counts grow; a new run starts from 0). */
function tally(e: Engine): () => { recognised: number; cached: number } {
  const finished = { recognised: 0, cached: 0 };
  const current = new Map<string, OcrProgress>();
  e.onOcrProgress((p) => {
    const last = current.get(p.collection);
    if (last && p.done < last.done) {
      finished.recognised += last.recognised;
      finished.cached += last.cached;
    }
    current.set(p.collection, p);
  });
  return () => {
    const runs = [...current.values()];
    return { recognised: finished.recognised + runs.reduce((n, p) => n + p.recognised, 0), cached: finished.cached + runs.reduce((n, p) => n + p.cached, 0) };
  };
}

describeBackends('background OCR', (b) => {
  it('reads a scan added to a watched folder by itself: searchable by its words', async () => {
    const root = tempDir('trove-root-');
    fs.writeFileSync(path.join(root, 'note.md'), 'The weekly harbour meeting.');
    const e = await b.open({ ocr: { auto: true } });
    await e.addCollection({ root, name: 'notes' });
    await e.index();
    await e.startWatching();
    expect(e.backgroundOcr()).toMatchObject({ enabled: true, source: 'default' }); // the host allows it; nothing saved turns it off
    fs.writeFileSync(path.join(root, 'scan.png'), LETTER_PNG);
    const hits = await until(
      async () => (await e.search({ query: 'Rotterdam', mode: 'keyword' })).results,
      (r) => r.length === 1,
      120_000,
      'the scan searchable by its words',
    );
    expect(hits[0]).toMatchObject({ path: 'scan.png', page: 1 });
    expect(hits[0]!.ocr!.confidence).toBeGreaterThan(50);
    expect((await e.status()).ocr.collections[0]!.summary).toBe('OCR: 1 of 1 page read');
    await e.stopWatching();
  });

  it('follows the Settings switch without a restart, and pauses and resumes with indexing', async () => {
    const e = await b.open({ ocr: { auto: true } });
    e.settings.update({ ocr: false });
    expect(e.backgroundOcr()).toEqual({ enabled: false, source: 'saved', state: 'off' });
    const root = tempDir('trove-root-');
    fs.writeFileSync(path.join(root, 'scan.png'), LETTER_PNG);
    await e.addCollection({ root, name: 'notes' });
    await e.index();
    // an explicit run reads nothing either, and says why
    const [off] = await e.recognize();
    expect(off).toMatchObject({ left: 1, done: 0 });
    expect(off!.summary).toMatch(/switched off in Settings/);
    expect(await ocrLeft(e)).toBe(1);

    await e.pause();
    e.settings.update({ ocr: true });
    expect(e.backgroundOcr()).toMatchObject({ enabled: true, source: 'saved', state: 'paused' });
    expect((await e.status()).ocr.collections[0]!.summary).toMatch(/^OCR: 0 of 1 page, paused with indexing$/);
    await e.resume();
    await until(() => ocrLeft(e), (n) => n === 0, 120_000, 'the page read after resume');
    expect((await e.search({ query: 'Rotterdam', mode: 'keyword' })).results.map((r) => r.path)).toEqual(['scan.png']);
  });

  it('never reads a page twice: an index built again from scratch takes every page from the cache', async () => {
    const root = tempDir('trove-root-');
    fs.writeFileSync(path.join(root, 'scan.png'), LETTER_PNG);
    fs.writeFileSync(path.join(root, 'scan.pdf'), await makePdf([{ text: 'Cover' }, { png: LETTER_PNG }]));
    const e = await b.open();
    const counts = tally(e);
    await e.addCollection({ root, name: 'notes' });
    await e.index();
    await e.recognize();
    // one recognition: the PNG and the PDF's page are the same image, but not the same file (the cache is per file)
    expect(counts().recognised).toBe(2);
    await e.removeCollection('notes');
    await e.addCollection({ root, name: 'notes' });
    await e.index();
    expect(await ocrLeft(e)).toBe(2);
    await e.recognize();
    expect(counts()).toEqual({ recognised: 2, cached: 2 });
    expect((await e.search({ query: 'Rotterdam', mode: 'keyword' })).results).toHaveLength(2);
  });

  it('resumes after a restart: what one engine left queued, the next reads; pages read before are not read again', async () => {
    const root = tempDir('trove-root-');
    fs.writeFileSync(path.join(root, 'read.png'), LETTER_PNG);
    const first = await b.open();
    await first.addCollection({ root, name: 'notes' });
    await first.index();
    await first.recognize();
    // a second scan arrives and is indexed, then the engine stops before reading it
    fs.writeFileSync(path.join(root, 'later.pdf'), await makePdf([{ png: LETTER_PNG }]));
    await first.index();
    expect(await ocrLeft(first)).toBe(1);
    const target = b.target(first);
    await first.close();

    const next = await Engine.open({ ...target, ocr: { auto: true } });
    try {
      const counts = tally(next);
      await until(() => ocrLeft(next), (n) => n === 0, 120_000, 'the queued page read after the restart');
      expect(counts()).toEqual({ recognised: 1, cached: 0 }); // only the page left; read.png is not read again
      expect((await next.search({ query: 'Rotterdam', mode: 'keyword' })).results.map((r) => r.path).sort()).toEqual(['later.pdf', 'read.png']);
    } finally {
      await next.close();
    }
  });

  it.runIf(b.name === 'postgres')('two engines on one database share the pages: none is read twice', async () => {
    const root = tempDir('trove-root-');
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(root, `scan-${i}.pdf`), await makePdf([{ text: `Cover ${i}` }, { png: LETTER_PNG }]));
    const one = await b.open();
    await one.addCollection({ root, name: 'notes' });
    await one.index();
    const two = await Engine.open({ profileDir: tempDir('trove-profile-'), database: b.target(one).database });
    try {
      const [a, c] = [tally(one), tally(two)];
      await Promise.all([one.recognize(), two.recognize()]);
      expect(await ocrLeft(one)).toBe(0);
      // each engine has a cache of its own: a page read by both would count twice here
      expect(a().recognised + c().recognised).toBe(4);
      expect(a().cached + c().cached).toBe(0);
      expect((await two.search({ query: 'Rotterdam', mode: 'keyword' })).results).toHaveLength(4);
    } finally {
      await two.close();
    }
  });
});
