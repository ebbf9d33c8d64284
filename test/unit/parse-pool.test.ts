// The parse workers: documents, and a batch's text files, are prepared off the calling thread; a
// parser that runs past its time limit or its heap limit fails that file with the reason, and the
// next file gets a new worker; close() stops them all. Real workers, real parsers, real files.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { ParsePool } from '../../src-main/engine/ingest/parse-pool.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import { FORMATS, manyParagraphsOdt } from '../helpers/formats.js';
import { threadNiceness } from '../helpers/threads.js';
import { until } from '../helpers/until.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

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

  it('parses on threads niced by 10 (Linux): indexing is background work, this thread keeps its priority', async () => {
    expect(process.platform).toBe('linux'); // per-thread niceness is what this checks; CI runs Linux
    const before = new Set(threadNiceness().keys());
    const p = pool({ workers: 2 });
    await Promise.all([p.prepare(fixture('report.pdf'), 'report.pdf'), p.prepare(fixture('deck.pptx'), 'deck.pptx')]);
    const started = [...threadNiceness()].filter(([tid]) => !before.has(tid));
    expect(started.filter(([, nice]) => nice >= 10)).toHaveLength(2);
    expect(threadNiceness().get(process.pid)).toBe(0);
  });

  it('a worker that has only read text files leaves after the shorter idle; one that parsed a document stays', async () => {
    const root = tempDir('trove-texts-');
    writeTree(root, { 'a.md': '# A\n\nalpha\n', 'b.md': '# B\n\nbeta\n' });
    const p = pool({ workers: 2, textIdleMs: 50, idleMs: 60_000 });
    await p.prepare(fixture('report.pdf'), 'report.pdf');
    expect(p.workers).toBe(1);
    const texts = await p.readTexts({ root, maxFileBytes: 10_000_000, files: [{ path: 'a.md' }, { path: 'b.md' }] });
    expect(texts?.map((t) => t.prepared?.ok)).toEqual([true, true]);
    expect(p.workers).toBe(2);
    await until(async () => p.workers, (n) => n === 1, 10_000, 'the text-only worker leaving');
    expect(await p.prepare(fixture('deck.pptx'), 'deck.pptx')).toMatchObject({ ok: true });
  });

  it('close() stops the workers; files asked for afterwards fail as closed', async () => {
    const p = pool({ workers: 2 });
    await p.prepare(fixture('novel.epub'), 'novel.epub');
    await p.close();
    expect(p.workers).toBe(0);
    expect(await p.prepare(fixture('novel.epub'), 'novel.epub')).toMatchObject({ ok: false, reason: expect.stringMatching(/closed/) });
  });

  describe('text files, read and prepared in groups', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    /** 70 Markdown and code files (three groups), one of them gone and one unchanged since indexed. */
    function folder() {
      const root = tempDir('trove-texts-');
      const files: Record<string, string> = {};
      for (let i = 0; i < 60; i++) files[`notes/n${i}.md`] = `---\ntags: [t${i % 3}]\n---\n# Note ${i}\n\n${'word '.repeat(50 + i * 40)}\n\n## Part\n\nend ${i}\n`;
      for (let i = 0; i < 10; i++) files[`src/m${i}.ts`] = `// module ${i}\nexport function f${i}(x: number) {\n  return x * ${i};\n}\n`;
      writeTree(root, files);
      fs.rmSync(path.join(root, 'notes', 'n7.md'));
      const stat = fs.statSync(path.join(root, 'notes', 'n8.md'));
      const known = {
        'notes/n8.md': { size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs), status: 'indexed', hash: sha(files['notes/n8.md']!) }, // unchanged stat: not even read
        'notes/n9.md': { size: 1, mtimeMs: 1, status: 'indexed', hash: sha(files['notes/n9.md']!) }, // touched, same bytes: read, not prepared
      } as const;
      return { root, files, known };
    }

    it('each file comes back read, in order, and prepared as it would be here; known bytes are not prepared again', async () => {
      const { root, files, known } = folder();
      const p = pool({ workers: 2 });
      const paths = Object.keys(files);
      const results = await p.readTexts({ root, maxFileBytes: 10_000_000, files: paths.map((path) => ({ path, known: known[path as keyof typeof known] })) });
      expect(results?.map((r) => r.read.path)).toEqual(paths);
      const byPath = new Map(results!.map((r) => [r.read.path, r]));
      expect(byPath.get('notes/n7.md')).toEqual({ read: { path: 'notes/n7.md', kind: 'missing' }, prepared: null });
      expect(byPath.get('notes/n8.md')).toMatchObject({ read: { kind: 'unchanged' }, prepared: null });
      expect(byPath.get('notes/n9.md')).toMatchObject({ read: { kind: 'bytes', hash: known['notes/n9.md'].hash }, prepared: null });
      for (const rel of ['notes/n0.md', 'notes/n59.md', 'src/m3.ts']) {
        const r = byPath.get(rel)!;
        expect(r.read).toMatchObject({ kind: 'bytes', hash: sha(files[rel]!), stat: { size: Buffer.byteLength(files[rel]!) } });
        expect(r.prepared).toEqual(prepareDocument(Buffer.from(files[rel]!), rel, DEFAULT_CHUNKING));
      }
      expect(byPath.get('notes/n59.md')!.prepared).toMatchObject({ ok: true, kind: 'markdown', title: 'Note 59', tags: ['t2'] });
      expect(p.workers).toBe(2);
    });

    it('a worker that cannot answer (its time limit, a closed pool) gives null: the caller reads the files itself', async () => {
      const { root, files } = folder();
      const job = { root, maxFileBytes: 10_000_000, files: Object.keys(files).map((path) => ({ path })) };
      expect(await pool({ workers: 1, timeoutMs: 1 }).readTexts(job)).toBeNull();
      const closed = pool({ workers: 1 });
      await closed.close();
      expect(await closed.readTexts(job)).toBeNull();
    });
  });
});
