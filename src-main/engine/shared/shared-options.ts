// A shared index's options (SharedIndex, shared-index.ts), and how they follow the engine's, kept
// apart so a face can make them without loading the PostgreSQL modules.
import type { EmbeddingOptions } from '../embed/embeddings.js';
import type { EngineOptions } from '../engine.js';
import type { FusionMethod } from '../search/modes.js';

/** What searching needs besides the database: where the query models are (as EngineOptions has them); registered datasets' settings. */
export interface SharedIndexOptions {
  profileDir?: string;
  embeddings?: EmbeddingOptions;
  search?: { fusion?: FusionMethod };
  /** Registered datasets: from how many vectors an IndexHNSWFlat is searched through its graph; how manifest folders are watched. */
  datasets?: { hnswGraphFrom?: number; projectRoot?: string; watch?: { usePolling: boolean; pollIntervalMs: number } };
}

/** The index's options from the engine's (what TROVE_* variables set for SQLite applies on PostgreSQL too). */
export function sharedIndexOptions(o: EngineOptions): SharedIndexOptions {
  const live = o.indexing?.live;
  return {
    profileDir: o.profileDir,
    embeddings: o.embeddings,
    search: o.search,
    datasets: { hnswGraphFrom: o.datasets?.hnswGraphFrom, projectRoot: o.datasets?.projectRoot, watch: { usePolling: live?.usePolling ?? false, pollIntervalMs: live?.pollIntervalMs ?? 1000 } },
  };
}

