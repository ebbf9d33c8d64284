// Identical answers on both backends, pinned: one folder — Markdown with tags, code, Japanese, an
// e-mail with attachments, a PDF and a PDF that does not parse — indexed and embedded on SQLite and
// on PostgreSQL gives exactly the rows, search answers (keyword in every syntax with every filter,
// pages, explain, pagination; vector, hybrid and rerank), get and multi-get answers, errors and
// status that test/integration/answers/*.json hold. Both backends are held to the same files, so a
// drift between them (or from what was reviewed) fails. After an intended change, regenerate with
// `npx vitest run test/integration/answers.test.ts -t sqlite -u` and read the diff; the PostgreSQL
// run must then pass unchanged. Left out: what differs by nature between two indexes (random
// docids, timings, when a row was written); semantic scores are kept to two decimals (float32
// cosines computed by sqlite-vec/usearch and by pgvector).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { Engine, SearchRequest, SearchResponse } from '../../src-main/engine/index.js';
import type { Storage } from '../../src-main/engine/store/storage.js';
import { modelsDir } from '../embed/models-dir.js';
import { describeBackends } from '../helpers/backends.js';
import { FORMATS } from '../helpers/formats.js';
import { setMtime, tempDir, writeTree } from '../helpers/tmp.js';

const FILES: Record<string, string> = {
  'docs/resilience.md': '---\ntags: [ops, http]\n---\n# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds; retries start after a timeout too.\n',
  'docs/client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections. Failed requests are logged.\n',
  'docs/backoff.md': '# Backoff\n\nExponential backoff doubles the wait between attempts, with jitter.\n',
  'notes/cells.md': '---\ntags: [biology]\n---\n# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP. Cells divide by mitosis.\n',
  'notes/tokyo.md': '# 東京\n\n東京の天気は晴れです。全文検索の例。東京タワーは赤い。\n',
  'notes/kyoto.md': '# 京都\n\n京都の天気は雨です。東京から新幹線で二時間。\n',
  'src/retry.ts': '// retry with exponential backoff\nexport async function retry(fn: () => Promise<void>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch { await sleep(2 ** i * 100); }\n  }\n}\n',
};
const COPIED = { 'minutes.eml': 'good/minutes.eml', 'report.pdf': 'good/report.pdf', 'truncated.pdf': 'broken/truncated.pdf' };
const WHEN = new Date('2024-06-01T00:00:00Z');

const KEYWORD: SearchRequest[] = [
  { query: 'retries exponential backoff' }, // AND, then looser steps ranked below
  { query: 'http requests failed timeouts nonexistentword' }, // a term nowhere: dropped, partial matches ranked
  { query: 'the client' }, // a stop word and a common word
  { query: '東京の天気' }, // CJK bigrams
  { query: 'retr', syntax: 'prefix' },
  { query: 'backoff', limit: 1 },
  { query: 'backoff', limit: 1, offset: 1 },
  { query: 'backoff retries', explain: true },
  { query: 'backoff', path: 'docs/**' },
  { query: 'backoff', kinds: ['code'] },
  { query: 'requests', tags: ['ops'] },
  { query: 'cell mitochondria', collections: ['NOTES'], minScore: 0.5 },
  { query: 'requests', modifiedAfter: '2000-01-01', snippetChars: 60 },
  { query: 'moraine photogrammetry' }, // a PDF's page, and the same PDF attached to the e-mail
  { query: 'nothing-matches-this' },
  { query: 'exponential backoff', syntax: 'phrase' },
  { query: 'exponential retries', syntax: 'phrase' }, // the words, but never in this order
  { query: '東京', syntax: 'phrase' },
  { query: 'retries -timeout', syntax: 'boolean' }, // a top-level NOT drops the whole document
  { query: '(cell OR client) AND NOT keep-alive', syntax: 'boolean' },
  { query: '"http client" OR mitochondria', syntax: 'boolean' },
  { query: 'retr* NOT jitter', syntax: 'boolean', tags: ['ops'] },
];
const SEMANTIC: SearchRequest[] = [
  { query: 'how do cells make energy', mode: 'vector' },
  { query: 'waiting longer between attempts', mode: 'vector', path: 'docs/**' },
  { query: 'waiting longer between attempts', mode: 'vector', tags: ['ops'], explain: true },
  { query: 'waiting longer between attempts', mode: 'vector', limit: 1, offset: 1 },
  { query: 'retries exponential backoff', mode: 'hybrid' },
  { query: 'retries exponential backoff', mode: 'hybrid', explain: true, snippetChars: 80 },
  { query: 'retries -timeout', syntax: 'boolean', mode: 'hybrid' },
  { query: '?!', mode: 'hybrid' }, // no words: no keyword leg, the vector leg answers
  { query: 'powerhouse of the cell', mode: 'rerank', explain: true },
];

/** Every non-integer number rounded (semantic scores: float32 cosines differ in the last bits between backends). */
function rounded<T>(v: T, digits: number): T {
  if (typeof v === 'number') return (Number.isInteger(v) ? v : Number(v.toFixed(digits))) as T;
  if (Array.isArray(v)) return v.map((x) => rounded(x, digits)) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x, digits)])) as T;
  return v;
}

/** Objects with their keys in order (PostgreSQL's jsonb keeps a document's metadata keys in its own order). */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, sortedKeys(x)]));
  return v;
}

/** A response without what is each index's own: its timing, docids, when a hit was indexed. */
function stable(r: SearchResponse) {
  const { took_ms: _took, ...rest } = r;
  return { ...rest, results: r.results.map(({ docid: _d, indexed_at: _i, ...hit }) => hit) };
}

const errorOf = async (p: Promise<unknown>) => p.then(() => 'no error', (e: { code?: string; message: string }) => ({ code: e.code, message: e.message }));
const sha = (text: string | undefined) => (text === undefined ? null : createHash('sha256').update(text).digest('hex').slice(0, 16));

/** The collection's rows: every document (attachments with their file) with its chunks, as the storage reads them back. */
async function rows(s: Storage, collection: string) {
  const c = (await s.collections.get(collection))!;
  const files = (await s.documents.fingerprints(c.id)).map((f) => f.path);
  const indexed = (await s.documents.indexedDocuments(c.id)).map((d) => d.path);
  const docs = await s.documents.byPaths(c.id, [...new Set([...files, ...indexed])].sort());
  const byId = new Map([...docs.values()].map((d) => [d.id, d.path]));
  const out = [];
  for (const d of [...docs.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    const text = await s.documents.content(d.id);
    const chunks = (await s.chunks.forDocument(d.id)).map(({ id: _id, documentId: _doc, ...chunk }) => chunk);
    const { id: _id, collectionId: _c, docid: _docid, indexedAt: _at, parentId, ...doc } = d;
    out.push({ ...doc, parent: parentId === null ? null : byId.get(parentId), text: { length: text?.length ?? null, sha256: sha(text) }, chunks });
  }
  return out;
}

describeBackends('identical answers', (b) => {
  let engine: Engine;
  let root: string;
  const answers = (name: string) => path.join(import.meta.dirname, 'answers', `${name}.json`);
  const failures = async () => (await engine.failures()).map(({ nextRetryAt, ...f }) => ({ ...f, retrying: nextRetryAt !== null }));
  const pinned = (name: string, value: unknown) => expect(`${JSON.stringify(sortedKeys(value), null, 1)}\n`).toMatchFileSnapshot(answers(name));

  beforeAll(async () => {
    root = tempDir('trove-answers-');
    writeTree(root, FILES);
    for (const [to, from] of Object.entries(COPIED)) fs.copyFileSync(path.join(FORMATS, from), path.join(root, to));
    for (const f of [...Object.keys(FILES), ...Object.keys(COPIED)]) setMtime(path.join(root, f), WHEN);
    engine = await b.open({ embeddings: { modelsDir, defaultModel: 'all-MiniLM-L6-v2', rerankModel: 'test-tiny-cross-encoder', workers: 1 } });
    await engine.addCollection({ root, name: 'notes' });
  }, 120_000);

  it('indexes the folder into the same rows, failures and report', async () => {
    const [first] = await engine.index();
    const { durationMs: _ms, ...report } = first!;
    const peek = await b.peek(engine);
    await pinned('index-first', { report, failures: await failures(), rows: await rows(peek, 'notes') });
  });

  it('answers keyword, vector, hybrid and rerank searches, get and multi-get, errors and status the same', async () => {
    await engine.embed();
    const keyword = [];
    for (const req of KEYWORD) keyword.push({ req, res: stable(await engine.search(req)) });
    const semantic = [];
    for (const req of SEMANTIC) semantic.push({ req, res: rounded(stable(await engine.search(req)), 2) });
    const docid = (await engine.search({ query: 'mitochondria' })).results[0]!.docid;
    const got = [];
    for (const [locator, opts] of [
      ['docs/resilience.md', {}],
      ['notes/docs/resilience.md:5', { maxLines: 3, lineNumbers: true }],
      [`#${docid}`, { fromLine: 2, highlight: { query: 'powerhouse cell' } }],
      ['trove://notes/notes/tokyo.md', { collections: ['NOTES'] }],
      ['notes/report.pdf', { fromLine: 1, maxLines: 6 }],
    ] as [string, Parameters<Engine['get']>[1]][]) {
      const { docid: _d, ...doc } = await engine.get(locator, opts);
      got.push({ locator: locator.replace(docid, '<docid>'), opts, doc });
    }
    const errors = [];
    for (const ask of [
      () => engine.get('docs/resiliense.md'), // a typo: suggestions
      () => engine.get('docs/resilience.md', { collections: ['other'] }),
      () => engine.get('#abcdef12'),
      () => engine.get('../etc/passwd'),
      () => engine.get('notes/truncated.pdf'),
      () => engine.search({ query: 'NOT backoff', syntax: 'boolean' }),
      () => engine.search({ query: 'backoff', collections: ['nope'] }),
      () => engine.search({ query: 'backoff', kinds: ['spreadsheet-ish'] }),
    ]) errors.push(await errorOf(ask()));
    const multi = [];
    for (const [pattern, opts] of [
      ['docs/*.md', {}],
      ['notes/**', { maxBytes: 80 }], // the longer notes are skipped with the reason
      ['docs/client.md, docs/missing.md, notes/cells.md', { maxLines: 2, lineNumbers: true }],
      ['**/*.pdf', {}],
      ['src/nothing-*.ts', {}],
    ] as [string, Parameters<Engine['multiGet']>[1]][]) {
      const r = await engine.multiGet(pattern, opts);
      multi.push({ pattern, opts, ...r, documents: r.documents.map(({ docid: _d, ...d }) => d) });
    }
    const s = await engine.status();
    const status = {
      totals: s.totals,
      collections: s.collections.map(({ createdAt: _c, lastIndexedAt: _l, root: _r, ...c }) => c),
      needsEmbedding: s.needsEmbedding,
      hasVectorIndex: s.hasVectorIndex,
      embeddings: s.embeddings.collections.map(({ summary: _s, ...c }) => c),
    };
    expect(keyword.some((k) => k.res.results.length > 1) && semantic.every((k) => k.res.plan !== undefined)).toBe(true);
    await pinned('search', { keyword, semantic, get: got, errors, multiGet: multi, collections: (await engine.listCollections()).map(({ createdAt: _c, lastIndexedAt: _l, root: _r, ...c }) => c), status });
  });

  it('re-indexes an edit, a move and a delete into the same rows; the moved document keeps its docid', async () => {
    const peek = await b.peek(engine);
    const docid = (await engine.get('notes/docs/backoff.md')).docid;
    fs.writeFileSync(path.join(root, 'docs/client.md'), '# HTTP client\n\nThe client now speaks HTTP/3 over QUIC. Failed requests are retried.\n');
    setMtime(path.join(root, 'docs/client.md'), new Date('2024-07-01T00:00:00Z'));
    fs.renameSync(path.join(root, 'docs/backoff.md'), path.join(root, 'docs/waiting.md'));
    fs.rmSync(path.join(root, 'notes/kyoto.md'));
    const [second] = await engine.index();
    const { durationMs: _ms2, ...again } = second!;
    expect(again).toMatchObject({ updated: 1, renamed: 1, removed: 1, added: 0 });
    expect((await engine.get('notes/docs/waiting.md')).docid).toBe(docid); // the moved document keeps its docid
    await pinned('index-second', { report: again, failures: await failures(), rows: await rows(peek, 'notes') });
  });
});
