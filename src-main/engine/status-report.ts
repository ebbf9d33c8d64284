// What the faces show about the index: a collection's info (counts by state and kind) and the
// whole status report (totals, problems, indexing, embedding, datasets, memory), limited to the
// collections a caller may see. Assembled from the storage's counts and the services' own
// reports; owns no state.
import type { CollectionRow } from './store/collections.js';
import type { CollectionCounts } from './store/stats.js';
import type { Storage } from './store/storage.js';
import { DEFAULT_OCR_LANGUAGES } from './ocr/languages.js';
import type { CollectionInfo, DatasetInfo, EmbeddingStatusReport, IndexingStatus, OcrStatusReport, StatusReport } from './types/index.js';

export interface StatusSources {
  profileDir: string;
  storage: Storage;
  indexing: () => Promise<IndexingStatus>;
  embeddings: (visible: readonly CollectionRow[]) => Promise<EmbeddingStatusReport>;
  ocr: (visible: readonly CollectionRow[]) => Promise<OcrStatusReport>;
  datasets: () => Promise<DatasetInfo[]>;
  memory: () => Promise<NonNullable<StatusReport['memory']>>;
}

export class StatusReporter {
  constructor(private readonly s: StatusSources) {}

  async info(c: CollectionRow, counts?: Map<number, CollectionCounts>): Promise<CollectionInfo> {
    return collectionInfo(c, counts ?? (await this.s.storage.stats.counts()));
  }

  /**
   * `collections`: an allow-list (a scoped token); other collections are left out entirely.
   * `memory`: include the memory store's summary (default: when no allow-list is given).
   */
  async status(opts: { collections?: readonly string[]; memory?: boolean } = {}): Promise<StatusReport> {
    const { storage } = this.s;
    const allow = opts.collections && new Set(opts.collections.map((n) => n.toLowerCase()));
    const [all, counts, bytes, indexing] = await Promise.all([storage.collections.list(), storage.stats.counts(), storage.stats.databaseBytes(), this.s.indexing()]);
    const visible = all.filter((c) => !allow || allow.has(c.name.toLowerCase()));
    const collections = await Promise.all(visible.map(async (c) => ({ ...collectionInfo(c, counts), problems: await storage.stats.failures(c.id, 50) })));
    const sum = (k: 'documents' | 'chunks' | 'skipped' | 'failed') => collections.reduce((n, c) => n + c[k], 0);
    const names = new Set(visible.map((c) => c.name));
    const [embeddings, ocr, datasets, memory] = await Promise.all([
      this.s.embeddings(visible),
      this.s.ocr(visible),
      // datasets are not collections: a token scoped to some collections sees none of them
      allow ? [] : this.s.datasets(),
      (opts.memory ?? !opts.collections) ? this.s.memory() : null,
    ]);
    return {
      profileDir: this.s.profileDir,
      database: { path: storage.location, bytes },
      totals: {
        collections: collections.length,
        documents: sum('documents'),
        chunks: sum('chunks'),
        skipped: sum('skipped'),
        failed: sum('failed'),
        kinds: sumKinds(collections.map((c) => c.kinds)),
      },
      collections,
      indexing: { ...indexing, watchers: indexing.watchers.filter((w) => names.has(w.collection)), collections: indexing.collections.filter((c) => names.has(c.collection)) },
      ...embeddings,
      ocr,
      datasets,
      ...(memory ? { memory } : {}),
    };
  }
}

export function sumKinds(all: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kinds of all) for (const [k, n] of Object.entries(kinds)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** A collection as faces show it, with its counts (StatsRepository.counts). */
export function collectionInfo(c: CollectionRow, counts: Map<number, CollectionCounts>): CollectionInfo {
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
    kinds: n?.kinds ?? {},
    createdAt: new Date(c.createdAt).toISOString(),
    lastIndexedAt: c.lastIndexedAt ? new Date(c.lastIndexedAt).toISOString() : null,
    redactSecrets: c.redactSecrets,
    ocrLanguages: c.ocrLanguages ?? [...DEFAULT_OCR_LANGUAGES],
  };
}
