// PostgreSQL's postings rows (one per term and written run of chunks, store/postgres/postings.ts)
// stay exactly the keyword rows' terms through every way a keyword row goes: documents re-indexed
// (their chunks replaced in one statement), removed (a cascade from documents), keyword rows
// deleted and written again for the same chunks (a memory entry retitled: rows that overlap), and
// a database written before this layout, migrated. After each, every (term, chunk) posting is a
// lexeme of that chunk's tsvector and every lexeme has its posting, once, with the f and length it
// was written with; no row is empty, and each row's bounds and counts hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import type { DocumentWrite } from '../../src-main/engine/store/documents.js';
import { COPY_FROM_ROWS } from '../../src-main/engine/store/postgres/copy-rows.js';
import { postgresMigrations } from '../../src-main/engine/store/postgres/migrations.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import type { IndexWrite } from '../../src-main/engine/store/storage.js';
import { freshDatabase } from '../helpers/postgres.js';

const WORDS = ['retry', 'backoff', 'jitter', 'café', 'naïve', 'the', 'index', 'query_plan', 'v2.1', 'résumé', '全文检索', "it's", 'C:\\temp\\x', 'tab\there', 'queue', 'lease'];
const INDEXES = ['chunks_fts', 'dataset_fts', 'memory_fts'] as const;

function page(p: number, salt: number): string {
  let seed = 28 + p * 7 + salt;
  const pick = () => WORDS[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % WORDS.length]!;
  const section = (i: number) => `## ${pick()} ${i}\n\n${Array.from({ length: 20 + (i % 30) }, pick).join(' ')} w${p}x${salt} q${p}s${i}x${salt}.\n\n`;
  return `# ${pick()} page ${p}\n\n${Array.from({ length: 30 }, (_, i) => section(i)).join('')}`;
}

let url: string;
let s: PostgresStorage;
let collectionId: number;

function indexWrite(p: number, salt: number, existingId?: number): IndexWrite {
  const text = page(p, salt);
  const prepared = prepareDocument(Buffer.from(text), `p${p}.md`, DEFAULT_CHUNKING);
  if (!prepared.ok) throw new Error(prepared.reason);
  const document: DocumentWrite = {
    collectionId, path: `p${p}.md`, docid: `p${p}doc`, title: prepared.title, kind: prepared.kind, size: text.length, mtimeMs: salt, hash: null, status: 'indexed', error: null, tags: [], metadata: {},
  };
  return { op: 'index', document, text: prepared.text, chunks: prepared.chunks, existingId };
}

/** Writes one batch through a claim, as the indexing service does. */
async function batch(writes: IndexWrite[]): Promise<void> {
  const paths = writes.map((w) => ('document' in w ? w.document.path : 'path' in w ? w.path : ''));
  await s.jobs.recordEvents(paths.map((p) => ({ collectionId, kind: 'file' as const, path: p, priority: 0, changedAt: Date.now(), gone: false, runAt: 0 })));
  const claim = (await s.jobs.claim(Date.now(), 1000))!;
  await claim.complete({ write: { collectionId, index: 'chunks_fts', at: Date.now(), writes }, retire: claim.jobs });
}

const idOf = async (p: number): Promise<number> => (await s.db.query<{ id: number }>('SELECT id::int AS id FROM documents WHERE path = $1', [`p${p}.md`]))[0]!.id;

type Posting = { term: string; id: number; f: number; len: number };
const postings = (index: string): Promise<Posting[]> =>
  s.db.query<Posting>(`SELECT p.term, (p.lo + u.d)::int AS id, u.f, u.len FROM ${index}_postings p CROSS JOIN LATERAL unnest(p.d, p.f, p.len) u(d, f, len) ORDER BY 1, 2`);

/** The postings are exactly the keyword rows' lexemes, with their lengths; the rows' own invariants hold. */
async function expectExact(index: string): Promise<Posting[]> {
  const got = await postings(index);
  const want = await s.db.query<{ term: string; id: number; len: number }>(
    `SELECT x.term COLLATE "C" AS term, k.chunk_id::int AS id, k.len FROM ${index} k CROSS JOIN LATERAL unnest(tsvector_to_array(k.tsv)) x(term) ORDER BY 1, 2`,
  );
  expect(got.map(({ term, id, len }) => ({ term, id, len }))).toEqual(want);
  const broken = await s.db.query(
    `SELECT term, lo FROM ${index}_postings
      WHERE n = 0 OR n <> cardinality(d) OR n <> cardinality(f) OR n <> cardinality(len) OR d[1] < 0 OR hi <> lo + d[n] OR hi - lo >= 2147483647
         OR d <> (SELECT array_agg(x ORDER BY x) FROM unnest(d) x)`,
  );
  expect(broken).toEqual([]);
  return got;
}

/** Each posting still present carries the f it was written with. */
function expectSameF(before: Posting[], after: Posting[]): void {
  const f = new Map(before.map((p) => [`${p.term}\0${p.id}`, p.f]));
  for (const p of after) if (f.has(`${p.term}\0${p.id}`)) expect(p.f).toBe(f.get(`${p.term}\0${p.id}`));
}

beforeAll(async () => {
  url = await freshDatabase('postings', { migrated: true });
  s = await PostgresStorage.open(url);
  collectionId = (await s.collections.insert({ name: 'kw', root: '/kw', include: ['**/*'], exclude: [], context: '' })).id;
  await batch(Array.from({ length: 16 }, (_, p) => indexWrite(p, 0)));
});

afterAll(async () => {
  await s?.close();
});

describe('PostgreSQL postings rows', () => {
  it('hold one row per term for a batch, each with many chunks', async () => {
    const all = await expectExact('chunks_fts');
    const rows = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks_fts_postings');
    expect(all.length).toBeGreaterThan(rows[0]!.n * 5); // common words over ~500 chunks: far fewer rows than postings
    const terms = await s.db.query<{ n: number }>('SELECT count(DISTINCT term)::int AS n FROM chunks_fts_postings');
    expect(rows[0]!.n).toBe(terms[0]!.n);
    expect(rows[0]!.n).toBeGreaterThanOrEqual(COPY_FROM_ROWS); // the first batch's rows went by COPY (the later, smaller ones by INSERT)
  });

  it('follow documents re-indexed and removed, in one batch and across batches', async () => {
    const before = await expectExact('chunks_fts');
    // re-index three documents (their chunks replaced in one statement) and remove two (cascades)
    await batch([
      indexWrite(1, 1, await idOf(1)),
      indexWrite(5, 1, await idOf(5)),
      indexWrite(9, 1, await idOf(9)),
      { op: 'remove', documentId: await idOf(3), path: 'p3.md' },
      { op: 'remove', documentId: await idOf(12), path: 'p12.md' },
    ]);
    const after = await expectExact('chunks_fts');
    expectSameF(before, after);
    expect(after.some((p) => p.term === 'w1x1')).toBe(true);
    expect(after.some((p) => p.term === 'w1x0' || p.term === 'w3x0' || p.term === 'w12x0')).toBe(false);
    expect(after.some((p) => p.term === 'w4x0')).toBe(true);
    // one more round on the rows the last batch wrote
    await batch([indexWrite(1, 2, await idOf(1)), { op: 'remove', documentId: await idOf(5), path: 'p5.md' }]);
    expectSameF(after, await expectExact('chunks_fts'));
  });

  it('follow keyword rows deleted and written again for the same chunks (rows that overlap), then deleted', async () => {
    const chunks = await s.db.query<{ id: number; document_id: number }>('SELECT id::int AS id, document_id::int FROM chunks ORDER BY id');
    const rowOf = (id: number) => ({ id, title: `entry ${id % 5}`, headings: '', body: `retry ${WORDS[id % WORDS.length]} lease${id % 3}` });
    await s.keyword('memory_fts').write(chunks.map((c) => rowOf(c.id)), s.db.pool);
    const before = await expectExact('memory_fts');
    // a retitle: one document's chunks, their rows deleted and written again inside the old rows' range
    const doc = chunks[Math.floor(chunks.length / 2)]!.document_id;
    const ids = chunks.filter((c) => c.document_id === doc).map((c) => c.id);
    await s.db.query('DELETE FROM memory_fts WHERE chunk_id = ANY($1::bigint[])', [ids]);
    await expectExact('memory_fts');
    await s.keyword('memory_fts').write(ids.map((id) => ({ ...rowOf(id), title: 'renamed entry' })), s.db.pool);
    const rewritten = await expectExact('memory_fts');
    expect(rewritten.filter((p) => p.term === 'renam').map((p) => p.id)).toEqual(ids);
    // the chunk at the overlap's edge and its neighbours go; then every chunk of the collection
    await s.db.query('DELETE FROM memory_fts WHERE chunk_id = ANY($1::bigint[])', [[ids[0]! - 1, ids[0]!, ids[ids.length - 1]!, ids[ids.length - 1]! + 1]]);
    expectSameF(before.filter((p) => !ids.includes(p.id)), await expectExact('memory_fts'));
    await s.db.query('DELETE FROM chunks WHERE document_id = $1', [doc]);
    await expectExact('memory_fts');
    await expectExact('chunks_fts');
  });

  it('carry a database written before this layout over (the migration), deletes following', async () => {
    const before = await expectExact('chunks_fts');
    const memory = await postings('memory_fts');
    // the schema as the step before this one left it: a row and a key per (term, chunk), a trigger per keyword row
    const step = postgresMigrations.findIndex((m) => m.name.startsWith('postings as one row per term'));
    expect(step).toBeGreaterThan(0);
    for (const n of INDEXES) {
      await s.db.query(`
        CREATE TABLE ${n}_terms (term text COLLATE "C" NOT NULL, chunk_id bigint NOT NULL, f real NOT NULL, len integer NOT NULL, PRIMARY KEY (term, chunk_id) INCLUDE (f, len));
        INSERT INTO ${n}_terms SELECT p.term, p.lo + u.d, u.f, u.len FROM ${n}_postings p CROSS JOIN LATERAL unnest(p.d, p.f, p.len) u(d, f, len);
        DROP TRIGGER ${n}_postings_gone ON ${n};
        DROP FUNCTION ${n}_postings_gone();
        DROP TABLE ${n}_postings;
        CREATE FUNCTION ${n}_postings_gone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          DELETE FROM ${n}_terms WHERE term = ANY (tsvector_to_array(OLD.tsv)) AND chunk_id = OLD.chunk_id;
          RETURN NULL;
        END $$;
        CREATE TRIGGER ${n}_postings_gone AFTER DELETE ON ${n} FOR EACH ROW EXECUTE FUNCTION ${n}_postings_gone();`);
    }
    await s.db.query('DELETE FROM schema_migrations WHERE version > $1', [step]);
    await s.close();
    s = await PostgresStorage.open(url); // migrates
    const versions = await s.db.query<{ v: number }>('SELECT max(version)::int AS v FROM schema_migrations');
    expect(versions[0]!.v).toBe(postgresMigrations.length);
    expect(await expectExact('chunks_fts')).toEqual(before);
    expect(await postings('memory_fts')).toEqual(memory);
    const spans = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks_fts_postings WHERE hi - lo >= 1024');
    expect(spans[0]!.n).toBe(0);
    await batch([indexWrite(2, 3, await idOf(2)), { op: 'remove', documentId: await idOf(7), path: 'p7.md' }, indexWrite(20, 0)]);
    expectSameF(before, await expectExact('chunks_fts'));
    await s.collections.remove(collectionId);
    expect(await postings('chunks_fts')).toEqual([]);
    expect(await s.db.query('SELECT 1 FROM chunks_fts_postings')).toEqual([]);
  });
});
