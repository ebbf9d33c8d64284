// A folder dataset: a folder of documents that Trove indexes itself, like a read-only collection of
// the `dataset` kind (`~dataset:<id>`): scanned, watched and embedded by the same pipeline as the
// user's folders, into its own keyword index (dataset_fts), so it never shows in document search
// nor moves its statistics. Searched by keyword, semantic (its vectors) or hybrid, like a collection.
import path from 'node:path';
import { notFound, TroveError } from '../errors.js';
import type { Bm25Scale } from '../search/keyword-search.js';
import type { RankedHit } from '../search/hit.js';
import { validateSearchRequest } from '../search/request.js';
import type { CollectionRow } from '../store/collections.js';
import type { DatasetDocument, DatasetHit, DatasetSearchMode } from '../types/datasets.js';
import { flatten } from './plain-snippet.js';
import type { FolderIndex } from './ports.js';

/** System collections of registered folder datasets are named so; a person's collection never can be ('~'). */
export const DATASET_COLLECTION_PREFIX = '~dataset:';

export function datasetCollectionName(id: string): string {
  return `${DATASET_COLLECTION_PREFIX}${id}`;
}

export interface FolderPage {
  mode: DatasetSearchMode;
  results: DatasetHit[];
  hasMore: boolean;
  notices: string[];
}

export class FolderDataset {
  /** The documents counted last (refreshSize(): when it loads, and again after something that may move the count). */
  private counted = 0;

  constructor(
    readonly id: string,
    readonly collection: CollectionRow,
    private readonly index: FolderIndex,
  ) {}

  /** Its indexed documents, as last counted. */
  get size(): number {
    return this.counted;
  }

  /** Counts its documents again. */
  async refreshSize(): Promise<number> {
    return (this.counted = await this.index.documentCount(this.collection.id));
  }

  async search(query: string, opts: { topK: number; offset: number; mode?: DatasetSearchMode; snippetLength: number }): Promise<FolderPage> {
    const notices: string[] = [];
    const vectors = await this.index.hasVectors(this.collection.id);
    let mode = opts.mode;
    if (!mode) {
      mode = vectors ? 'hybrid' : 'keyword';
      if (!vectors) notices.push(`dataset "${this.id}" has no vectors yet: keyword search only (its documents are embedded in the background, or by \`trove embed\`)`);
    }
    if (mode === 'semantic' && !vectors) {
      throw new TroveError('UNAVAILABLE', `semantic search of dataset "${this.id}" is off: its documents have no vectors yet (they are embedded in the background, or by \`trove embed\`); keyword mode works now`);
    }
    const filters = { collectionIds: [this.collection.id] };
    const req = validateSearchRequest({
      query,
      mode: mode === 'semantic' ? 'vector' : mode,
      limit: opts.topK,
      offset: opts.offset,
      snippetChars: Math.max(40, Math.min(5000, opts.snippetLength)),
      explain: mode !== 'keyword', // the legs' cosine, for each hit's similarity
      freshness: false,
      ...(mode === 'semantic' ? { minScore: 0 } : {}),
    });
    let page: RankedHit[];
    let hasMore: boolean;
    let bm25Scale: Bm25Scale | null;
    if (mode === 'keyword') {
      const r = await this.index.keyword({ ...req, filters });
      page = r.hits;
      hasMore = r.hasMore;
      bm25Scale = r.bm25Scale;
    } else {
      const r = await this.index.modes(req, filters, [this.collection.id]);
      page = r.hits.slice(req.offset, req.offset + req.limit);
      hasMore = r.hits.length > req.offset + req.limit;
      bm25Scale = r.bm25Scale;
      notices.push(...r.notices.map((n) => n.replaceAll(this.collection.name, `dataset "${this.id}"`)));
    }
    return { mode, results: page.map((h) => this.hit(h, mode, opts.snippetLength, bm25Scale)), hasMore, notices };
  }

  private hit(h: RankedHit, mode: DatasetSearchMode, snippetLength: number, bm25Scale: Bm25Scale | null): DatasetHit {
    return {
      dataset: this.id,
      ref: h.path,
      title: h.title || path.posix.basename(h.path),
      path: h.path,
      snippet: flatten(h.snippet, snippetLength),
      score: h.score,
      similarity: similarityOf(h, mode),
      chunk: { ordinal: h.chunk.ordinal, lineStart: h.chunk.lineStart, lineEnd: h.chunk.lineEnd, page: h.chunk.page },
      modified: new Date(h.modifiedMs).toISOString(),
      evidence: { bm25: h.signals?.bm25 ?? null, bm25Scale, cosine: h.signals?.cosine ?? null },
    };
  }

  async document(ref: string): Promise<DatasetDocument> {
    const found = await this.index.document(this.collection.id, ref);
    if (!found) throw notFound(`dataset "${this.id}" has no document "${ref}": its refs are the documents' paths relative to ${this.collection.root}`);
    const { doc, text, chunks } = found;
    return {
      dataset: this.id,
      ref: doc.path,
      title: doc.title || path.posix.basename(doc.path),
      path: doc.path,
      text,
      metadata: doc.metadata,
      chunks: chunks.map((c) => ({ ordinal: c.ordinal, charStart: c.charStart, charEnd: c.charEnd, lineStart: c.lineStart, lineEnd: c.lineEnd, page: c.page })),
      modified: new Date(doc.mtimeMs).toISOString(),
    };
  }
}

/** The cosine a vector leg gave the hit (semantic: exact; hybrid: the vector leg's score, which is the cosine above its 0.3 floor); null when only keywords ranked it. */
function similarityOf(h: RankedHit, mode: DatasetSearchMode): number | null {
  const explain = h.explain as { cosine?: number; legs?: Record<string, { score: number }> } | undefined;
  if (mode === 'semantic') return typeof explain?.cosine === 'number' ? explain.cosine : h.score;
  if (mode === 'hybrid') return explain?.legs?.vector?.score ?? null;
  return null;
}
