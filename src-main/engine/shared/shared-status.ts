// The status report of a shared index (store/storage.ts: PostgreSQL), in the shape Engine.status
// gives (status-report.ts): collections with counts and problems, totals, the job queue every
// host shares, and how far embedding has come per collection. What runs per host is reported as
// such: a serving host (`trove serve --database`, the app) reports its own watchers and embedding
// loop (HostWork), a one-shot command neither watches nor embeds; registered datasets as the
// registry lists them (shared-datasets.ts); memory's summary is SharedIndex's.
import { collectionEmbedding, coverageOf } from '../embed/embedding-status.js';
import { describeCollectionEmbedding, describeCoverage } from '../embed/describe.js';
import { collectionInfo, sumKinds } from '../status-report.js';
import type { CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';
import type { BackgroundEmbedding, CollectionEmbeddingStatus, DatasetsApi, StatusReport } from '../types/index.js';

const NOT_EMBEDDING = 'this process does not embed in the background (`trove index --database` and a serving host do)';

/** What this host does in the background besides the database's shared state (SharedIndexer.hostWork). */
export interface HostWork {
  watchers: { collection: string; polling: boolean }[];
  /** The background embedding loop; null when this host does not run one. */
  embedding: { busy: boolean } | null;
}

export async function sharedStatus(
  storage: Storage,
  profileDir: string,
  opts: { collections?: readonly string[] } = {},
  host?: HostWork,
  /** The registered datasets (null: none shown — a caller scoped to collections sees none, as on SQLite). */
  datasets: Pick<DatasetsApi, 'list'> | null = null,
): Promise<StatusReport> {
  const allow = opts.collections && new Set(opts.collections.map((n) => n.toLowerCase()));
  const [all, counts, jobs, pauses, bytes, registered] = await Promise.all([
    storage.collections.list(),
    storage.stats.counts(),
    storage.jobs.counts(),
    storage.jobs.pauses(),
    storage.stats.databaseBytes(),
    datasets ? datasets.list() : [],
  ]);
  const visible = all.filter((c) => !allow || allow.has(c.name.toLowerCase()));
  const collections = await Promise.all(visible.map(async (c) => ({ ...collectionInfo(c, counts), problems: await storage.stats.failures(c.id, 50) })));
  const sum = (k: 'documents' | 'chunks' | 'skipped' | 'failed') => collections.reduce((n, c) => n + c[k], 0);
  const embedding = await Promise.all(visible.map((c) => embeddingStatus(storage, c, counts.get(c.id)?.chunks ?? 0)));
  const withSummary = embedding.map((e) => ({ ...e, problem: null, summary: describeCollectionEmbedding({ ...e, problem: null }, undefined) }));
  const coverage = coverageOf(embedding, []);
  return {
    profileDir,
    database: { path: storage.location, bytes },
    totals: { collections: collections.length, documents: sum('documents'), chunks: sum('chunks'), skipped: sum('skipped'), failed: sum('failed'), kinds: sumKinds(collections.map((c) => c.kinds)) },
    collections,
    indexing: {
      watching: (host?.watchers.length ?? 0) > 0,
      paused: false,
      // as SQLite's: the watchers of the collections shown (a folder dataset's is not one)
      watchers: (host?.watchers ?? []).filter((w) => visible.some((c) => c.name === w.collection)),
      collections: visible.map((c) => {
        const j = jobs.get(c.id);
        return { collection: c.name, paused: pauses.has(c.id), queued: j?.queued ?? 0, retrying: j?.retrying ?? 0, gaveUp: j?.gaveUp ?? 0, progress: null };
      }),
    },
    needsEmbedding: embedding.reduce((n, e) => n + e.needsEmbedding, 0),
    hasVectorIndex: embedding.some((e) => e.hasVectorIndex),
    embeddings: {
      collections: withSummary,
      progress: [],
      background: backgroundOf(host),
      coverage,
      summary: host?.embedding ? describeCoverage(coverage) : `${describeCoverage(coverage)}; ${NOT_EMBEDDING}`,
    },
    datasets: registered,
  };
}

/** The background embedding of a host: its loop's state, or off (a one-shot command, `--no-embed`). */
export function backgroundOf(host?: HostWork): BackgroundEmbedding {
  if (!host?.embedding) return { enabled: false, source: 'option', state: 'off' };
  return { enabled: true, source: 'option', state: host.embedding.busy ? 'embedding' : 'idle' };
}

/** EmbeddingCounts.collection's answer, over the repositories. */
async function embeddingStatus(storage: Storage, c: CollectionRow, chunks: number): Promise<CollectionEmbeddingStatus> {
  const cv = await storage.vectors.collection(c.id);
  const [active, building] = await Promise.all([
    cv.activeSpaceId !== null ? storage.vectors.space(cv.activeSpaceId) : undefined,
    cv.buildingSpaceId !== null ? storage.vectors.space(cv.buildingSpaceId) : undefined,
  ]);
  const needsEmbedding = active ? await storage.vectors.pendingCount(active.id, c.id) : chunks;
  return { collection: c.name, ...collectionEmbedding(active, building, chunks, needsEmbedding) };
}
