// bench:scale's corpus generator: the same seed draws the same documents (and a smaller corpus is
// the start of a larger one), the mix follows its shares, no two documents are the same file, and
// a corpus it writes — PDFs printed by Chromium, Office files — is indexed by the real engine whole.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildScaleCorpus, corpusFolder, KIND_SHARES, planDocument, questionsFor, readManifest, type ScaleKind } from '../../bench/lib/scale-corpus.js';
import { openScaleEngine } from '../../bench/lib/scale-engine.js';
import { sourcesFrom } from '../../bench/lib/scale-sources.js';
import { chromiumForTests } from '../helpers/chromium.js';
import { openEngine } from '../helpers/engine.js';
import { tempDir } from '../helpers/tmp.js';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/powershell');
const markdown = fs
  .readdirSync(fixtures)
  .filter((f) => f.endsWith('.md') && f !== 'SOURCE.md')
  .sort()
  .map((rel) => ({ corpus: 'powershell-docs', rel: `reference/${rel}`, md: fs.readFileSync(path.join(fixtures, rel), 'utf8') }));
const abstracts = [
  { title: 'Glacier retreat in the Alps', text: 'Measurements over twenty years show the glacier front retreating forty metres a year.' },
  { title: 'Sleep and memory consolidation', text: 'Slow-wave sleep improves the recall of word pairs learned the evening before.' },
  { title: 'Vitamin D and bone density', text: 'Supplements raised bone density in older adults with low serum levels.' },
];
const claims = ['Glaciers in the Alps are retreating.', 'Sleep improves memory.', 'Vitamin D raises bone density.'];
const sources = sourcesFrom(markdown, abstracts, claims);

describe('bench:scale corpus', () => {
  it('draws document i from the seed and i alone', () => {
    const a = planDocument(sources, 29, 17);
    expect(planDocument(sources, 29, 17)).toEqual(a);
    const other = Array.from({ length: 20 }, (_, i) => planDocument(sources, 30, i));
    expect(other).not.toEqual(Array.from({ length: 20 }, (_, i) => planDocument(sources, 29, i)));
    expect(questionsFor(sources, 29, 1000, 50)).toEqual(questionsFor(sources, 29, 1000, 50));
  });

  it('follows the shares and never writes the same file twice', () => {
    const n = 4000;
    const docs = Array.from({ length: n }, (_, i) => planDocument(sources, 29, i));
    const counts = new Map<ScaleKind, number>();
    for (const d of docs) counts.set(d.kind, (counts.get(d.kind) ?? 0) + 1);
    for (const [kind, share] of KIND_SHARES) expect(Math.abs((counts.get(kind) ?? 0) / n - share), kind).toBeLessThan(0.02);
    expect(new Set(docs.map((d) => d.path)).size).toBe(n);
  });

  it('counts the copies it writes (a pool this small repeats; the bench corpora hardly do)', async () => {
    const documents = 300;
    const docs = Array.from({ length: documents }, (_, i) => planDocument(sources, 29, i));
    const manifest = await buildScaleCorpus({ sources, cacheDir: tempDir('trove-scale-'), documents, seed: 29, questions: 5, chromium: chromiumForTests() });
    expect(manifest.duplicates).toBe(documents - new Set(docs.map((d) => d.text)).size);
  });

  it('writes a corpus the engine indexes whole, and reuses it', async () => {
    const cacheDir = tempDir('trove-scale-');
    const documents = 60;
    const manifest = await buildScaleCorpus({ sources, cacheDir, documents, seed: 29, questions: 20, chromium: chromiumForTests() });
    expect(Object.values(manifest.kinds).reduce((a, b) => a + b, 0)).toBe(documents);
    expect(manifest.kinds.pdf + manifest.kinds.docx + manifest.kinds.pptx + manifest.kinds.xlsx).toBeGreaterThan(0);
    expect(manifest.questions).toHaveLength(20);
    expect(readManifest(cacheDir, documents, 29)).toEqual(manifest);
    expect(readManifest(cacheDir, documents, 30)).toBeNull();

    const engine = await openEngine();
    await engine.addCollection({ root: corpusFolder(cacheDir), name: 'scale' });
    const [report] = await engine.index();
    expect(report!.failed).toEqual([]);
    expect(report!.skipped).toEqual([]);
    expect(report!.added).toBe(documents);
    await engine.close();

    const scale = await openScaleEngine(engine.profileDir);
    try {
      expect(scale.documents).toBe(documents);
      const hits = await scale.search(manifest.questions.find((q) => !claims.includes(q))!, 'keyword');
      expect(hits.results.length).toBeGreaterThan(0);
    } finally {
      await scale.close();
    }
  });
});
