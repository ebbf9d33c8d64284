// One keyword index per collection kind (store/keyword-index.ts): a folder dataset's and the memory
// store's documents are written to and searched in their own keyword index, never in the folders',
// so their words neither turn up in document search nor move its term statistics — through the
// engine, on SQLite and on PostgreSQL.
import { expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

const KETTLE = { 'kettle.md': '# Kettle\n\nDescale the kettle with vinegar every month.\n', 'tea.md': '# Tea\n\nBoiled water for tea; vinegar never goes near it.\n' };
const MEMORY = 'The user prefers vinegar over citric acid for descaling the kettle.';
const PAPER = '# Scale\n\nLimescale forms where hard water is boiled; vinegar dissolves limescale in the kettle.\n';

/** What document search answers for a query: paths with their raw BM25 (term statistics move it). */
const answers = async (engine: Engine, query: string) =>
  (await engine.search({ query, explain: true })).results.map((h) => [h.path, (h.explain as { bm25: number }).bm25]);

describeBackends('keyword indexes per collection kind', (b) => {
  it('memory and folder-dataset words never reach document search nor move its scores; each kind finds its own', async () => {
    // the folders alone: the reference answers
    const { engine: alone } = await b.indexedFolder(KETTLE);
    const reference = { vinegar: await answers(alone, 'vinegar'), kettle: await answers(alone, 'kettle vinegar descale') };
    expect(reference.vinegar.map(([p]) => p).sort()).toEqual(['kettle.md', 'tea.md']);

    // the same folder, with a memory entry and a folder dataset that share its words
    const { engine } = await b.indexedFolder(KETTLE);
    const holder = tempDir('trove-datasets-');
    writeTree(holder, {
      'papers/manifest.json': JSON.stringify({ id: 'papers', name: 'Papers', description: 'Water chemistry', index: './docs', kind: 'folder' }),
      'papers/docs/paper.md': PAPER,
    });
    await engine.datasets.addFolder(holder);
    await engine.datasets.settled();
    await engine.index({ dataset: 'papers' });
    const { id } = await engine.memory.store({ threadId: 'home', source: 'user', text: MEMORY });

    expect((await engine.memory.search({ query: 'vinegar', mode: 'keyword' })).hits.map((h) => h.entry.id)).toEqual([id]);
    expect((await engine.datasets.search('papers', 'vinegar limescale', { mode: 'keyword' })).results.map((r) => r.ref)).toEqual(['paper.md']);
    expect(await answers(engine, 'vinegar')).toEqual(reference.vinegar);
    expect(await answers(engine, 'kettle vinegar descale')).toEqual(reference.kettle);
    expect((await engine.search({ query: 'limescale citric' })).results).toEqual([]); // words only the other kinds have

    // a memory entry deleted goes from memory search only
    await engine.memory.delete({ ids: [id] });
    expect((await engine.memory.search({ query: 'vinegar', mode: 'keyword' })).hits).toEqual([]);
    expect(await answers(engine, 'vinegar')).toEqual(reference.vinegar);
    expect((await engine.datasets.search('papers', 'vinegar', { mode: 'keyword' })).results.map((r) => r.ref)).toEqual(['paper.md']);
  });
});
