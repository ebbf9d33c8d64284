// Champion lists (search/champion-lists.ts) answer a step over common words exactly as the step's
// statement does — the same chunks, the same order (ties by chunk id), the same BM25 to the bit —
// or decline and leave it to the statement; on both backends. The thresholds are lowered so that a
// small generated folder has "common" words and lists cut short enough for the bounds to matter.
import { expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ChampionLists, type StepRunner } from '../../src-main/engine/search/champion-lists.js';
import { KeywordSearch } from '../../src-main/engine/search/keyword-search.js';
import { PageAnchors } from '../../src-main/engine/search/page-anchors.js';
import { keywordTerm, parseQuery } from '../../src-main/engine/search/query.js';
import type { KeywordCounts, KeywordStep, PlannedKeywordTerm, Storage } from '../../src-main/engine/store/storage.js';
import { describeBackends } from '../helpers/backends.js';

const WORDS = ['kettle', 'harbor', 'lantern', 'copper', 'meadow', 'signal', 'orchard', 'basalt', 'thimble', 'quarry', 'walnut', 'ferry'];
const FILLER = 'alpha bravo delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa romeo sierra tango uniform victor whiskey xray yankee zulu'.split(' ');

/**
 * Notes of filler words with one topic word per section (Zipf-like: the first words are in a third
 * of the chunks, the last in a few), repeated 1–4 times; topic words in some titles and headings;
 * lengths from a line to a page; and exact copies (ties).
 */
function notes(): Record<string, string> {
  let seed = 29;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const weights = WORDS.map((_, r) => 1 / (r + 2));
  const total = weights.reduce((a, w) => a + w, 0);
  const topic = () => {
    let x = rand() * total;
    for (const [r, w] of weights.entries()) if ((x -= w) <= 0) return WORDS[r]!;
    return WORDS.at(-1)!;
  };
  const filler = (n: number) => Array.from({ length: n }, () => FILLER[Math.floor(rand() * FILLER.length)]).join(' ');
  const section = (s: number) => {
    const t = topic();
    const words = filler(3 + Math.floor(rand() * 50)).split(' ');
    for (let k = 1 + Math.floor(rand() * 4); k > 0; k--) words.splice(Math.floor(rand() * words.length), 0, t);
    return `## ${rand() < 0.3 ? t : filler(1)} part ${s}\n\n${words.join(' ')}.\n`;
  };
  const out: Record<string, string> = {};
  for (let i = 0; i < 160; i++) out[`n${i}.md`] = `# ${rand() < 0.2 ? topic() : filler(1)} ${filler(1)}\n\n${Array.from({ length: 1 + (i % 4) }, (_, s) => section(s)).join('\n')}`;
  for (let c = 0; c < 6; c++) out[`copy${c}.md`] = '# kettle harbor\n\nkettle harbor lantern kettle.\n';
  return out;
}

async function planned(storage: Storage, query: string): Promise<PlannedKeywordTerm[]> {
  const parsed = parseQuery(query, 'match');
  if (parsed.kind !== 'terms') throw new Error(query);
  const repo = storage.keyword('chunks_fts');
  return Promise.all(parsed.terms.map(async (t) => ({ ...keywordTerm(t), df: await repo.documentFrequency(keywordTerm(t)) })));
}

const QUERIES = [...WORDS.slice(0, 6), 'kettle harbor', 'kettle lantern', 'harbor copper', 'lantern meadow', 'kettle harbor lantern', 'harbor lantern copper signal', 'copper meadow signal'];

function runner(storage: Storage, counts: KeywordCounts): StepRunner {
  const repo = storage.keyword('chunks_fts');
  return { top: (s, limit) => repo.candidates(s, {}, limit, counts), score: (s, ids) => repo.scoreChunks(s, ids, counts) };
}

/** Counts the pages the lists settled. */
class CountingLists extends ChampionLists {
  served = 0;
  override async top(...args: Parameters<ChampionLists['top']>): ReturnType<ChampionLists['top']> {
    const page = await super.top(...args);
    if (page) this.served++;
    return page;
  }
}

describeBackends('champion lists', (b) => {
  it('give the statement’s exact page for a common word or an AND of them, or decline', async () => {
    const { engine } = await b.indexedFolder(notes());
    const storage = await b.peek(engine);
    const repo = storage.keyword('chunks_fts');
    const counts = await repo.counts();
    let served = 0;
    let declined = 0;
    let doubtful = 0;
    let batches = 0;
    // (rows in doubt scored two at a time: the bar rises between calls)
    for (const listRows of [4, 16, 64]) {
      const lists = new ChampionLists({ commonDf: 1, listRows, doubtBatch: 2 });
      const plain = runner(storage, counts);
      // rows the bounds left in doubt, scored by the storage
      const run: StepRunner = { top: plain.top, score: (s, ids) => ((doubtful += ids.length), batches++, plain.score(s, ids)) };
      for (const query of QUERIES) {
        const step: KeywordStep = { op: 'and', terms: await planned(storage, query) };
        for (const limit of [1, 3, 10, 40]) {
          const truth = await repo.candidates(step, {}, limit, counts);
          // the first sight of a word makes no list; each later sight of the step makes one of its missing lists
          const sights = 1 + step.terms.length;
          for (let pass = 1; pass <= sights; pass++) {
            const page = await lists.top(step, {}, limit, counts, 1, run);
            if (page) expect(page, `${query} limit ${limit} lists of ${listRows}`).toEqual(truth);
            if (pass === sights) page ? served++ : declined++;
          }
        }
      }
      lists.clear();
    }
    // both ways are exercised: lists settle some pages and decline others
    expect(served).toBeGreaterThan(20);
    expect(declined).toBeGreaterThan(5);
    expect(doubtful).toBeGreaterThan(0);
    expect(batches).toBeGreaterThan(1);
    expect(batches).toBeGreaterThanOrEqual(doubtful / 2); // two at a time
  });

  it('leave a filtered step, an OR of several words and a prefix to the statement', async () => {
    const { engine } = await b.indexedFolder(notes());
    const storage = await b.peek(engine);
    const repo = storage.keyword('chunks_fts');
    const counts = await repo.counts();
    const lists = new ChampionLists({ commonDf: 1, listRows: 100_000 }); // complete lists: every page is settled
    const terms = await planned(storage, 'kettle harbor');
    const run = runner(storage, counts);
    const steps: [KeywordStep, Parameters<ChampionLists['top']>[1]][] = [
      [{ op: 'and', terms }, { kinds: ['markdown'] }],
      [{ op: 'or', terms }, {}],
      [{ op: 'and', terms: [{ ...terms[0]!, prefix: true }] }, {}],
    ];
    for (const [step, filters] of steps) for (let i = 0; i < 3; i++) expect(await lists.top(step, filters, 10, counts, 1, run)).toBeNull();
    // the same words unfiltered: declined on first sight (no list is made for a word seen once) and
    // while the second word's list is missing (one list made a search), then served
    expect(await lists.top({ op: 'and', terms }, {}, 10, counts, 1, run)).toBeNull();
    expect(await lists.top({ op: 'and', terms }, {}, 10, counts, 1, run)).toBeNull();
    expect(await lists.top({ op: 'and', terms }, {}, 10, counts, 1, run)).toEqual(await repo.candidates({ op: 'and', terms }, {}, 10, counts));
  });

  it('leave keyword search’s pages as they were: documents, anchors, scores and BM25', async () => {
    const { engine } = await b.indexedFolder(notes());
    const storage = await b.peek(engine);
    const lists = new CountingLists({ commonDf: 1, listRows: 64 }); // the search asks for 40–150 rows: some pages settle, some not
    const withLists = new KeywordSearch(storage, new PageAnchors(storage), 'chunks_fts', lists);
    const without = new KeywordSearch(storage, new PageAnchors(storage), 'chunks_fts', new ChampionLists({ commonDf: Infinity, listRows: 16 }));
    for (const query of QUERIES) {
      for (const [limit, offset] of [[5, 0], [10, 10], [3, 30]] as const) {
        const req = { query, syntax: 'match' as const, limit, offset, snippetChars: 80, explain: false, filters: {} };
        const expected = await without.rank(req, 1);
        for (let pass = 0; pass < 4; pass++) expect(await withLists.rank(req, 1), `${query} ${limit}@${offset}`).toEqual(expected);
      }
    }
    expect(lists.served).toBeGreaterThan(5);
  });

  it('start over in a new index generation: a changed index is answered as it is now', async () => {
    const { engine, root } = await b.indexedFolder(notes());
    const storage = await b.peek(engine);
    const repo = storage.keyword('chunks_fts');
    const lists = new CountingLists({ commonDf: 1, listRows: 100_000 });
    let counts = await repo.counts();
    const page = async (generation: number) => {
      const run = runner(storage, counts);
      const step: KeywordStep = { op: 'and', terms: await planned(storage, 'kettle harbor') };
      for (let sight = 0; sight < 2; sight++) expect(await lists.top(step, {}, 5, counts, generation, run)).toBeNull();
      return { served: await lists.top(step, {}, 5, counts, generation, run), truth: await repo.candidates(step, {}, 5, counts) };
    };
    const before = await page(1);
    expect(before.served).toEqual(before.truth);
    // a note that outranks every other for both words, and the copies gone
    fs.writeFileSync(path.join(root, 'best.md'), '# kettle harbor\n\nkettle harbor.\n');
    for (let c = 0; c < 6; c++) fs.rmSync(path.join(root, `copy${c}.md`));
    await engine.index();
    counts = await repo.counts();
    const after = await page(2);
    expect(after.served).toEqual(after.truth);
    expect(after.truth.map((r) => r.chunkId)).not.toEqual(before.truth.map((r) => r.chunkId));
    expect(lists.served).toBe(2); // the new generation's first sights were declined: its lists were made anew
  });
});
