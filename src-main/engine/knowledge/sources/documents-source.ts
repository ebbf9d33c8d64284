// The documents source: the user's collections, searched together in one engine search (they
// share one keyword index, so BM25 statistics are the corpus's, not each folder's), in the
// mode asked for or — by default — hybrid where any chosen collection has vectors, else keyword.
// Hits come back with their raw evidence (search/hit.ts signals) and are calibrated here. It reads
// the index through DocumentsIndex (open-knowledge.ts wires it to the engine).
import { TroveError } from '../../errors.js';
import { documentUri } from '../../retrieve/documents.js';
import type { ResolvedFilters } from '../../store/filters.js';
import type { RankedHit } from '../../search/hit.js';
import type { KeywordRequest, KeywordResult } from '../../search/keyword-search.js';
import type { ModeResult } from '../../search/modes.js';
import { parseDateFilter, validateSearchRequest, type ValidSearchRequest } from '../../search/request.js';
import type { ChunkRow } from '../../store/chunks.js';
import type { CollectionRow } from '../../store/collections.js';
import type { DocumentRow } from '../../store/documents.js';
import type { KnowledgeItem, KnowledgeMode, KnowledgeScope } from '../../types/knowledge.js';
import { calibrate, evidenceOf, roundScore, scoreTypeOf, type LegsRun } from '../calibrate.js';
import type { ItemChunk } from '../retrieval.js';
import { matcherFor } from '../anchor.js';
import { plainSnippet, spansIn } from '../snippets.js';
import type { TermMatcher } from '../../search/snippet.js';
import type { ItemRef } from '../uri.js';
import type { Candidate, KnowledgeSource, SourceItem, SourceQuery, SourceResult, SourceTarget } from './source.js';

/** A read of the index: in hand on SQLite (sqlite-documents.ts), a promise on PostgreSQL. */

/** What the documents source reads of an index, on either backend. */
export interface DocumentsIndex {
  /** The folder collections. */
  collections(): Promise<CollectionRow[]>;
  /** Indexed documents per collection id. */
  counts(): Promise<ReadonlyMap<number, { documents: number }>>;
  /** Why vector search cannot run over these collections (null: it can). */
  vectorsUnavailable(collectionIds: readonly number[], opts?: { catchUp?: boolean }): Promise<string | null>;
  keyword(req: KeywordRequest): Promise<KeywordResult>;
  /** Vector and hybrid search (search/modes.ts's run). */
  modes(req: ValidSearchRequest, filters: ResolvedFilters, collectionIds: number[]): Promise<ModeResult>;
  /** The indexed document a locator names among the collections a caller may see (NOT_FOUND otherwise). */
  locate(locator: string, collections?: readonly string[]): Promise<{ doc: DocumentRow; collection: CollectionRow }>;
  content(documentId: number): Promise<string | undefined>;
  chunks(documentId: number): Promise<ChunkRow[]>;
  /** Tells background embedding a search is running (it gives way, as for the engine's own searches). */
  searched(): void;
}

export class DocumentsSource implements KnowledgeSource {
  readonly kind = 'documents' as const;

  constructor(private readonly index: DocumentsIndex) {}

  async targets(scope: KnowledgeScope, opts: { detail?: boolean } = {}): Promise<SourceTarget[]> {
    const allow = scope.collections ? new Set(scope.collections.map((n) => n.toLowerCase())) : null;
    const counts = opts.detail ? await this.index.counts() : null;
    const visible = (await this.index.collections()).filter((c) => !allow || allow.has(c.name.toLowerCase()));
    const withVectors = opts.detail ? await Promise.all(visible.map(async (c) => (await this.index.vectorsUnavailable([c.id])) === null)) : null;
    return visible.map((c, i) => {
      const vectors = !!withVectors?.[i];
      return {
        source: `documents:${c.name}`,
        kind: 'documents',
        name: c.name,
        key: c.id,
        items: counts ? (counts.get(c.id)?.documents ?? 0) : null,
        defaultMode: vectors ? 'hybrid' : 'keyword',
        modes: vectors ? ['keyword', 'semantic', 'hybrid'] : ['keyword'],
        unavailable: null,
      };
    });
  }

  async search(targets: readonly SourceTarget[], q: SourceQuery): Promise<SourceResult[]> {
    const started = performance.now();
    this.index.searched();
    const ids = targets.map((t) => t.key as number);
    const source = targets.length === 1 ? targets[0]!.source : 'documents';
    const filters: ResolvedFilters = {
      collectionIds: ids,
      pathGlob: q.filters.path,
      kinds: q.filters.kinds,
      modifiedAfterMs: parseDateFilter(q.filters.date_from, 'filters.date_from'),
      modifiedBeforeMs: parseDateFilter(q.filters.date_to, 'filters.date_to'),
      tags: q.filters.tags,
    };
    const noVectors = q.mode === 'keyword' ? null : await this.index.vectorsUnavailable(ids, { catchUp: true });
    const mode: KnowledgeMode = q.mode ?? (noVectors ? 'keyword' : 'hybrid');
    const notices: string[] = [];
    const result = (m: KnowledgeMode | null, candidates: Candidate[], exhausted: boolean, total: number | null): SourceResult[] => [
      { source, kind: 'documents', mode: m, candidates, exhausted, total, notices, tookMs: round2(performance.now() - started) },
    ];
    if (mode === 'semantic' && noVectors) throw new TroveError('UNAVAILABLE', `semantic search is off for ${source}: ${noVectors}`);
    if (mode === 'keyword') {
      const lx = await this.index.keyword({ query: q.query, syntax: 'match', limit: q.depth, offset: 0, snippetChars: q.snippetLength, explain: false, filters });
      const run: LegsRun = { keyword: true, vector: false, bm25Scale: lx.bm25Scale };
      return result('keyword', this.candidates(lx.hits, run, q.snippetLength, matcherFor(q.query)), !lx.hasMore, lx.totalEstimated);
    }
    const req = validateSearchRequest({ query: q.query, mode: mode === 'semantic' ? 'vector' : 'hybrid', limit: q.depth, snippetChars: q.snippetLength, minScore: mode === 'semantic' ? 0 : undefined, freshness: false });
    const r = await this.index.modes(req, filters, ids);
    notices.push(...r.notices);
    const run: LegsRun = { keyword: r.ran.keyword, vector: r.ran.vector, bm25Scale: r.bm25Scale };
    const ran: KnowledgeMode = run.keyword && run.vector ? 'hybrid' : run.vector ? 'semantic' : 'keyword';
    const hits = r.hits.slice(0, q.depth);
    return result(ran, this.candidates(hits, run, q.snippetLength, matcherFor(q.query)), r.exhausted && hits.length === r.hits.length, r.total);
  }

  private candidates(hits: readonly RankedHit[], run: LegsRun, snippetLength: number, matcher: TermMatcher | null): Candidate[] {
    const scores = calibrate(hits.map((h) => evidenceOf(h.signals, run)));
    const scoreType = scoreTypeOf(run);
    return hits.map((h, rank) => {
      const snippet = plainSnippet(h.snippet, snippetLength);
      const item: KnowledgeItem = {
        ...itemOf(h.docid, h.collection, h.path, h.title, h.kind, h.tags, h.modifiedMs),
        snippet,
        highlights: spansIn(snippet, matcher),
        score: roundScore(scores[rank]!),
        score_type: scoreType,
        loc: {
          chunk_index: h.chunk.ordinal,
          line_start: h.chunk.lineStart,
          line_end: h.chunk.lineEnd,
          ...pageOf(h.chunk),
          ...(h.ocr ? { ocr_confidence: h.ocr.confidence } : {}),
          ...(h.chunk.headingPath.length ? { heading_path: h.chunk.headingPath } : {}),
        },
      };
      return { item, score: scores[rank]!, modifiedMs: h.modifiedMs, rank };
    });
  }

  async open(ref: ItemRef, scope: KnowledgeScope): Promise<SourceItem> {
    if (ref.source !== 'documents') throw new TroveError('INTERNAL', `documents cannot open a ${ref.source} item`);
    const { doc, collection } = await this.index.locate(ref.locator, scope.collections ?? undefined);
    const [text, rows] = await Promise.all([this.index.content(doc.id), this.index.chunks(doc.id)]);
    const chunks: ItemChunk[] = rows.map((c) => ({
      index: c.ordinal,
      charStart: c.charStart,
      charEnd: c.charEnd,
      lineStart: c.lineStart,
      lineEnd: c.lineEnd,
      ...pageOf(c),
      ...(c.headingPath.length ? { headingPath: c.headingPath } : {}),
    }));
    return {
      meta: { ...itemOf(doc.docid, collection.name, doc.path, doc.title, doc.kind, doc.tags, doc.mtimeMs), snippet: null, highlights: [], score: null, score_type: null, loc: null },
      text: text ?? '',
      chunks,
      version: `${doc.hash ?? doc.size}:${doc.indexedAt}`,
      attachments: Object.keys(doc.metadata).length ? [{ type: 'metadata', metadata: doc.metadata }] : null,
    };
  }
}

function itemOf(docid: string, collection: string, path: string, title: string, kind: string, tags: string[], modifiedMs: number) {
  return {
    id: `#${docid}`,
    source: 'documents',
    collection,
    title: title || path.split('/').pop() || path,
    uri: documentUri(collection, path),
    path,
    created_at: null,
    last_modified: new Date(modifiedMs).toISOString(),
    version: null,
    tags,
    kind,
  } satisfies Omit<KnowledgeItem, 'snippet' | 'highlights' | 'score' | 'score_type' | 'loc'>;
}

/** A chunk's page, where the format gives one (paged formats add it to chunk locations). */
export function pageOf(chunk: object): { page?: number } {
  const page = (chunk as { page?: unknown }).page;
  return typeof page === 'number' ? { page } : {};
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
