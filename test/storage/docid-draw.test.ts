// A batch read ahead draws its new documents' docids before the batch ahead of it is written, so
// two batches in flight can draw the same one (at 100,000 files a run did: "UNIQUE constraint
// failed: documents.docid"). On SQLite the one writer gives the later document a fresh docid; the
// first keeps its own. (PostgreSQL's hosts write concurrently: there the unique violation sends
// the batch back to be claimed again, indexing-service.ts `collided`.)
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import type { CollectionRow } from '../../src-main/engine/store/collections.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { IndexWrite } from '../../src-main/engine/store/storage.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

function write(c: CollectionRow, path: string, text: string, docid: string, existingId?: number): IndexWrite {
  const p = prepareDocument(Buffer.from(text), path, DEFAULT_CHUNKING);
  if (!p.ok) throw new Error(p.reason);
  return {
    op: 'index',
    document: { collectionId: c.id, path, docid, title: p.title, kind: p.kind, size: text.length, mtimeMs: 1000, hash: `h-${path}`, status: 'indexed', error: null, tags: [], metadata: {} },
    existingId,
    text: p.text,
    chunks: p.chunks,
  };
}

describe('docids drawn for two batches in flight [sqlite]', () => {
  it('gives the later new document a fresh docid when the batch ahead took the same one', async () => {
    const s = SqliteStorage.open(`${tempDir('trove-docid-')}/index.sqlite`);
    try {
      const c = await s.collections.insert({ name: 'notes', root: '/data/notes', include: ['**/*.md'], exclude: [], context: '' });
      await s.jobs.recordEvents(['a.md', 'b.md'].map((path) => ({ collectionId: c.id, kind: 'file' as const, path, priority: 0, changedAt: 1, gone: false, runAt: 0 })));
      // both batches claimed (and their docids drawn) before either is written
      const first = (await s.jobs.claim(Date.now(), 1))!;
      const second = (await s.jobs.claim(Date.now(), 1))!;
      const [pa, pb] = [first.jobs[0]!.path, second.jobs[0]!.path];
      const at = Date.now();
      await first.complete({ write: { collectionId: c.id, index: 'chunks_fts', at, writes: [write(c, pa, '# Alpha\n\nAbout moraines.\n', 'abc123')] }, retire: first.jobs });
      await second.complete({ write: { collectionId: c.id, index: 'chunks_fts', at, writes: [write(c, pb, '# Beta\n\nAbout drumlins.\n', 'abc123')] }, retire: second.jobs });
      const a = (await s.documents.byPath(c.id, pa))!;
      const b = (await s.documents.byPath(c.id, pb))!;
      expect(a.docid).toBe('abc123');
      expect(b.docid).toMatch(/^[0-9a-f]{6}$/);
      expect(b.docid).not.toBe('abc123');
      expect((await s.documents.byDocid(b.docid))?.path).toBe(pb);
      // a document written again keeps its docid, whatever the write drew
      await s.jobs.recordEvents([{ collectionId: c.id, kind: 'file', path: pb, priority: 0, changedAt: 2, gone: false, runAt: 0 }]);
      const again = (await s.jobs.claim(Date.now(), 1))!;
      await again.complete({ write: { collectionId: c.id, index: 'chunks_fts', at, writes: [write(c, pb, '# Beta\n\nAbout eskers.\n', 'abc123', b.id)] }, retire: again.jobs });
      expect((await s.documents.byPath(c.id, pb))?.docid).toBe(b.docid);
    } finally {
      await s.close();
    }
  });
});
