// Bad input, each its own test (issue 3): every bad file is reported per file with a reason,
// and the good files next to it are still indexed.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import type { IndexReport } from '../../src-main/engine/ingest/indexer.js';
import { describeBackends } from '../helpers/backends.js';
import { outcome, troveErrorAsync } from '../helpers/engine.js';
import { documentRecords } from '../helpers/index-rows.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

const GOOD = { 'good.md': '# Good\n\nthe good file is about pelicans', 'sub/also-good.txt': 'also good: flamingos' };

describeBackends('bad input', (b) => {
  async function indexWith(files: Record<string, string | Buffer>, setup?: (root: string) => void, maxFileBytes?: number) {
    const root = tempDir();
    writeTree(root, { ...GOOD, ...files });
    setup?.(root);
    const engine = await b.open({ maxFileBytes });
    await engine.addCollection({ root, name: 'bad' });
    const [report] = await engine.index();
    return { engine, root, report: report! };
  }

  /** The good files are indexed and searchable, whatever happened to the bad one. */
  async function expectGoodFilesIndexed(engine: Engine, report: IndexReport): Promise<void> {
    expect((await engine.search({ query: 'pelicans' })).results.map((r) => r.path)).toEqual(['good.md']);
    expect((await engine.search({ query: 'flamingos' })).results.map((r) => r.path)).toEqual(['sub/also-good.txt']);
    expect(report.added).toBeGreaterThanOrEqual(2);
    expect((await engine.status()).totals.documents).toBeGreaterThanOrEqual(2);
  }

  async function problem(engine: Engine, file: string) {
    return (await engine.status()).collections[0]!.problems.find((p) => p.path === file);
  }

  it('a binary file named .md is skipped with a reason', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const { engine, report } = await indexWith({ 'image.md': png });
    expect(report.skipped).toEqual([{ path: 'image.md', reason: 'binary content (not text)' }]);
    expect(await problem(engine, 'image.md')).toEqual({ path: 'image.md', status: 'skipped', reason: 'binary content (not text)' });
    expect((await troveErrorAsync(() => engine.get('image.md'))).message).toMatch(/not indexed: binary content/);
    await expectGoodFilesIndexed(engine, report);
  });

  it('invalid UTF-8 is decoded as windows-1252, indexed, and the decoding is noted', async () => {
    const latin = Buffer.concat([Buffer.from('# Caf'), Buffer.from([0xe9]), Buffer.from(' menu\n\nna'), Buffer.from([0xef]), Buffer.from('ve ' ), Buffer.from([0x93]), Buffer.from('quoted'), Buffer.from([0x94]), Buffer.from(' text\n')]);
    const { engine, report } = await indexWith({ 'latin1.md': latin });
    expect(report.failed).toEqual([]);
    expect((await engine.get('latin1.md')).text).toBe('# Café menu\n\nnaïve “quoted” text\n');
    expect((await engine.search({ query: 'café' })).results.map((r) => r.path)).toEqual(['latin1.md']);
    expect((await documentRecords(await b.peek(engine), 'bad')).get('latin1.md')).toMatchObject({ status: 'indexed', error: 'invalid UTF-8; decoded as windows-1252' });
    await expectGoodFilesIndexed(engine, report);
  });

  it('a 0-byte file is skipped as empty', async () => {
    const { engine, report } = await indexWith({ 'empty.md': '', 'blank.txt': '  \n\n\t\n' });
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { path: 'empty.md', reason: 'empty file' },
        { path: 'blank.txt', reason: 'no text content' },
      ]),
    );
    expect((await problem(engine, 'empty.md'))?.status).toBe('skipped');
    await expectGoodFilesIndexed(engine, report);
  });

  it('a file deleted between scan and read is reported, and nothing else is lost', async () => {
    const root = tempDir();
    writeTree(root, { ...GOOD, 'vanishing.md': '# Vanishing\n\nthis file is deleted mid-index' });
    const engine = await b.open();
    await engine.addCollection({ root, name: 'bad' });
    let deleted = false;
    const [report] = await engine.index({
      onProgress: (p) => {
        // after the scan has listed the file, before any file is read
        if (p.phase === 'indexing' && p.done === 0 && !deleted) {
          fs.rmSync(path.join(root, 'vanishing.md'));
          deleted = true;
        }
      },
    });
    expect(deleted).toBe(true);
    expect(report!.scanned).toBe(3);
    expect(report!.notices).toEqual([{ path: 'vanishing.md', reason: expect.stringMatching(/deleted before it could be read/) }]);
    expect((await troveErrorAsync(() => engine.get('vanishing.md'))).code).toBe('NOT_FOUND');
    await expectGoodFilesIndexed(engine, report!);
  });

  it('a symlink loop is reported and does not hang the scan', async () => {
    const { engine, report } = await indexWith({}, (root) => {
      fs.symlinkSync('loop-b.md', path.join(root, 'loop-a.md'));
      fs.symlinkSync('loop-a.md', path.join(root, 'loop-b.md'));
      fs.symlinkSync('..', path.join(root, 'sub', 'up')); // a folder link back to the root
      fs.symlinkSync('.', path.join(root, 'self'));
    });
    const notes = Object.fromEntries(report.notices.map((n) => [n.path, n.reason]));
    expect(notes['loop-a.md']).toMatch(/symlink loop/);
    expect(notes['loop-b.md']).toMatch(/symlink loop/);
    expect(notes['sub/up']).toMatch(/symlink loop/);
    expect(notes['self']).toMatch(/symlink loop/);
    expect(report.scanned).toBe(2);
    await expectGoodFilesIndexed(engine, report);
  });

  it('a file over the size limit is skipped with a reason, without being read', async () => {
    const big = `# Big\n\n${'lorem ipsum '.repeat(500)}`;
    const { engine, report } = await indexWith({ 'big.md': big }, undefined, 2048);
    expect(report.skipped).toEqual([{ path: 'big.md', reason: expect.stringMatching(/^file is 5\.9 KB, over the 2\.0 KB limit$/) }]);
    expect(await problem(engine, 'big.md')).toMatchObject({ status: 'skipped' });
    expect((await engine.search({ query: 'lorem' })).results).toEqual([]);
    await expectGoodFilesIndexed(engine, report);
  });

  it('documents (PDF, Office, …) may be ten times the size limit of text files, and say so when over it', async () => {
    const pdf = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/formats/good/report.pdf')); // 36 KB
    const { engine, report } = await indexWith(
      { 'report.pdf': pdf, 'big.md': `# Big\n\n${'lorem ipsum '.repeat(800)}`, 'huge.pdf': Buffer.alloc(90 * 1024, 0x20) },
      undefined,
      8 * 1024,
    );
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { path: 'big.md', reason: expect.stringMatching(/^file is 9\.4 KB, over the 8\.0 KB limit$/) },
        { path: 'huge.pdf', reason: expect.stringMatching(/^file is 90\.0 KB, over the 80\.0 KB limit for documents$/) },
      ]),
    );
    expect(report.skipped).toHaveLength(2);
    expect(await problem(engine, 'huge.pdf')).toMatchObject({ status: 'skipped' });
    expect((await engine.search({ query: 'lorem' })).results).toEqual([]);
    expect((await engine.status()).collections[0]!.kinds.pdf).toBe(1); // report.pdf, four times the text limit, is indexed
    expect((await engine.get('report.pdf')).text).toContain('[page 1]');
    await expectGoodFilesIndexed(engine, report);
  });

  it('a size limit that is not a positive whole number is refused before anything opens', async () => {
    for (const maxFileBytes of [Number.NaN, 0, -1, 1.5, Infinity]) {
      const err = await troveErrorAsync(() => b.open({ maxFileBytes }));
      expect(err.code, String(maxFileBytes)).toBe('INVALID_INPUT');
      expect(err.message).toMatch(/maxFileBytes must be a positive whole number/);
    }
  });

  it('a file that grows past the limit is skipped when it is next indexed', async () => {
    const { engine, root, report } = await indexWith({ 'grows.md': '# small' }, undefined, 1024);
    expect(report.skipped).toEqual([]);
    fs.writeFileSync(path.join(root, 'grows.md'), `# big now\n\n${'x '.repeat(2000)}`);
    const [second] = await engine.index();
    expect(second!.skipped.map((s) => s.path)).toEqual(['grows.md']);
    expect((await troveErrorAsync(() => engine.get('grows.md'))).code).toBe('NOT_FOUND'); // the old text is not served either
    await expectGoodFilesIndexed(engine, report);
  });

  it('FTS5-syntax queries never raise a syntax error: they search, or say there is nothing to search for', async () => {
    const { engine, report } = await indexWith({});
    // queries with no word at all (and a boolean query of operators only) are INVALID_INPUT; everything else searches
    const noWords = new Set(['(', '*', '-', '+']);
    for (const q of ['"unbalanced', 'a OR', '(', 'NEAR(', '*', 'AND AND', 'col:val', '^x', '"a" "b', '-', '+', 'x*y*']) {
      for (const syntax of ['match', 'phrase', 'prefix', 'boolean'] as const) {
        const expected = noWords.has(q) || (q === 'AND AND' && syntax === 'boolean') ? 'INVALID_INPUT' : 'results';
        expect(await outcome(() => engine.search({ query: q, syntax })), `${syntax}: ${q}`).toBe(expected);
      }
    }
    await expectGoodFilesIndexed(engine, report);
  });
});
