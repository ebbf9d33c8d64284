// The embedding model reads a Markdown chunk as prose (text/markdown-prose.ts) and any other
// chunk as its text, on SQLite and PostgreSQL: the same words in page.md and page.txt get the
// vectors of different model inputs, and a chunk whose prose equals another's text shares its vector.
import { afterAll, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { markdownProse } from '../../src-main/engine/text/markdown-prose.js';
import { describeBackends, type TestBackend } from '../helpers/backends.js';
import { removeTempDirs } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

afterAll(() => removeTempDirs());

const page = [
  'Call [the sorting routine](../algorithms/sort-function.md) with **two** iterators, as `std::sort` does.',
  '',
  '| Name | Meaning |',
  '|--|--|',
  '| first | where the range starts |',
  '| last | one past its end |',
].join('\n');

const embedOpts = { embeddings: { modelsDir, workers: 1 } };

/** The cosine of each file's chunk to a vector query for `text`. */
async function cosines(engine: Engine, text: string): Promise<Record<string, number>> {
  const hits = (await engine.search({ query: text, mode: 'vector', minScore: 0, limit: 10, explain: true })).results;
  return Object.fromEntries(hits.map((h) => [h.path, (h.explain as { cosine: number }).cosine]));
}

/** The one chunk's text of a file, as stored. */
async function chunkText(b: TestBackend, engine: Engine, path: string): Promise<string> {
  const s = await b.peek(engine);
  const c = (await s.collections.get('notes'))!;
  const doc = (await s.documents.byPath(c.id, path))!;
  const [chunk, ...more] = await s.chunks.forDocument(doc.id);
  expect(more).toEqual([]);
  return (await s.documents.content(doc.id))!.slice(chunk!.charStart, chunk!.charEnd);
}

describeBackends('a Markdown chunk is embedded as its prose', (b) => {
  it('gives page.md the vector of its prose and page.txt the vector of its text', async () => {
    const { engine } = await b.indexedFolder({ 'page.md': page, 'page.txt': page, 'prose.txt': markdownProse(page) }, 'notes', embedOpts);
    const progress: { reused?: number }[] = [];
    await engine.embed({ onProgress: (p) => progress.push(p) });
    const md = await chunkText(b, engine, 'page.md');
    const txt = await chunkText(b, engine, 'page.txt');
    expect(md).toBe(txt); // the same words: only how the model reads them differs
    expect(markdownProse(md)).not.toBe(md);

    const byProse = await cosines(engine, markdownProse(md));
    expect(byProse['page.md']).toBeCloseTo(1, 4);
    expect(byProse['prose.txt']).toBe(byProse['page.md']);
    expect(byProse['page.txt']).toBeLessThan(0.99);

    const bySource = await cosines(engine, txt);
    expect(bySource['page.txt']).toBeCloseTo(1, 4);
    expect(bySource['page.md']).toBeLessThan(0.99);
    // prose.txt's text is page.md's model input: one of the two was a copy, not a model run
    expect(progress.at(-1)?.reused).toBe(1);
  });
});
