// The storage contract: SQLite (the store modules behind store/sqlite/) and PostgreSQL
// (store/postgres/) taken through the same cases — collections, index batches written through
// claimed jobs (add, touch, rename, remove, unindexed), documents and chunks read back, keyword
// search (AND, OR, prefix, phrase, NOT, CJK, filters), the job queue's rules (order, coalescing,
// backoffs, revivals, pauses), tokens, vectors
// (spaces, pending work, kNN with filters, model switches) and removal of everything a
// collection has. Each case runs on both backends and expects the same answers.
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { prepareDocument } from '../../src-main/engine/ingest/prepare.js';
import { parseQuery } from '../../src-main/engine/search/query.js';
import { indexTerm } from '../../src-main/engine/text/terms.js';
import type { CollectionRow } from '../../src-main/engine/store/collections.js';
import type { DocumentWrite } from '../../src-main/engine/store/documents.js';
import { GLOBAL_PAUSE, type JobEnqueue } from '../../src-main/engine/store/jobs.js';
import { PRIORITY } from '../../src-main/engine/indexing/batch-worker.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { IndexWrite, KeywordTerm, PlannedKeywordTerm, Storage } from '../../src-main/engine/store/storage.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const opened: Storage[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
  removeTempDirs();
});

const backends: [string, () => Promise<Storage>][] = [
  ['sqlite', async () => SqliteStorage.open(`${tempDir('trove-contract-')}/index.sqlite`)],
  ['postgres', async () => PostgresStorage.open(await freshDatabase('contract'))],
];

async function open(make: () => Promise<Storage>): Promise<Storage> {
  const s = await make();
  opened.push(s);
  return s;
}

const FILES: Record<string, string> = {
  'retry.md': '# Retry policy\n\nRetry with exponential backoff and jitter when the socket times out.\n',
  'cache.md': '# Cache\n\n## Eviction\n\nThe cache evicts the least recently used entry. Retry is not needed here.\n',
  'jitter.md': '# Notes\n\nJitter spreads retries. Backoff grows. Nothing about sockets.\n',
  'ja.md': '# 検索\n\n全文検索は東京の天気を調べる方法ではありません。\n',
  'docs/deep/guide.md': '# Guide\n\nA deep guide about backoff strategies and retrying requests.\n',
};

function write(c: CollectionRow, path: string, text: string, docid: string, existingId?: number): IndexWrite {
  const p = prepareDocument(Buffer.from(text), path, DEFAULT_CHUNKING);
  if (!p.ok) throw new Error(p.reason);
  const document: DocumentWrite = {
    collectionId: c.id, path, docid, title: p.title, kind: p.kind, size: text.length, mtimeMs: 1000 + text.length, hash: `h-${text.length}-${path.length}`,
    status: 'indexed', error: null, tags: path.startsWith('docs/') ? ['guide'] : [], metadata: {},
  };
  return { op: 'index', document, existingId, text: p.text, chunks: p.chunks };
}

const job = (c: CollectionRow, path: string, over: Partial<JobEnqueue> = {}): JobEnqueue => ({
  collectionId: c.id, kind: 'file', path, priority: 0, changedAt: 1, gone: false, runAt: 0, ...over,
});

/** Indexes FILES into a new collection the way the runner will: events → claim → one completion. */
async function indexed(s: Storage, name = 'notes'): Promise<CollectionRow> {
  const c = await s.collections.insert({ name, root: `/data/${name}`, include: ['**/*.md'], exclude: [], context: '' });
  await s.jobs.recordEvents(Object.keys(FILES).map((p) => job(c, p)));
  const claim = (await s.jobs.claim(Date.now(), 100))!;
  expect(claim.jobs.map((j) => j.path).sort()).toEqual(Object.keys(FILES).sort());
  const writes = Object.entries(FILES).map(([p, t], i) => write(c, p, t, `${name.slice(0, 2)}${i}abc`));
  expect(await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 5000, writes }, retire: claim.jobs })).toEqual(writes.map(() => true));
  return c;
}

async function planned(s: Storage, query: string, syntax: 'match' | 'prefix' = 'match'): Promise<PlannedKeywordTerm[]> {
  const parsed = parseQuery(query, syntax);
  if (parsed.kind !== 'terms') throw new Error('terms expected');
  const kw = s.keyword('chunks_fts');
  return Promise.all(
    parsed.terms.map(async (t) => {
      const term: KeywordTerm = { text: t.token.text, term: t.prefix ? t.token.text : indexTerm(t.token), prefix: t.prefix };
      return { ...term, df: await kw.documentFrequency(term) };
    }),
  );
}

async function paths(s: Storage, chunkIds: number[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of chunkIds) {
    const chunk = await s.chunks.byId(id);
    out.push((await s.documents.byId(chunk!.documentId))!.path);
  }
  return out;
}

describe.each(backends)('storage contract: %s', (_name, make) => {
  it('keeps collections: kinds, names that differ only in case, order, renames, notes', async () => {
    const s = await open(make);
    const b = await s.collections.insert({ name: 'beta', root: '/b', include: ['**/*'], exclude: ['x/**'], context: 'note' });
    await s.collections.insert({ name: 'Alpha', root: '/a', include: [], exclude: [], context: '' });
    await s.collections.insert({ name: '~memory', kind: 'memory', root: '', include: [], exclude: [], context: '' });
    expect((await s.collections.list()).map((c) => c.name)).toEqual(['Alpha', 'beta']);
    expect((await s.collections.list(['folder', 'memory'])).map((c) => c.name)).toEqual(['Alpha', 'beta', '~memory']);
    expect((await s.collections.get('BETA'))?.id).toBe(b.id);
    expect(await s.collections.get('~memory')).toBeUndefined(); // not a folder
    expect((await s.collections.get('~memory', ['memory']))?.kind).toBe('memory');
    expect(await s.collections.nameTaken('ALPHA')).toBe(true);
    expect(b).toMatchObject({ include: ['**/*'], exclude: ['x/**'], context: 'note', lastIndexedAt: null });
    await s.collections.rename(b.id, 'gamma');
    await s.collections.setContext(b.id, 'new note');
    await s.collections.markIndexed(b.id, 1234);
    expect(await s.collections.byId(b.id)).toMatchObject({ name: 'gamma', context: 'new note', lastIndexedAt: 1234 });
    expect((await s.collections.byId(b.id))!.redactSecrets).toBeNull();
    await s.collections.setRedactSecrets(b.id, false);
    expect((await s.collections.byId(b.id))!.redactSecrets).toBe(false);
    await s.collections.setRedactSecrets(b.id, null);
    expect((await s.collections.byId(b.id))!.redactSecrets).toBeNull();
    await expect(s.collections.insert({ name: 'GAMMA', root: '/g', include: [], exclude: [], context: '' })).rejects.toThrow();
  });

  it('writes a claimed batch atomically and reads documents, contents and chunks back', async () => {
    const s = await open(make);
    const c = await indexed(s);
    expect(await s.documents.indexedPaths(c.id)).toEqual(['cache.md', 'docs/deep/guide.md', 'ja.md', 'jitter.md', 'retry.md']);
    expect(await s.documents.indexedCount(c.id)).toBe(5);
    const retry = (await s.documents.byPath(c.id, 'retry.md'))!;
    expect(retry).toMatchObject({ title: 'Retry policy', kind: 'markdown', status: 'indexed', indexedAt: 5000, tags: [], metadata: {} });
    expect((await s.documents.byDocid(retry.docid))?.id).toBe(retry.id);
    expect(await s.documents.content(retry.id)).toContain('exponential backoff');
    const chunks = await s.chunks.forDocument(retry.id);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks[0]).toMatchObject({ documentId: retry.id, ordinal: 0, lineStart: 1, page: null });
    expect((await s.chunks.byId(chunks[0]!.id))?.charEnd).toBe(chunks[0]!.charEnd);
    // a page of hits' anchors in one read each: present ids only, duplicates once
    const ja = (await s.documents.byPath(c.id, 'ja.md'))!;
    const byIds = await s.chunks.byIds([chunks[0]!.id, 987654, chunks[0]!.id]);
    expect([...byIds.keys()]).toEqual([chunks[0]!.id]);
    expect(byIds.get(chunks[0]!.id)).toEqual(chunks[0]);
    const docs = await s.documents.forHits([ja.id, retry.id, 987654]);
    expect([...docs.keys()].sort((a, b) => a - b)).toEqual([ja.id, retry.id].sort((a, b) => a - b));
    const { id, collectionId, path, docid, title, kind, mtimeMs, tags } = retry;
    expect(docs.get(retry.id)).toEqual({ id, collectionId, path, docid, title, kind, mtimeMs, tags, ocrConfidence: null });
    const texts = await s.documents.contents([retry.id, ja.id, 987654]);
    expect(texts.get(retry.id)).toBe(await s.documents.content(retry.id));
    expect(texts.get(ja.id)).toBe(await s.documents.content(ja.id));
    expect(texts.has(987654)).toBe(false);
    expect((await s.documents.forHits([])).size + (await s.chunks.byIds([])).size + (await s.documents.contents([])).size).toBe(0);
    // the automatic model choice's sample: the first documents by id, the start of each, in one read
    const firstIds = (await s.documents.indexedDocuments(c.id)).map((d) => d.id).sort((a, b) => a - b).slice(0, 3);
    const full = await s.documents.contents(firstIds);
    expect(await s.documents.languageSample(c.id, { documents: 3, chars: 12 })).toEqual(firstIds.map((id) => full.get(id)!.slice(0, 12)));
    expect(await s.documents.languageSample(987654, { documents: 3, chars: 12 })).toEqual([]);
    const known = await s.documents.byPaths(c.id, ['retry.md', 'ja.md', 'missing.md']);
    expect([...known.keys()].sort()).toEqual(['ja.md', 'retry.md']);
    expect((await s.documents.byHashes(c.id, [retry.hash!, 'nope'])).get(retry.hash!)?.map((f) => f.path)).toEqual(['retry.md']);
    expect(await s.documents.docidsTaken([retry.docid, 'zzzzzz'])).toEqual(new Set([retry.docid]));
    expect((await s.stats.counts()).get(c.id)).toMatchObject({ documents: 5, skipped: 0, failed: 0, kinds: { markdown: 5 } });
    expect(await s.stats.kindExists('markdown')).toBe(true);
    expect(await s.stats.kindExists('pdf')).toBe(false);
    expect(await s.stats.databaseBytes()).toBeGreaterThan(0);
    expect(await s.jobs.counts()).toEqual(new Map());
  });

  it('touches, renames (docid kept), skips and removes; a stale move or removal changes nothing', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const retry = (await s.documents.byPath(c.id, 'retry.md'))!;
    const cache = (await s.documents.byPath(c.id, 'cache.md'))!;
    const jitter = (await s.documents.byPath(c.id, 'jitter.md'))!;
    await s.jobs.recordEvents([job(c, 'moved.md'), job(c, 'retry.md', { gone: true }), job(c, 'cache.md'), job(c, 'jitter.md'), job(c, 'big.bin')]);
    const claim = (await s.jobs.claim(Date.now(), 100))!;
    const skipped: DocumentWrite = { ...(write(c, 'big.bin', 'x', 'big123') as Extract<IndexWrite, { op: 'index' }>).document, kind: 'unknown', title: '', status: 'skipped', error: 'file is 20 MB, over the 10 MB limit' };
    const applied = await claim.complete({
      write: {
        collectionId: c.id, index: 'chunks_fts', at: 6000,
        writes: [
          { op: 'move', documentId: retry.id, from: 'retry.md', to: 'moved.md', size: 10, mtimeMs: 2 },
          { op: 'touch', documentId: cache.id, size: 99, mtimeMs: 3 },
          { op: 'remove', documentId: jitter.id, path: 'not-where-it-is.md' }, // another host got there first
          { op: 'unindexed', document: skipped },
        ],
      },
      retire: claim.jobs,
    });
    expect(applied).toEqual([true, true, false, true]);
    expect(await s.documents.byPath(c.id, 'retry.md')).toBeUndefined();
    expect(await s.documents.byPath(c.id, 'moved.md')).toMatchObject({ id: retry.id, docid: retry.docid, indexedAt: 6000 });
    expect(await s.chunks.forDocument(retry.id)).not.toEqual([]); // chunks follow the rename
    expect(await s.documents.byPath(c.id, 'cache.md')).toMatchObject({ size: 99, mtimeMs: 3 });
    expect(await s.documents.byPath(c.id, 'jitter.md')).toBeDefined();
    expect(await s.stats.failures(c.id, 10)).toEqual([{ path: 'big.bin', status: 'skipped', reason: 'file is 20 MB, over the 10 MB limit' }]);

    const again = (await s.jobs.recordEvents([job(c, 'jitter.md', { gone: true })]), await s.jobs.claim(Date.now(), 10))!;
    expect(await again.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 7000, writes: [{ op: 'remove', documentId: jitter.id, path: 'jitter.md' }] }, retire: again.jobs })).toEqual([true]);
    expect(await s.documents.byId(jitter.id)).toBeUndefined();
    expect(await s.chunks.forDocument(jitter.id)).toEqual([]);
    const kw = s.keyword('chunks_fts');
    expect(await kw.documentFrequency({ text: 'nothing', term: 'noth', prefix: false })).toBe(0); // its keyword rows went too
  });

  it('keeps a document indexed in part with its warning, and chunks with their page', async () => {
    const s = await open(make);
    const c = await indexed(s);
    await s.jobs.recordEvents([job(c, 'sheet.xlsx')]);
    const claim = (await s.jobs.claim(Date.now(), 10))!;
    const w = write(c, 'sheet.xlsx', 'Quarterly revenue by region.\n', 'sheet1') as Extract<IndexWrite, { op: 'index' }>;
    const partial = { ...w, document: { ...w.document, kind: 'xlsx', warning: 'rows after 10,000 were cut' }, chunks: w.chunks.map((ch) => ({ ...ch, page: 3 })) };
    await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 5500, writes: [partial] }, retire: claim.jobs });
    const doc = (await s.documents.byPath(c.id, 'sheet.xlsx'))!;
    expect(doc).toMatchObject({ status: 'indexed', warning: 'rows after 10,000 were cut', kind: 'xlsx' });
    expect((await s.chunks.forDocument(doc.id)).map((ch) => ch.page)).toEqual([3]);
    expect(await s.stats.failures(c.id, 10)).toEqual([{ path: 'sheet.xlsx', status: 'partial', reason: 'rows after 10,000 were cut' }]);
    expect((await s.stats.counts()).get(c.id)?.kinds).toEqual({ markdown: 5, xlsx: 1 });
  });

  it('keeps a document inside a file (an attachment) with its parent: not a file of its own, as fresh as its file, gone with it', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const mail = (await s.documents.byPath(c.id, 'retry.md'))!;
    expect(mail.parentId).toBeNull();
    await s.jobs.recordEvents([job(c, 'retry.md')]);
    const claim = (await s.jobs.claim(Date.now(), 10))!;
    const w = write(c, 'retry.md/report.md', '# Report\n\nAttached figures.\n', 'att001') as Extract<IndexWrite, { op: 'index' }>;
    await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 6000, writes: [{ ...w, document: { ...w.document, parentId: mail.id } }] }, retire: claim.jobs });
    const child = (await s.documents.byPath(c.id, 'retry.md/report.md'))!;
    expect(child.parentId).toBe(mail.id);
    expect((await s.documents.fingerprints(c.id)).map((f) => f.path)).not.toContain('retry.md/report.md'); // the folder scan never sees it
    expect((await s.documents.byHashes(c.id, [child.hash!])).get(child.hash!) ?? []).toEqual([]); // nor rename detection
    const [fresh] = await s.jobs.freshness([child.id]);
    expect(fresh).toMatchObject({ documentId: child.id, path: 'retry.md', size: mail.size, mtimeMs: mail.mtimeMs, indexedAt: 6000 });
    await s.jobs.recordEvents([job(c, 'retry.md', { gone: true })]);
    const gone = (await s.jobs.claim(Date.now(), 10))!;
    await gone.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 7000, writes: [{ op: 'remove', documentId: mail.id, path: 'retry.md' }] }, retire: gone.jobs });
    expect(await s.documents.byPath(c.id, 'retry.md/report.md')).toBeUndefined();
  });

  it('writes a file with its attachments in one write, replaces and drops them with it, moves them along; a missed removal keeps its job', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const att = (name: string, text: string | null) => {
      const w = write(c, `mail.eml/${name}`, text ?? '# x\n', `a-${name}`) as Extract<IndexWrite, { op: 'index' }>;
      return text === null ? { document: { ...w.document, status: 'failed' as const, error: 'unreadable' }, text: null, chunks: [] } : { document: w.document, text: w.text, chunks: w.chunks };
    };
    const complete = async (writes: IndexWrite[], path: string) => {
      await s.jobs.recordEvents([job(c, path)]);
      const claim = (await s.jobs.claim(Date.now(), 10))!;
      return claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 9000, writes }, retire: [], retireIfApplied: claim.jobs.map((j) => ({ job: j, write: 0 })) });
    };
    const mailWrite = write(c, 'mail.eml', '# Mail\n\nSee the attachments.\n', 'mail01') as Extract<IndexWrite, { op: 'index' }>;
    await complete([{ ...mailWrite, attachments: [att('a.md', '# Alpha\n\nQuarterly figures.\n'), att('b.md', '# Beta\n\nLaunch plan.\n')] }], 'mail.eml');
    const mail = (await s.documents.byPath(c.id, 'mail.eml'))!;
    const children = async (parent: string) => (await s.documents.indexedDocuments(c.id)).filter((d) => d.path.startsWith(`${parent}/`)).map((d) => d.path).sort();
    expect(await children('mail.eml')).toEqual(['mail.eml/a.md', 'mail.eml/b.md']);
    expect((await s.documents.byPath(c.id, 'mail.eml/a.md'))!.parentId).toBe(mail.id);
    // again: b.md gone, a.md unreadable now, c.md new
    await complete([{ ...mailWrite, document: { ...mailWrite.document, docid: '' }, existingId: mail.id, attachments: [att('a.md', null), att('c.md', '# Gamma\n\nBudget.\n')] }], 'mail.eml');
    expect(await children('mail.eml')).toEqual(['mail.eml/c.md']); // indexed ones only
    expect(await s.documents.byPath(c.id, 'mail.eml/a.md')).toMatchObject({ status: 'failed', parentId: mail.id });
    expect(await s.documents.byPath(c.id, 'mail.eml/b.md')).toBeUndefined();
    const kw = s.keyword('chunks_fts');
    const df = (word: string) => kw.documentFrequency({ text: word, term: indexTerm({ text: word, cjk: false }), prefix: false });
    expect([await df('quarterly'), await df('launch'), await df('budget')]).toEqual([0, 0, 1]);
    expect(await complete([{ op: 'move', documentId: mail.id, from: 'mail.eml', to: 'old.eml', size: 1, mtimeMs: 1 }], 'old.eml')).toEqual([true]);
    expect(await children('old.eml')).toEqual(['old.eml/c.md']);
    // a removal at a path the row has left (another host moved it first) changes nothing; its job stays
    expect(await complete([{ op: 'remove', documentId: mail.id, path: 'mail.eml' }], 'mail.eml')).toEqual([false]);
    expect(await s.jobs.hasPendingFile(c.id, 'mail.eml')).toBe(true);
    expect(await s.jobs.hasPendingFile(c.id, 'old.eml')).toBe(false);
    await complete([{ op: 'unindexed', document: { ...mailWrite.document, path: 'old.eml', docid: '', status: 'failed', error: 'gone bad' }, existingId: mail.id }], 'old.eml');
    expect(await s.documents.byPath(c.id, 'old.eml/c.md')).toBeUndefined();
    expect(await df('budget')).toBe(0);
  });

  it('re-indexes a changed document in place: new chunks, the old keyword rows gone', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const cache = (await s.documents.byPath(c.id, 'cache.md'))!;
    await s.jobs.recordEvents([job(c, 'cache.md')]);
    const claim = (await s.jobs.claim(Date.now(), 10))!;
    const w = write(c, 'cache.md', '# Cache\n\nNow about tombstones only.\n', '', cache.id);
    await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 8000, writes: [w] }, retire: claim.jobs });
    expect(await s.documents.byPath(c.id, 'cache.md')).toMatchObject({ id: cache.id, docid: cache.docid, indexedAt: 8000 });
    const kw = s.keyword('chunks_fts');
    expect(await kw.documentFrequency({ text: 'eviction', term: indexTerm({ text: 'eviction', cjk: false }), prefix: false })).toBe(0);
    expect(await kw.documentFrequency({ text: 'tombstones', term: indexTerm({ text: 'tombstones', cjk: false }), prefix: false })).toBe(1);
  });

  it('searches the keyword index: AND, OR, prefix, phrase, NOT, CJK bigrams and filters', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const kw = s.keyword('chunks_fts');
    const counts = await kw.counts();
    const and = await kw.candidates({ op: 'and', terms: await planned(s, 'retry backoff jitter') }, {}, 10, counts);
    expect((await paths(s, and.map((r) => r.chunkId))).sort()).toEqual(['jitter.md', 'retry.md']);
    expect(and[0]!.rank).toBeLessThanOrEqual(and[1]!.rank);
    const or = await kw.candidates({ op: 'or', terms: await planned(s, 'socket eviction') }, {}, 10, counts);
    expect((await paths(s, or.map((r) => r.chunkId))).sort()).toEqual(['cache.md', 'jitter.md', 'retry.md']);
    expect(or.every((r, i) => i === 0 || r.rank >= or[i - 1]!.rank)).toBe(true); // best first
    const prefix = await kw.candidates({ op: 'or', terms: await planned(s, 'strateg', 'prefix') }, {}, 10, counts);
    expect(await paths(s, prefix.map((r) => r.chunkId))).toEqual(['docs/deep/guide.md']);
    const cjk = await kw.candidates({ op: 'and', terms: await planned(s, '全文検索') }, {}, 10, counts);
    expect(await paths(s, cjk.map((r) => r.chunkId))).toEqual(['ja.md']);
    const filtered = await kw.candidates({ op: 'or', terms: await planned(s, 'backoff') }, { pathGlob: 'docs/**', tags: ['guide'], collectionIds: [c.id] }, 10, counts);
    expect(await paths(s, filtered.map((r) => r.chunkId))).toEqual(['docs/deep/guide.md']);
    const bare = await kw.candidates({ op: 'or', terms: await planned(s, 'backoff') }, { pathGlob: 'guide.md' }, 10, counts); // a bare name matches at any depth
    expect(await paths(s, bare.map((r) => r.chunkId))).toEqual(['docs/deep/guide.md']);
    expect(await kw.candidates({ op: 'or', terms: await planned(s, 'backoff') }, { collectionIds: [] }, 10, counts)).toEqual([]);
    const [retryTerm, backoffTerm, jitterTerm] = await planned(s, 'retry backoff jitter');
    expect((await kw.documentsMatching({ t: 'phrase', terms: [retryTerm!, backoffTerm!] })).size).toBe(1); // "retries. Backoff": punctuation does not break a phrase
    const phrase = { t: 'phrase' as const, terms: [backoffTerm!, jitterTerm!] };
    expect(await kw.documentsMatching({ t: 'phrase', terms: [{ text: 'exponential', term: 'exponenti', prefix: false }, backoffTerm!] })).toEqual(
      new Set([(await s.documents.byPath(c.id, 'retry.md'))!.id]),
    );
    expect((await kw.documentsMatching(phrase)).size).toBe(0); // "backoff and jitter": not adjacent
    const not = await kw.candidates(
      { op: 'expression', expression: { t: 'and', items: [{ t: 'term', term: backoffTerm! }], not: [{ t: 'term', term: jitterTerm! }] }, terms: [backoffTerm!] },
      {},
      10,
      counts,
    );
    expect(await paths(s, not.map((r) => r.chunkId))).toEqual(['docs/deep/guide.md']);
  });

  it('keeps the queue’s rules: versions, retries, pauses, explicit runs, freshness', async () => {
    const s = await open(make);
    const c = await indexed(s);
    await s.jobs.recordEvents([job(c, 'a.md'), job(c, 'b.md'), job(c, 'retry.md')]);
    const claim = (await s.jobs.claim(Date.now(), 10))!;
    const byPath = Object.fromEntries(claim.jobs.map((j) => [j.path, j]));
    // changed while it ran: on PostgreSQL the event waits for the claim's row lock, on SQLite it lands at once
    const event = s.jobs.recordEvents([job(c, 'a.md', { changedAt: 9 })]);
    await claim.complete({ retire: [byPath['a.md']!, byPath['retry.md']!], retry: [{ job: byPath['b.md']!, attempts: 1, nextRunAt: Date.now() + 60_000, error: 'unreadable' }] });
    await event;
    expect(await s.jobs.hasPendingFile(c.id, 'a.md')).toBe(true);
    expect(await s.jobs.hasPendingFile(c.id, 'retry.md')).toBe(false);
    expect((await s.jobs.failures(c.id, 10)).map((f) => [f.path, f.attempts, f.lastError])).toEqual([['b.md', 1, 'unreadable']]);
    expect((await s.jobs.counts()).get(c.id)).toEqual({ collectionId: c.id, queued: 2, retrying: 1, gaveUp: 0 });
    await s.jobs.setPaused(c.id, true);
    expect(await s.jobs.claim(Date.now(), 10)).toBeNull();
    const explicit = (await s.jobs.claim(Date.now(), 10, { only: c.id }))!;
    expect(explicit.jobs.map((j) => j.path)).toEqual(['a.md']);
    await explicit.release();
    await s.jobs.makeDue(c.id, Date.now());
    expect(await s.jobs.dueCount(c.id, Date.now())).toBe(2);
    // the folder is gone: its file jobs wait, its scan (queued by an explicit run) stays due
    await s.jobs.recordEvents([job(c, '', { kind: 'scan' })]);
    await s.jobs.postponeFiles(c.id, Date.now(), Date.now() + 5000);
    expect(await s.jobs.dueCount(c.id, Date.now())).toBe(1);
    const scan = (await s.jobs.claim(Date.now(), 10, { only: c.id }))!;
    expect(scan.jobs.map((j) => j.kind)).toEqual(['scan']);
    await scan.complete({ retire: scan.jobs });
    expect(await s.jobs.dueCount(c.id, Date.now())).toBe(0);
    expect(await s.jobs.nextDueAt()).toBeNull(); // paused
    await s.jobs.setPaused(c.id, false);
    expect(await s.jobs.nextDueAt()).toBeGreaterThan(Date.now());
    await s.jobs.recordEvents([job(c, 'cache.md')]);
    const cache = (await s.documents.byPath(c.id, 'cache.md'))!;
    const retry = (await s.documents.byPath(c.id, 'retry.md'))!;
    const fresh = new Map((await s.jobs.freshness([cache.id, retry.id])).map((f) => [f.path, f]));
    expect(fresh.get('cache.md')).toMatchObject({ pending: true, root: '/data/notes', collectionId: c.id });
    expect(fresh.get('retry.md')?.pending).toBe(false);
  });

  it('orders the queue: a scan alone first, then the user’s changes, then reconcile finds; additions before removals; newest first; one collection a batch; jobs not due wait', async () => {
    const s = await open(make);
    const a = await s.collections.insert({ name: 'a', root: '/a', include: [], exclude: [], context: '' });
    const b = await s.collections.insert({ name: 'b', root: '/b', include: [], exclude: [], context: '' });
    await s.jobs.recordEvents([
      job(a, 'old-reconcile.md', { changedAt: 10 }),
      job(a, 'new-reconcile.md', { changedAt: 20 }),
      job(a, 'gone-user.md', { priority: PRIORITY.userChange, gone: true, changedAt: 99 }),
      job(a, 'user.md', { priority: PRIORITY.userChange, changedAt: 50 }),
    ]);
    await s.jobs.recordEvents([{ collectionId: a.id, kind: 'scan', path: '', priority: PRIORITY.scan, changedAt: 1, gone: false, runAt: 0 }]);
    const scan = (await s.jobs.claim(Date.now(), 10))!;
    expect(scan.jobs.map((j) => j.kind)).toEqual(['scan']); // a scan runs alone
    await scan.complete({ retire: scan.jobs });
    const files = (await s.jobs.claim(Date.now(), 10))!;
    expect(files.jobs.map((j) => j.path)).toEqual(['user.md', 'gone-user.md', 'new-reconcile.md', 'old-reconcile.md']);
    await files.complete({ retire: files.jobs });

    const now = Date.now();
    await s.jobs.recordEvents([job(a, 'x.md'), job(b, 'y.md', { priority: PRIORITY.userChange }), job(b, 'later.md', { runAt: now + 60_000 })]);
    const first = (await s.jobs.claim(now, 10))!;
    expect(first.jobs.map((j) => [j.collectionId, j.path])).toEqual([[b.id, 'y.md']]); // one collection; later.md is not due
    const onlyA = (await s.jobs.claim(now, 10, { only: a.id }))!;
    expect(onlyA.jobs.map((j) => j.path)).toEqual(['x.md']);
    expect(await s.jobs.nextDueAt()).toBe(0);
    expect(await s.jobs.dueCount(b.id, now)).toBe(1);
    await first.release();
    await onlyA.release();
  });

  it('holds a claim’s jobs until it is written or given back: a run claims its next batches while one is still read', async () => {
    const s = await open(make);
    const c = await s.collections.insert({ name: 'held', root: '/held', include: [], exclude: [], context: '' });
    await s.jobs.recordEvents(['a.md', 'b.md', 'c.md', 'd.md', 'e.md'].map((p, i) => job(c, p, { changedAt: 100 - i })));
    const first = (await s.jobs.claim(Date.now(), 2, { only: c.id }))!;
    const second = (await s.jobs.claim(Date.now(), 2, { only: c.id }))!;
    const third = (await s.jobs.claim(Date.now(), 2, { only: c.id }))!;
    expect([first, second, third].map((cl) => cl.jobs.map((j) => j.path))).toEqual([['a.md', 'b.md'], ['c.md', 'd.md'], ['e.md']]);
    expect(await s.jobs.claim(Date.now(), 2, { only: c.id })).toBeNull(); // every due job is held
    expect(await s.jobs.dueCount(c.id, Date.now())).toBe(5); // held jobs are still due
    await second.release(); // given back: claimable again, and first in line of what is left
    const again = (await s.jobs.claim(Date.now(), 2, { only: c.id }))!;
    expect(again.jobs.map((j) => j.path)).toEqual(['c.md', 'd.md']);
    await first.complete({ retire: first.jobs }); // written: gone from the queue
    await third.complete({ retire: [], retry: [{ job: third.jobs[0]!, attempts: 1, nextRunAt: Date.now() - 1, error: 'busy' }] });
    const retried = (await s.jobs.claim(Date.now(), 2, { only: c.id }))!; // a retry due at once is claimable once its claim is done
    expect(retried.jobs.map((j) => j.path)).toEqual(['e.md']);
    await retried.release();
    await again.release();
  });

  it('coalesces events on a path, keeps a backoff from reconcile finds, revives given-up jobs at a scan', async () => {
    const s = await open(make);
    const c = await s.collections.insert({ name: 'c', root: '/c', include: [], exclude: [], context: '' });
    // a new event for a queued path is the same row, a version on; the last word wins
    await s.jobs.recordEvents([job(c, 'n.md', { changedAt: 1000 })]);
    await s.jobs.recordEvents([job(c, 'n.md', { gone: true, changedAt: 2000 })]);
    const coalesced = (await s.jobs.claim(Date.now(), 10))!;
    expect(coalesced.jobs).toMatchObject([{ path: 'n.md', gone: true, changedAt: 2000, version: 2 }]);
    await coalesced.complete({ retire: coalesced.jobs });
    // a job that changed while it ran runs again (on SQLite the event bumps the running row, which is
    // then not retired; on PostgreSQL it waits for the claim's row lock and queues the path anew)
    await s.jobs.recordEvents([job(c, 'm.md', { changedAt: 1000 })]);
    const running = (await s.jobs.claim(Date.now(), 10))!;
    const event = s.jobs.recordEvents([job(c, 'm.md', { gone: true, changedAt: 2000 })]);
    await running.complete({ retire: running.jobs });
    await event;
    const again = (await s.jobs.claim(Date.now(), 10))!;
    expect(again.jobs).toMatchObject([{ path: 'm.md', gone: true, changedAt: 2000 }]);
    await again.complete({ retire: again.jobs });
    expect(await s.jobs.claim(Date.now(), 10)).toBeNull();

    // reconcile finds never disturb a queued job (its backoff survives); a watcher event resets it
    await s.jobs.recordEvents([job(c, 'f.md')]);
    const f = (await s.jobs.claim(Date.now(), 10))!;
    await f.complete({ retire: [], retry: [{ job: f.jobs[0]!, attempts: 1, nextRunAt: Date.now() + 60_000, error: 'permission denied' }] });
    await s.jobs.addIfAbsent([job(c, 'f.md')]);
    expect(await s.jobs.failures(c.id, 10)).toMatchObject([{ path: 'f.md', attempts: 1, lastError: 'permission denied' }]);
    expect(await s.jobs.claim(Date.now(), 10)).toBeNull();
    await s.jobs.recordEvents([job(c, 'f.md', { runAt: Date.now() })]);
    expect(await s.jobs.failures(c.id, 10)).toEqual([]);
    const reset = (await s.jobs.claim(Date.now(), 10))!;
    expect(reset.jobs.map((j) => j.attempts)).toEqual([0]);

    // given up: counted apart, taken again once a scan revives the collection; makeDue brings a backoff forward
    await reset.complete({ retire: [], retry: [{ job: reset.jobs[0]!, attempts: 6, nextRunAt: null, error: 'cannot read: EIO' }] });
    expect((await s.jobs.counts()).get(c.id)).toMatchObject({ queued: 0, gaveUp: 1 });
    expect(await s.jobs.claim(Date.now(), 10)).toBeNull();
    await s.jobs.recordEvents([{ collectionId: c.id, kind: 'scan', path: '', priority: PRIORITY.scan, changedAt: 1, gone: false, runAt: 0 }]);
    const scan = (await s.jobs.claim(Date.now(), 10))!;
    await scan.complete({ revive: c.id, retire: scan.jobs });
    const revived = (await s.jobs.claim(Date.now(), 10))!;
    expect(revived.jobs).toMatchObject([{ path: 'f.md', attempts: 6 }]);
    await revived.complete({ retire: [], retry: [{ job: revived.jobs[0]!, attempts: 7, nextRunAt: Date.now() + 3_600_000, error: 'x' }] });
    expect(await s.jobs.claim(Date.now(), 10)).toBeNull();
    await s.jobs.makeDue(c.id, Date.now());
    const due = (await s.jobs.claim(Date.now(), 10))!;
    expect(due.jobs.map((j) => j.path)).toEqual(['f.md']);
    await due.release();
  });

  it('keeps pauses: skipped by the background order, not by an explicit run; the global pause beside them', async () => {
    const s = await open(make);
    const a = await s.collections.insert({ name: 'a', root: '/a', include: [], exclude: [], context: '' });
    const b = await s.collections.insert({ name: 'b', root: '/b', include: [], exclude: [], context: '' });
    await s.jobs.recordEvents([job(a, 'a.md', { priority: PRIORITY.userChange }), job(b, 'b.md')]);
    await s.jobs.setPaused(a.id, true);
    const background = (await s.jobs.claim(Date.now(), 10))!;
    expect(background.jobs.map((j) => j.path)).toEqual(['b.md']);
    const explicit = (await s.jobs.claim(Date.now(), 10, { only: a.id }))!;
    expect(explicit.jobs.map((j) => j.path)).toEqual(['a.md']);
    await background.release();
    await explicit.release();
    await s.jobs.setPaused(GLOBAL_PAUSE, true);
    expect(await s.jobs.pauses()).toEqual(new Set([a.id, GLOBAL_PAUSE]));
    await s.collections.remove(a.id);
    expect((await s.jobs.counts()).has(a.id)).toBe(false);
    expect(await s.jobs.pauses()).toEqual(new Set([GLOBAL_PAUSE]));
  });

  it('keeps tokens: hashes only, case-insensitive names, scopes by collection', async () => {
    const s = await open(make);
    const a = await s.collections.insert({ name: 'a', root: '/a', include: [], exclude: [], context: '' });
    const b = await s.collections.insert({ name: 'B', root: '/b', include: [], exclude: [], context: '' });
    const scoped = await s.tokens.insert({ name: 'Reader', secret: 'trove_secret-one', collectionIds: [b.id, a.id], tools: ['search', 'get'], memory: 'read' });
    await s.tokens.insert({ name: 'admin', secret: 'trove_secret-two', collectionIds: null, tools: null, memory: 'write' });
    await s.tokens.insert({ name: 'none', secret: 'trove_secret-three', collectionIds: [], tools: null, memory: 'none' });
    expect(scoped).toMatchObject({ name: 'Reader', hint: 'trove_secr', collections: ['a', 'B'], tools: ['search', 'get'], memory: 'read', lastUsedAt: null });
    expect((await s.tokens.list()).map((t) => t.memory)).toEqual(['write', 'none', 'read']);
    expect((await s.tokens.bySecret('trove_secret-two'))?.collections).toBeNull();
    expect((await s.tokens.byName('none'))?.collections).toEqual([]);
    expect(await s.tokens.bySecret('trove_wrong')).toBeUndefined();
    expect((await s.tokens.list()).map((t) => t.name)).toEqual(['admin', 'none', 'Reader']);
    await s.tokens.touch(scoped.id, 123_456);
    expect((await s.tokens.byName('READER'))?.lastUsedAt).toBe(123_456);
    await s.collections.remove(a.id); // removing a collection revokes the access it gave
    expect((await s.tokens.byName('reader'))?.collections).toEqual(['B']);
    await s.tokens.delete(scoped.id);
    expect(await s.tokens.byName('reader')).toBeUndefined();
  });

  it('keeps vectors: spaces, pending work, kNN with filters, model switches; they go with their chunks', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const other = await indexed(s, 'other');
    const space = await s.vectors.ensureSpace('model-a', 'sha-a', 3);
    expect(await s.vectors.ensureSpace('model-a', 'sha-a', 3)).toEqual(space);
    await s.vectors.setActive(c.id, space.id);
    await s.vectors.setActive(other.id, space.id);
    expect(await s.vectors.collection(c.id)).toEqual({ collectionId: c.id, modelChoice: null, activeSpaceId: space.id, buildingSpaceId: null });
    const pending = await s.vectors.pending(space.id, c.id, 100);
    expect(pending.length).toBe(await s.vectors.pendingCount(space.id, c.id));
    const docPaths = new Map<number, string>();
    for (const p of pending) docPaths.set(p.documentId, (await s.documents.byId(p.documentId))!.path);
    // a vector per chunk: the guide points at x, the others away from it
    const vec = (p: string) => (p === 'docs/deep/guide.md' ? [1, 0.1, 0] : p === 'retry.md' ? [0.8, 0.6, 0] : [0, 0.2, 1]);
    const rows = pending.map((p) => ({ chunkId: p.id, vector: Float32Array.from(vec(docPaths.get(p.documentId)!)) }));
    expect(await s.vectors.insert(space.id, c.id, [...rows, { chunkId: 999_999, vector: Float32Array.from([1, 0, 0]) }])).toBe(rows.length); // a vanished chunk is skipped
    const otherRows = (await s.vectors.pending(space.id, other.id, 100)).map((p) => ({ chunkId: p.id, vector: Float32Array.from([1, 0.1, 0]) }));
    await s.vectors.insert(space.id, other.id, otherRows);
    expect(await s.vectors.pendingCount(space.id, c.id)).toBe(0);
    expect(await s.vectors.size(space.id)).toBe(rows.length + otherRows.length);
    expect(Array.from((await s.vectors.vectorOf(space.id, rows[0]!.chunkId))!)).toEqual(Array.from(rows[0]!.vector));
    const q = Float32Array.from([1, 0, 0]);
    const near = await s.vectors.nearest(space.id, q, [c.id], 3);
    expect(await paths(s, near.map((m) => m.chunkId))).toEqual(['docs/deep/guide.md', 'retry.md', expect.any(String)]);
    expect(near[0]!.distance).toBeCloseTo(1 - 1 / Math.sqrt(1.01), 5);
    const filtered = await s.vectors.nearest(space.id, q, [c.id], 3, { pathGlob: '*.md', kinds: ['markdown'], modifiedAfterMs: 0, tags: [] });
    expect(filtered.length).toBe(3);
    const onlyJa = await s.vectors.nearest(space.id, q, [c.id], 5, { pathGlob: 'ja.md' });
    expect(await paths(s, onlyJa.map((m) => m.chunkId))).toEqual(['ja.md']); // a filter far from the query still finds its match
    expect(await s.vectors.nearest(space.id, q, [], 5)).toEqual([]);
    // a changed document waits for vectors again
    const retry = (await s.documents.byPath(c.id, 'retry.md'))!;
    await s.jobs.recordEvents([job(c, 'retry.md')]);
    const claim = (await s.jobs.claim(Date.now(), 10))!;
    await claim.complete({ write: { collectionId: c.id, index: 'chunks_fts', at: 9000, writes: [write(c, 'retry.md', '# Retry\n\nchanged\n', '', retry.id)] }, retire: claim.jobs });
    expect(await s.vectors.documentsPending([retry.id, (await s.documents.byPath(c.id, 'ja.md'))!.id])).toEqual(new Set([retry.id]));
    // a model switch: build the new space, swap it in, the old one is dropped
    const next = await s.vectors.ensureSpace('model-b', 'sha-b', 2);
    await s.vectors.setBuilding(c.id, next.id);
    await s.vectors.setModelChoice(c.id, 'model-b');
    await s.vectors.swap(c.id);
    expect(await s.vectors.collection(c.id)).toEqual({ collectionId: c.id, modelChoice: 'model-b', activeSpaceId: next.id, buildingSpaceId: null });
    expect(await s.vectors.space(space.id)).toBeDefined(); // `other` still uses it
    expect(await s.vectors.size(space.id)).toBe(otherRows.length);
    await s.collections.remove(other.id);
    await s.vectors.dropUnusedSpaces();
    expect(await s.vectors.space(space.id)).toBeUndefined();
  });

  it('claims pending chunks: a claim held is not given again until released or written (a stage reads one batch ahead)', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const space = await s.vectors.ensureSpace('model-c', 'sha-c', 2);
    await s.vectors.setActive(c.id, space.id);
    const all = (await s.vectors.pending(space.id, c.id, 100)).map((p) => p.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const now = Date.now();
    const first = (await s.vectors.claimPending(space.id, c.id, 2, now, now + 60_000)).map((p) => p.id);
    const second = (await s.vectors.claimPending(space.id, c.id, 100, now, now + 60_000)).map((p) => p.id);
    expect(first).toEqual(all.slice(0, 2));
    expect(second).toEqual(all.slice(2));
    expect(await s.vectors.claimPending(space.id, c.id, 100, now, now + 60_000)).toEqual([]);
    await s.vectors.releaseClaims(space.id, first);
    await s.vectors.insert(space.id, c.id, second.map((chunkId) => ({ chunkId, vector: Float32Array.from([1, 0]) })));
    await s.vectors.releaseClaims(space.id, second);
    expect((await s.vectors.claimPending(space.id, c.id, 100, now, now + 60_000)).map((p) => p.id)).toEqual(first);
  });

  it('claims pending chunks on from a cursor, in id order, each with its document kind', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const space = await s.vectors.ensureSpace('model-d', 'sha-d', 2);
    await s.vectors.setActive(c.id, space.id);
    const all = await s.vectors.pending(space.id, c.id, 100);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(new Set(all.map((p) => p.kind))).toEqual(new Set(['markdown']));
    const now = Date.now();
    const claim = (after: number) => s.vectors.claimPending(space.id, c.id, 100, now, now + 60_000, after).then((r) => r.map((p) => p.id));
    expect(await claim(all[0]!.id)).toEqual(all.slice(1).map((p) => p.id));
    expect(await claim(all.at(-1)!.id)).toEqual([]);
    // the first chunk, behind that cursor, is still there for a claim from the first
    expect(await claim(0)).toEqual([all[0]!.id]);
  });

  it('removes a collection with everything it has', async () => {
    const s = await open(make);
    const c = await indexed(s);
    const keep = await indexed(s, 'keep');
    const space = await s.vectors.ensureSpace('m', 'sha', 2);
    await s.vectors.setActive(c.id, space.id);
    await s.vectors.insert(space.id, c.id, (await s.vectors.pending(space.id, c.id, 100)).map((p) => ({ chunkId: p.id, vector: Float32Array.from([1, 0]) })));
    await s.jobs.recordEvents([job(c, 'later.md')]);
    await s.jobs.setPaused(c.id, true);
    const kw = s.keyword('chunks_fts');
    const before = await kw.documentFrequency({ text: 'retry', term: 'retri', prefix: false });
    await s.collections.remove(c.id);
    expect(await s.collections.byId(c.id)).toBeUndefined();
    expect(await s.documents.indexedCount(c.id)).toBe(0);
    expect(await s.vectors.size(space.id)).toBe(0);
    expect(await s.jobs.counts()).toEqual(new Map());
    expect(await s.jobs.pauses()).toEqual(new Set());
    expect(await kw.documentFrequency({ text: 'retry', term: 'retri', prefix: false })).toBe(before / 2);
    expect(await s.documents.indexedCount(keep.id)).toBe(5);
    expect((await kw.counts()).rows).toBeGreaterThan(0);
  });

  it('keeps dataset folders in the order they were added, and model checks by key', async () => {
    const s = await open(make);
    expect(await s.datasets.addFolder('/z/sets')).toBe(true);
    expect(await s.datasets.addFolder('/a/sets')).toBe(true);
    expect(await s.datasets.addFolder('/z/sets')).toBe(false);
    expect(await s.datasets.folders()).toEqual(['/z/sets', '/a/sets']);
    expect(await s.datasets.removeFolder('/z/sets')).toBe(true);
    expect(await s.datasets.removeFolder('/z/sets')).toBe(false);
    expect(await s.datasets.check('k')).toBeUndefined();
    await s.datasets.putCheck('k', 0.97);
    await s.datasets.putCheck('k', 0.99);
    expect(await s.datasets.check('k')).toBe(0.99);
  });
});
