// What the Engine facade is opened with (engine.ts); config.ts builds it from the environment, a
// host (host/host.ts hostEngineOptions) adds what a long-running process wants.
import type { EmbeddingOptions } from './embed/models.js';
import type { ChunkOptions } from './ingest/chunker.js';
import type { IndexingOptions } from './indexing/indexing-service.js';
import type { OcrOptions } from './ocr/ocr-service.js';
import type { FusionMethod } from './search/modes.js';

export interface EngineOptions {
  /** Profile folder (config.ts reads TROVE_HOME, else the OS app-data dir): settings, the host token, models and FAISS datasets live here on every backend. */
  profileDir: string;
  /**
   * The index in PostgreSQL (`postgresql://…`: TROVE_DATABASE_URL, `--database`, or the database
   * saved in Settings) instead of the profile's SQLite file (unset or null).
   */
  database?: string | null;
  /** Files bigger than this are skipped with a reason (default: the saved setting, else 10 MB). */
  maxFileBytes?: number;
  chunking?: Partial<ChunkOptions>;
  /** Live folders: watcher, reconcile interval, retry backoff, batch sizes (see jobs/indexing-service.ts). */
  indexing?: Omit<IndexingOptions, 'chunking' | 'maxFileBytes'>;
  /** Models, background embedding, reranker (see embed/embeddings.ts). */
  embeddings?: EmbeddingOptions;
  /** Text from scans: background OCR (hosts), bounds, workers, the page cache (see ocr/ocr-service.ts). */
  ocr?: OcrOptions;
  search?: {
    /** How hybrid search fuses its keyword and vector legs (default rrf). */
    fusion?: FusionMethod;
  };
  /** The native BM25 extension (SQLite: store/rank-extension.ts): on by default when it is built. */
  nativeRank?: { enabled: boolean; dir?: string };
  /**
   * Registered datasets: from how many vectors an IndexHNSWFlat is searched through its graph
   * (default 50,000; smaller ones exactly); the project root, whose datasets/ is searched for
   * manifests like the profile's (the CLI's working directory; none in the desktop app).
   */
  datasets?: { hnswGraphFrom?: number; projectRoot?: string };
  /** SQLite's WAL checkpoints on a thread of their own instead of inside a write (store/wal-checkpointer.ts): the hosts turn it on; one-shot commands keep them inline. */
  backgroundCheckpoints?: boolean;
  /**
   * SQLite: threads with read-only connections that run the heavy reads (keyword candidates,
   * document texts) beside the engine's thread (store/sqlite/reader-pool.ts; TROVE_READER_THREADS).
   * Hosts default to one per core, at most 4; one-shot commands and unset: 0, every read on the
   * engine's connection. PostgreSQL reads through its connection pool either way.
   */
  readerThreads?: number;
  /** When reads go to those threads: while the engine's thread is busy (`loaded`, the default: a lone caller keeps its reads in-thread) or `always` (tests). */
  offloadReads?: 'always' | 'loaded';
}
