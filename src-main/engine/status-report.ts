// What the faces show about the index: a collection's info (counts by state and kind) and the
// whole status report (totals, problems, indexing, embedding, datasets, memory), limited to the
// collections a caller may see. Assembled from the services' own reports; owns no state.
import type { CollectionRow, CollectionStore } from './store/collections.js';
import { databaseFileBytes } from './store/database.js';
import type { CollectionCounts, StatsStore } from './store/stats.js';
import type { CollectionInfo, DatasetInfo, EmbeddingStatusReport, IndexingStatus, StatusReport } from './types/index.js';

export interface StatusSources {
  profileDir: string;
  databaseFile: string;
  collections: CollectionStore;
  stats: StatsStore;
  indexing: () => IndexingStatus;
  embeddings: (visible: readonly CollectionRow[]) => EmbeddingStatusReport;
  datasets: () => DatasetInfo[];
  memory: () => NonNullable<StatusReport['memory']>;
}

export class StatusReporter {
  constructor(private readonly s: StatusSources) {}

  info(c: CollectionRow, counts = this.s.stats.counts()): CollectionInfo {
    return collectionInfo(c, counts);
  }

  /**
   * `collections`: an allow-list (a scoped token); other collections are left out entirely.
   * `memory`: include the memory store's summary (default: when no allow-list is given).
   */
  status(opts: { collections?: readonly string[]; memory?: boolean } = {}): StatusReport {
    const { stats } = this.s;
    const counts = stats.counts();
    const allow = opts.collections && new Set(opts.collections.map((n) => n.toLowerCase()));
    const visible = this.s.collections.list().filter((c) => !allow || allow.has(c.name.toLowerCase()));
    const collections = visible.map((c) => ({ ...this.info(c, counts), problems: stats.failures(c.id, 50) }));
    const sum = (k: 'documents' | 'chunks' | 'skipped' | 'failed') => collections.reduce((n, c) => n + c[k], 0);
    return {
      profileDir: this.s.profileDir,
      database: { path: this.s.databaseFile, bytes: this.databaseBytes() },
      totals: {
        collections: collections.length,
        documents: sum('documents'),
        chunks: sum('chunks'),
        skipped: sum('skipped'),
        failed: sum('failed'),
        kinds: sumKinds(collections.map((c) => c.kinds)),
      },
      collections,
      indexing: this.indexingStatus(new Set(visible.map((c) => c.name))),
      ...this.s.embeddings(visible),
      // datasets are not collections: a token scoped to some collections sees none of them
      datasets: allow ? [] : this.s.datasets(),
      ...((opts.memory ?? !opts.collections) ? { memory: this.s.memory() } : {}),
    };
  }

  private databaseBytes(): number {
    return databaseFileBytes(this.s.databaseFile);
  }

  private indexingStatus(visible: Set<string>): IndexingStatus {
    const s = this.s.indexing();
    return { ...s, watchers: s.watchers.filter((w) => visible.has(w.collection)), collections: s.collections.filter((c) => visible.has(c.collection)) };
  }
}

export function sumKinds(all: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kinds of all) for (const [k, n] of Object.entries(kinds)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** A collection as faces show it, with its counts (StatsStore.counts / StatsRepository.counts). */
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
  };
}
