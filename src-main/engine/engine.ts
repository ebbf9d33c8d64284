// The engine facade: the only door the faces (CLI, MCP server, app API) use. It owns the
// database handle it opens and closes it; there is no module-level state.
import fs from 'node:fs';
import path from 'node:path';
import { invalidInput, notFound, TroveError } from './errors.js';
import { DEFAULT_CHUNKING, type ChunkOptions } from './ingest/chunker.js';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from './ingest/defaults.js';
import { indexCollection, type IndexProgress, type IndexReport } from './ingest/indexer.js';
import { errorCode } from './ingest/scan.js';
import { databasePath, defaultProfileDir } from './profile.js';
import { DocumentRetriever, documentUri, type GetOptions, type MultiGetOptions, type MultiGetResult, type RetrievedDocument } from './retrieve/documents.js';
import { registerFilterFunctions, type ResolvedFilters } from './search/filters.js';
import { LexicalSearch } from './search/lexical.js';
import { parseDateFilter, validateSearchRequest, type SearchRequest } from './search/request.js';
import { ChunkStore } from './store/chunks.js';
import { CollectionStore, type CollectionRow } from './store/collections.js';
import { openDatabase, type Db } from './store/database.js';
import { DocumentStore } from './store/documents.js';
import { StatsStore, type FailureRow } from './store/stats.js';

export interface EngineOptions {
  /** Profile folder; default TROVE_HOME or the OS app-data dir. */
  profileDir?: string;
  /** Files bigger than this are skipped with a reason (default 10 MB). */
  maxFileBytes?: number;
  chunking?: Partial<ChunkOptions>;
}

export interface AddCollectionInput {
  root: string;
  name?: string;
  include?: string[];
  exclude?: string[];
  context?: string;
}

export interface CollectionInfo {
  name: string;
  root: string;
  include: string[];
  exclude: string[];
  context: string;
  documents: number;
  chunks: number;
  skipped: number;
  failed: number;
  createdAt: string;
  lastIndexedAt: string | null;
}

export interface SearchResult {
  docid: string;
  collection: string;
  path: string;
  uri: string;
  title: string;
  kind: string;
  tags: string[];
  modified: string;
  score: number;
  snippet: string;
  line: number;
  chunk: { ordinal: number; lineStart: number; lineEnd: number; headingPath: string[] };
  explain?: Record<string, unknown>;
}

export interface SearchResponse {
  query: string;
  syntax: string;
  results: SearchResult[];
  offset: number;
  limit: number;
  has_more: boolean;
  next_offset: number | null;
  total_estimated: number;
  took_ms: number;
  plan: { strategy: string; expression: string; dropped: string[] };
}

export interface StatusReport {
  profileDir: string;
  database: { path: string; bytes: number };
  totals: { collections: number; documents: number; chunks: number; skipped: number; failed: number };
  collections: (CollectionInfo & { problems: FailureRow[] })[];
}

const NAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u;
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export class Engine {
  readonly profileDir: string;
  readonly databaseFile: string;
  private readonly db: Db;
  private readonly collections: CollectionStore;
  private readonly documents: DocumentStore;
  private readonly chunks: ChunkStore;
  private readonly stats: StatsStore;
  private readonly lexical: LexicalSearch;
  private readonly retriever: DocumentRetriever;
  private readonly chunking: ChunkOptions;
  private readonly maxFileBytes: number;
  /** Bumped whenever the index changes; caches keyed on it stay honest. */
  private generation = 0;
  private closed = false;

  private constructor(opts: EngineOptions) {
    this.profileDir = opts.profileDir ? path.resolve(opts.profileDir) : defaultProfileDir();
    this.databaseFile = databasePath(this.profileDir);
    this.db = openDatabase(this.databaseFile);
    registerFilterFunctions(this.db);
    this.collections = new CollectionStore(this.db);
    this.documents = new DocumentStore(this.db);
    this.chunks = new ChunkStore(this.db);
    this.stats = new StatsStore(this.db);
    this.lexical = new LexicalSearch(this.db);
    this.retriever = new DocumentRetriever(this.collections, this.documents);
    this.chunking = { ...DEFAULT_CHUNKING, ...opts.chunking };
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  static open(opts: EngineOptions = {}): Engine {
    return new Engine(opts);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  // ---- collections ---------------------------------------------------------------------

  addCollection(input: AddCollectionInput): CollectionInfo {
    const root = path.resolve(input.root);
    assertFolder(root);
    const name = input.name ?? path.basename(root);
    validateName(name);
    if (this.collections.get(name)) throw new TroveError('CONFLICT', `a collection named "${name}" already exists`);
    const include = validateGlobs(input.include?.length ? input.include : [...DEFAULT_INCLUDE], 'include');
    const exclude = validateGlobs([...DEFAULT_EXCLUDE, ...(input.exclude ?? [])], 'exclude');
    const row = this.collections.insert({ name, root: fs.realpathSync(root), include, exclude, context: input.context ?? '' });
    return this.info(row);
  }

  listCollections(): CollectionInfo[] {
    const counts = this.stats.counts();
    return this.collections.list().map((c) => this.info(c, counts));
  }

  renameCollection(oldName: string, newName: string): CollectionInfo {
    const c = this.requireCollection(oldName);
    validateName(newName);
    const clash = this.collections.get(newName);
    if (clash && clash.id !== c.id) throw new TroveError('CONFLICT', `a collection named "${newName}" already exists`);
    this.collections.rename(c.id, newName);
    this.generation++;
    return this.info(this.collections.get(newName)!);
  }

  removeCollection(name: string): void {
    const c = this.requireCollection(name);
    this.db.transaction(() => {
      this.chunks.deleteForCollection(c.id);
      this.collections.delete(c.id);
    })();
    this.generation++;
  }

  setCollectionContext(name: string, context: string): CollectionInfo {
    const c = this.requireCollection(name);
    if (context.length > 4000) throw invalidInput('a context note is limited to 4000 characters');
    this.collections.setContext(c.id, context);
    return this.info(this.collections.get(c.name)!);
  }

  // ---- indexing ------------------------------------------------------------------------

  async index(opts: { collection?: string; onProgress?: (p: IndexProgress) => void; signal?: AbortSignal } = {}): Promise<IndexReport[]> {
    const targets = opts.collection ? [this.requireCollection(opts.collection)] : this.collections.list();
    const reports: IndexReport[] = [];
    for (const c of targets) {
      try {
        reports.push(
          await indexCollection(
            { db: this.db, documents: this.documents, chunks: this.chunks },
            c,
            { chunking: this.chunking, maxFileBytes: this.maxFileBytes, onProgress: opts.onProgress, signal: opts.signal },
          ),
        );
        this.collections.markIndexed(c.id, Date.now());
      } finally {
        this.generation++;
      }
    }
    return reports;
  }

  // ---- search and retrieval ---------------------------------------------------------------

  search(input: SearchRequest): SearchResponse {
    const started = performance.now();
    const req = validateSearchRequest(input);
    if (req.mode !== 'keyword') {
      throw new TroveError('UNAVAILABLE', `${req.mode} search needs embeddings, which are not set up in this build; use keyword search`);
    }
    const filters: ResolvedFilters = {
      collectionIds: req.collections?.map((n) => this.requireCollection(n).id),
      pathGlob: req.path,
      kinds: req.kinds,
      modifiedAfterMs: parseDateFilter(req.modifiedAfter, 'modifiedAfter'),
      modifiedBeforeMs: parseDateFilter(req.modifiedBefore, 'modifiedBefore'),
      tags: req.tags,
    };
    const r = this.lexical.search({ ...req, filters }, this.generation);
    return {
      query: req.query,
      syntax: req.syntax,
      results: r.hits.map((h) => ({
        docid: h.docid,
        collection: h.collection,
        path: h.path,
        uri: documentUri(h.collection, h.path),
        title: h.title,
        kind: h.kind,
        tags: h.tags,
        modified: new Date(h.modifiedMs).toISOString(),
        score: h.score,
        snippet: h.snippet,
        line: h.line,
        chunk: h.chunk,
        ...(h.explain ? { explain: h.explain } : {}),
      })),
      offset: req.offset,
      limit: req.limit,
      has_more: r.hasMore,
      next_offset: r.nextOffset,
      total_estimated: r.totalEstimated,
      took_ms: Math.round((performance.now() - started) * 100) / 100,
      plan: r.plan,
    };
  }

  get(locator: string, opts: GetOptions = {}): RetrievedDocument {
    return this.retriever.get(locator, opts);
  }

  multiGet(pattern: string, opts: MultiGetOptions = {}): MultiGetResult {
    return this.retriever.multiGet(pattern, opts);
  }

  status(): StatusReport {
    const counts = this.stats.counts();
    const collections = this.collections.list().map((c) => ({ ...this.info(c, counts), problems: this.stats.failures(c.id, 50) }));
    const sum = (k: 'documents' | 'chunks' | 'skipped' | 'failed') => collections.reduce((n, c) => n + c[k], 0);
    let bytes = 0;
    for (const suffix of ['', '-wal']) {
      try {
        bytes += fs.statSync(this.databaseFile + suffix).size;
      } catch {
        /* no WAL yet */
      }
    }
    return {
      profileDir: this.profileDir,
      database: { path: this.databaseFile, bytes },
      totals: { collections: collections.length, documents: sum('documents'), chunks: sum('chunks'), skipped: sum('skipped'), failed: sum('failed') },
      collections,
    };
  }

  private requireCollection(name: string): CollectionRow {
    const c = this.collections.get(name);
    if (!c) {
      const known = this.collections.list().map((k) => k.name);
      throw notFound(`no collection named "${name}"${known.length ? ` (collections: ${known.join(', ')})` : ''}`);
    }
    return c;
  }

  private info(c: CollectionRow, counts = this.stats.counts()): CollectionInfo {
    const n = counts.get(c.id);
    return {
      name: c.name,
      root: c.root,
      include: c.include,
      exclude: c.exclude,
      context: c.context,
      documents: n?.documents ?? 0,
      chunks: n?.chunks ?? 0,
      skipped: n?.skipped ?? 0,
      failed: n?.failed ?? 0,
      createdAt: new Date(c.createdAt).toISOString(),
      lastIndexedAt: c.lastIndexedAt ? new Date(c.lastIndexedAt).toISOString() : null,
    };
  }
}

function validateName(name: string): void {
  if (!NAME.test(name)) {
    throw invalidInput(
      `"${name}" is not a valid collection name: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
}

function validateGlobs(globs: string[], what: string): string[] {
  for (const g of globs) {
    if (typeof g !== 'string' || !g.trim()) throw invalidInput(`${what} globs must be non-empty strings`);
    if (g.split('/').includes('..') || g.startsWith('/')) throw invalidInput(`${what} glob "${g}" must be relative to the collection root`);
  }
  return globs.map((g) => g.trim());
}

function assertFolder(root: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch (err) {
    throw new TroveError('IO', `folder ${root} does not exist or cannot be read (${errorCode(err)})`);
  }
  if (!st.isDirectory()) throw new TroveError('IO', `${root} is a file, not a folder`);
  try {
    fs.readdirSync(root);
  } catch (err) {
    throw new TroveError('IO', `folder ${root} cannot be read (${errorCode(err)})`);
  }
}
