// A page of hits reads its documents as hits show them (Storage.documents.forHits): the result's
// fields and, of the metadata, only the recognised pages' OCR confidence. SQLite keeps that
// confidence in a column of its own beside the metadata (store/documents.ts OCR_CONFIDENCE), so
// every write of a document's metadata must carry it along and the migration that added the column
// must fill it for a profile written before: a file edited to gain or lose it, a memory entry
// imported and updated with it, and an older profile opened.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { Engine as EngineClass } from '../../src-main/engine/index.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { Storage } from '../../src-main/engine/store/storage.js';
import { describeBackends } from '../helpers/backends.js';
import { profileBefore } from '../helpers/older-profile.js';
import { removeTempDirs } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

const SCANNED = '---\ntitle: Scanned letter\nocr:\n  engine: test\n  confidence:\n    "1": 87\n    "2": 64\n---\n# Scanned letter\n\nquillfeather appears here\n';
const PLAIN = '# Plain note\n\nquillfeather appears here too\n';

describeBackends('the documents of a page of hits', (b) => {
  let engine: Engine;
  let root: string;
  let storage: Storage;
  beforeAll(async () => {
    ({ engine, root } = await b.indexedFolder({ 'scanned.md': SCANNED, 'plain.md': PLAIN }));
    storage = await b.peek(engine);
  });

  const idOf = async (collection: string, p: string): Promise<number> => {
    const c = (await storage.collections.list()).find((x) => x.name === collection)!;
    return (await storage.documents.byPaths(c.id, [p])).get(p)!.id;
  };
  const confidence = async (id: number) => (await storage.documents.forHits([id])).get(id)!.ocrConfidence;

  it('carry the OCR confidence its metadata has, and follow a file edited to lose or gain it', async () => {
    const scanned = await idOf('notes', 'scanned.md');
    const plain = await idOf('notes', 'plain.md');
    expect(await confidence(scanned)).toEqual({ 1: 87, 2: 64 });
    expect(await confidence(plain)).toBeNull();
    const hits = await engine.search({ query: 'quillfeather', mode: 'keyword', limit: 5 });
    expect(hits.results.map((r) => r.path).sort()).toEqual(['plain.md', 'scanned.md']);

    fs.writeFileSync(path.join(root, 'scanned.md'), PLAIN.replace('Plain note', 'Scanned letter'));
    fs.writeFileSync(path.join(root, 'plain.md'), SCANNED.replace(/"2": 64/, '"2": 12').replace('Scanned letter', 'Plain note'));
    await engine.index();
    expect(await idOf('notes', 'scanned.md')).toBe(scanned); // edited in place, the same row
    expect(await confidence(scanned)).toBeNull();
    expect(await confidence(plain)).toEqual({ 1: 87, 2: 12 });
  });

  it('carry it for a memory entry imported with it and follow an update of its metadata', async () => {
    const entry = { thread_id: 't', source: 'agent', text: 'a recognised page, quillfeather', created_at: '2025-11-28T10:00:00Z', metadata: { ocr: { confidence: { 3: 55 } } } };
    expect(await engine.memory.import([entry])).toEqual({ imported: 1, skipped: 0 });
    const [listed] = (await engine.memory.list({ limit: 5 })).entries;
    const doc = (await storage.documents.byDocid(`m${listed!.id}`))!.id; // a memory entry's document (store/sqlite/memory.ts)
    expect(await confidence(doc)).toEqual({ 3: 55 });
    await engine.memory.update({ id: listed!.id, metadata: { ocr: { confidence: { 3: 71 } } } });
    expect(await confidence(doc)).toEqual({ 3: 71 });
    await engine.memory.update({ id: listed!.id, metadata: { note: 'no pages' } });
    expect(await confidence(doc)).toBeNull();
  });
});

describe('the migration that gives documents their OCR confidence column (SQLite)', () => {
  it('fills it from the metadata of every document written before', async () => {
    const { profile, file, db, folder, addDocument } = profileBefore('ADD COLUMN ocr_confidence');
    const metadata = {
      'scan.pdf': { ocr: { engine: 'x', confidence: { 1: 91, 4: 40 } } },
      'notes.pdf': { author: 'someone', pages: 3 },
      'quoted.pdf': { title: 'about "ocr" in a title' }, // names "ocr" without holding a confidence
    };
    const ids = new Map(Object.entries(metadata).map(([p, m], i) => [p, addDocument(folder, p, `d${i}`, { kind: 'pdf', metadata: m })]));
    db.close();

    const engine = await EngineClass.open({ profileDir: profile });
    await engine.close();
    const storage = SqliteStorage.open(file);
    try {
      const docs = await storage.documents.forHits([...ids.values()]);
      expect(docs.get(ids.get('scan.pdf')!)!.ocrConfidence).toEqual({ 1: 91, 4: 40 });
      expect(docs.get(ids.get('notes.pdf')!)!.ocrConfidence).toBeNull();
      expect(docs.get(ids.get('quoted.pdf')!)!.ocrConfidence).toBeNull();
    } finally {
      await storage.close();
    }
  });
});
