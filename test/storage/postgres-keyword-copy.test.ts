// PostgreSQL's keyword rows and postings written by COPY (a batch's many rows, copy-rows.ts and
// postings.ts) are the rows INSERT … unnest writes (a few rows: a memory entry's): a batch of real
// prepared pages, large enough for COPY in both tables, is written through a claimed batch; the
// same chunks are then written one at a time into a second keyword index of the same schema (and
// all at once, on a pool connection of COPY's own, into a third), and the indexes must hold the
// same tsvectors, lengths and postings. (Their ranking against FTS5 is keyword-ranking.test.ts's.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import type { ChunkWrite } from '../../src-main/engine/store/chunks.js';
import type { DocumentWrite } from '../../src-main/engine/store/documents.js';
import { COPY_FROM_ROWS, copyText } from '../../src-main/engine/store/postgres/copy-rows.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import type { IndexWrite } from '../../src-main/engine/store/storage.js';
import { freshDatabase } from '../helpers/postgres.js';

const WORDS = ['retry', 'backoff', 'jitter', 'café', 'naïve', 'the', 'index', 'query_plan', 'v2.1', 'résumé', '全文检索', '東京の天気', "it's", 'C:\\temp\\x', 'tab\there'];

/** Pages of many sections (so many chunks), words drawn from a seeded generator. */
function pages(): Record<string, string> {
  let seed = 28;
  const pick = () => WORDS[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % WORDS.length]!;
  // a word of each section's own, so the batch has more distinct terms than COPY_FROM_ROWS (its postings rows go by COPY too)
  const section = (p: number, i: number) => `## ${pick()} ${i}\n\n${Array.from({ length: 30 + (i % 40) }, pick).join(' ')} u${p}s${i}.\n\n`;
  return Object.fromEntries(Array.from({ length: 24 }, (_, p) => [`p${p}.md`, `# ${pick()} page ${p}\n\n${Array.from({ length: 40 }, (_, i) => section(p, i)).join('')}`]));
}

let s: PostgresStorage;
const chunksOf = new Map<string, readonly ChunkWrite[]>();

beforeAll(async () => {
  s = await PostgresStorage.open(await freshDatabase('kwcopy', { migrated: true }));
  const c = await s.collections.insert({ name: 'kw', root: '/kw', include: ['**/*'], exclude: [], context: '' });
  const writes: IndexWrite[] = Object.entries(pages()).map(([p, text], i) => {
    const prepared = prepareDocument(Buffer.from(text), p, DEFAULT_CHUNKING);
    if (!prepared.ok) throw new Error(`${p}: ${prepared.reason}`);
    chunksOf.set(p, prepared.chunks);
    const document: DocumentWrite = {
      collectionId: c.id, path: p, docid: `k${i}abc`, title: prepared.title, kind: prepared.kind, size: text.length, mtimeMs: i, hash: null, status: 'indexed', error: null, tags: [], metadata: {},
    };
    return { op: 'index', document, text: prepared.text, chunks: prepared.chunks };
  });
  await s.jobs.recordEvents(Object.keys(pages()).map((p) => ({ collectionId: c.id, kind: 'file' as const, path: p, priority: 0, changedAt: 1, gone: false, runAt: 0 })));
  const claim = (await s.jobs.claim(Date.now(), 1000))!;
  await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 1, writes }, retire: claim.jobs });
});

afterAll(async () => {
  await s?.close();
});

describe('PostgreSQL keyword rows by COPY', () => {
  it('writes a batch by COPY exactly as rows written one statement each', async () => {
    const chunks = await s.db.query<{ id: number; path: string; ordinal: number }>(
      'SELECT c.id::int AS id, d.path, c.ordinal FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id',
    );
    expect(chunks.length).toBeGreaterThanOrEqual(COPY_FROM_ROWS); // the batch's keyword rows went by COPY
    const rowsOf = chunks.map(({ id, path, ordinal }) => {
      const c = chunksOf.get(path)!.find((x) => x.ordinal === ordinal)!;
      return { id, title: c.ftsTitle, headings: c.ftsHeadings, body: c.ftsBody };
    });
    // one statement a chunk (INSERT … unnest) into a second index of the same schema
    for (const row of rowsOf) await s.keyword('dataset_fts').write([row], s.db.pool);
    // all at once given the pool, not a transaction's connection: COPY on a connection of its own
    await s.keyword('memory_fts').write(rowsOf, s.db.pool);
    const rows = (index: string) => s.db.query(`SELECT chunk_id::int AS id, tsv::text AS tsv, len FROM ${index} ORDER BY chunk_id`);
    const postings = (index: string) =>
      s.db.query(`SELECT p.term, (p.lo + u.d)::int AS id, u.f, u.len FROM ${index}_postings p CROSS JOIN LATERAL unnest(p.d, p.f, p.len) u(d, f, len) ORDER BY 1, 2`);
    const [copied, inserted] = [await rows('chunks_fts'), await rows('dataset_fts')];
    expect(copied.length).toBe(chunks.length);
    expect(copied).toEqual(inserted);
    const [copiedPostings, insertedPostings] = [await postings('chunks_fts'), await postings('dataset_fts')];
    expect(copiedPostings.length).toBeGreaterThan(chunks.length * 5);
    expect(new Set(copiedPostings.map((p) => p.term)).size).toBeGreaterThanOrEqual(COPY_FROM_ROWS); // the postings rows went by COPY
    expect(copiedPostings).toEqual(insertedPostings);
    expect(await rows('memory_fts')).toEqual(copied);
    expect(await postings('memory_fts')).toEqual(copiedPostings);
    expect(copiedPostings.some((p) => p.term === 'café' || p.term === 'cafe')).toBe(true);
  });

  it('escapes what COPY’s text format reads as a separator or an escape', () => {
    expect(copyText('plain')).toBe('plain');
    expect(copyText('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
  });
});
