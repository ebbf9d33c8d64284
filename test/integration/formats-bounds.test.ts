// Bounds of document parsing at the engine's level: a parser stopped by its time limit fails that
// file with the reason and the run goes on; while a large document is parsed in a worker the
// engine's own thread keeps answering searches.
import { describe, expect, it } from 'vitest';
import { indexedFolder, openEngine } from '../helpers/engine.js';
import { fixtureFiles, manyRowsXlsx } from '../helpers/formats.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

describe('document parsing bounds', () => {
  it('a document past the time limit fails with the reason; the rest of the folder is indexed', async () => {
    const { engine } = await indexedFolder(
      { 'report.pdf': fixtureFiles('good')['report.pdf']!, 'notes.md': '# Notes\n\nThe moraine survey.\n' },
      'slow',
      { indexing: { parsing: { timeoutMs: 1 } } },
    );
    const problems = (await engine.status()).collections[0]!.problems;
    expect(problems).toEqual([{ path: 'report.pdf', status: 'failed', reason: 'parsing took longer than 1 ms and was stopped' }]);
    expect((await engine.search({ query: 'moraine' })).results.map((r) => r.path)).toEqual(['notes.md']);
    expect(await engine.failures()).toMatchObject([{ path: 'report.pdf', reason: 'parsing took longer than 1 ms and was stopped', attempts: 1 }]);
  }, 60_000);

  it('a folder of documents is written a few documents per batch, every one of them indexed once', async () => {
    const good = fixtureFiles('good');
    const files = Object.fromEntries(['report.pdf', 'deck.pptx', 'budget.xlsx', 'novel.epub', 'charter.odt'].map((f) => [f, good[f]!]));
    const { engine } = await indexedFolder({ ...files, 'a.md': '# A\n\nalpha\n', 'b.md': '# B\n\nbeta\n' }, 'batched', { indexing: { batchDocuments: 2 } });
    const [report] = await engine.index(); // a second run: nothing left queued, nothing changed
    expect(report).toMatchObject({ added: 0, updated: 0, unchanged: 7 });
    expect((await engine.status()).totals).toMatchObject({ documents: 7, failed: 0, kinds: { pdf: 1, pptx: 1, xlsx: 1, epub: 1, odt: 1, markdown: 2 } });
  }, 60_000);

  it('searches are answered while a large workbook is parsed in a worker', async () => {
    const engine = await openEngine();
    const ready = tempDir('trove-root-');
    writeTree(ready, { 'a.md': '# Tides\n\nSpring tides follow the full moon.\n' });
    await engine.addCollection({ root: ready, name: 'ready' });
    await engine.index({ collection: 'ready' });

    const big = tempDir('trove-root-');
    writeTree(big, { 'readings.xlsx': manyRowsXlsx(300_000) });
    await engine.addCollection({ root: big, name: 'big' });
    let parsing = false;
    const stop = engine.onProgress((e) => {
      if (e.collection === 'big' && e.currentFile === 'readings.xlsx') parsing = true;
    });
    let finished = false;
    const run = engine.index({ collection: 'big' }).then(() => (finished = true));
    const answers: string[] = [];
    while (!finished) {
      await new Promise((resolve) => setImmediate(resolve));
      if (parsing && !finished) answers.push(...(await engine.search({ query: 'spring tides', collections: ['ready'] })).results.map((r) => r.path));
    }
    await run;
    stop();
    expect(answers.length).toBeGreaterThan(0); // the loop turned (and searched) while the worker parsed
    expect(answers.every((p) => p === 'a.md')).toBe(true);
    expect((await engine.search({ query: 'seismograph readings' })).results[0]).toMatchObject({ path: 'readings.xlsx', page: 1 });
  }, 60_000);
});

describe('documents in a folder dataset', () => {
  it('are parsed by the same workers, and a dataset hit and document carry the page', async () => {
    const engine = await openEngine();
    const folder = tempDir('trove-datasets-');
    writeTree(folder, {
      'datasets/papers/manifest.json': JSON.stringify({ id: 'papers', name: 'Papers', description: 'Field reports', index: './docs', kind: 'folder' }),
      'datasets/papers/docs/report.pdf': fixtureFiles('good')['report.pdf']!,
    });
    await engine.datasets.addFolder(folder);
    await engine.datasets.settled();
    await engine.index({ dataset: 'papers' });
    const r = await engine.datasets.search('papers', 'moraine', { mode: 'keyword' });
    expect(r.results[0]).toMatchObject({ ref: 'report.pdf', title: 'Quarterly Field Report', chunk: { page: 2 } });
    expect((await engine.datasets.document('papers', 'report.pdf')).chunks!.map((c) => c.page)).toEqual([1, 2, 3]);
  }, 60_000);
});
