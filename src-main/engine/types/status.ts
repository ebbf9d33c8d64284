// `status`: what the index holds, what is going on, and what is wrong. Types only (see collections.ts).
import type { CollectionInfo, FileProblem } from './collections.js';
import type { DatasetInfo } from './datasets.js';
import type { IndexingStatus } from './indexing.js';
import type { EmbeddingStatusReport } from './models.js';
import type { OcrStatusReport } from './ocr.js';

export interface StatusReport {
  profileDir: string;
  database: { path: string; bytes: number };
  totals: { collections: number; documents: number; chunks: number; skipped: number; failed: number; kinds: Record<string, number> };
  collections: (CollectionInfo & { problems: FileProblem[] })[];
  /** Watching, pauses, queue sizes and the latest progress of each collection. */
  indexing: IndexingStatus;
  /** Chunks still without a vector (all collections shown), whether any vector index exists, and the model per collection. */
  needsEmbedding: number;
  hasVectorIndex: boolean;
  embeddings: EmbeddingStatusReport['embeddings'];
  /** Scanned pages per collection: how many are read, how many are left and when they will be. */
  ocr: OcrStatusReport;
  /** Every registered dataset with its state and the reason (none for a token scoped to some collections). */
  datasets: DatasetInfo[];
  /** The agent memory store (absent for a caller without access to it). */
  memory?: { entries: number; threads: number; needsEmbedding: number };
}
