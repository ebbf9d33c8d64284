// A batch of many text files is read and prepared in the parse workers, so the engine's thread
// only writes it: the index must be exactly the one the engine's thread makes on its own (a small
// batch's way), for new, changed and touched files; a worker that cannot answer loses nothing (the
// engine reads those files itself); and while searches come in, the files stay on the engine's
// thread. Real files, real workers, both backends.
import { afterEach, expect, it, vi } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { ParsePool } from '../../src-main/engine/ingest/parse-pool.js';
import { describeBackends, type TestBackend } from '../helpers/backends.js';
import { documentRecords } from '../helpers/index-rows.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

afterEach(() => vi.restoreAllMocks());

/** 45 notes and 5 code files: one batch, well past the worker threshold. */
function notes(version: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 45; i++) {
    files[`notes/${String(i).padStart(2, '0')}.md`] = `---\ntags: [topic${i % 4}]\n---\n# Note ${i} v${version}\n\n${`lorem ipsum dolor ${i} `.repeat(30 + i * 25)}\n\n## Details\n\nzebra${i} quartz${version}\n`;
  }
  for (let i = 0; i < 5; i++) files[`src/mod${i}.ts`] = `// module ${i}\nexport const value${i} = ${i};\n`;
  return files;
}

/** What a test compares: every row's fields that come from preparing the file, its chunks' ranges and headings. */
async function snapshot(b: TestBackend, engine: Engine) {
  const storage = await b.peek(engine);
  const rows = await documentRecords(storage);
  const out: Record<string, unknown> = {};
  for (const [path, d] of rows) {
    const chunks = await storage.chunks.forDocument(d.id);
    out[path] = { title: d.title, kind: d.kind, hash: d.hash, status: d.status, tags: d.tags, size: d.size, chunks: chunks.map((c) => [c.charStart, c.charEnd, c.lineStart, c.lineEnd, c.headingPath]) };
  }
  return out;
}

async function hits(engine: Engine, query: string): Promise<string[]> {
  return (await engine.search({ query, limit: 10 })).results.map((r) => `${r.path}#${r.score.toFixed(4)}`);
}

/** The notes written to a new folder. */
function notesRoot(): string {
  const root = tempDir('trove-root-');
  writeTree(root, notes(1));
  return root;
}

/** An engine of this backend with `root` added as "notes". */
async function engineOn(b: TestBackend, root: string, opts: Parameters<TestBackend['open']>[0]): Promise<Engine> {
  const engine = await b.open(opts);
  await engine.addCollection({ root, name: 'notes' });
  return engine;
}

describeBackends('text files prepared in the parse workers', (b) => {
  it('index the same as the engine thread does, for new, changed and touched files', async () => {
    const readTexts = vi.spyOn(ParsePool.prototype, 'readTexts');
    const root = notesRoot();
    const inWorkers = await engineOn(b, root, { indexing: { textsQuietMs: 0 } }); // this test's own searches do not hold the workers back
    const here = await engineOn(b, root, { indexing: { batchFiles: 8 } }); // batches under the threshold: read and prepared on the engine's thread

    const [first] = await inWorkers.index();
    expect(first).toMatchObject({ added: 50, failed: [], skipped: [] });
    expect(readTexts).toHaveBeenCalled();
    readTexts.mockClear();
    await here.index();
    expect(readTexts).not.toHaveBeenCalled();
    expect(await snapshot(b, inWorkers)).toEqual(await snapshot(b, here));
    expect(await hits(inWorkers, 'zebra17 lorem')).toEqual(await hits(here, 'zebra17 lorem'));

    // 40 notes changed, 5 rewritten with the same bytes (read again, not prepared again), the code untouched
    const next = notes(2);
    const again: Record<string, string> = {};
    for (const [p, text] of Object.entries(next)) if (p.startsWith('notes/')) again[p] = Number(p.slice(6, 8)) < 40 ? text : notes(1)[p]!;
    writeTree(root, again); // a later mtime than the first write's: both engines' runs came between
    const [second] = await inWorkers.index();
    expect(second).toMatchObject({ added: 0, updated: 40, unchanged: 10, failed: [] });
    expect(readTexts).toHaveBeenCalled();
    await here.index();
    expect(await snapshot(b, inWorkers)).toEqual(await snapshot(b, here));
    expect(await hits(inWorkers, 'quartz2')).toEqual(await hits(here, 'quartz2'));
    expect((await hits(inWorkers, 'quartz2')).length).toBe(10);
  }, 60_000);

  it('while searches come in, a batch\'s text files are read and prepared on the engine\'s thread', async () => {
    const readTexts = vi.spyOn(ParsePool.prototype, 'readTexts');
    const engine = await engineOn(b, notesRoot(), { indexing: { textsQuietMs: 600_000 } });
    await engine.search({ query: 'anything' });
    const [report] = await engine.index();
    expect(report).toMatchObject({ added: 50, failed: [] });
    expect(readTexts).not.toHaveBeenCalled();
    expect((await hits(engine, 'zebra17')).length).toBe(1);
  }, 60_000);

  it('a worker that cannot answer (its time limit) loses nothing: the engine reads and prepares the files itself', async () => {
    const readTexts = vi.spyOn(ParsePool.prototype, 'readTexts');
    const root = notesRoot();
    const stalled = await engineOn(b, root, { indexing: { parsing: { timeoutMs: 1 } } });
    const here = await engineOn(b, root, { indexing: { batchFiles: 8 } });
    const [report] = await stalled.index();
    expect(report).toMatchObject({ added: 50, failed: [], skipped: [] });
    expect(await Promise.all(readTexts.mock.results.map((r) => r.value))).toContain(null);
    await here.index();
    expect(await snapshot(b, stalled)).toEqual(await snapshot(b, here));
  }, 60_000);
});
