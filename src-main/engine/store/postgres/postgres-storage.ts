// The PostgreSQL backend as one Storage (store/storage.ts): the repositories of postgres/ over
// one connection pool, the job queue writing claimed batches through postgres/index-writer.ts,
// and the change feed that tells other hosts what this one wrote.
import type { KeywordIndex } from '../keyword-index.js';
import { KEYWORD_INDEXES } from '../keyword-index.js';
import { TroveError } from '../../errors.js';
import type pg from 'pg';
import type { IndexBatch, Maintenance, Storage } from '../storage.js';
import { PostgresChanges } from './changes.js';
import { PostgresCollections } from './collections.js';
import { PostgresDatabase, redactPostgresUrl, type PostgresOptions } from './connection.js';
import { PostgresDatasetTables } from './datasets.js';
import { PostgresChunks, PostgresDocuments } from './documents.js';
import { applyIndexBatch, stageIndexBatch, type StagedTerms } from './index-writer.js';
import { PostgresJobQueue } from './jobs.js';
import { PostgresKeywordIndex } from './keyword-index.js';
import { PostgresMemory } from './memory.js';
import { PostgresOcr } from './ocr.js';
import { PostgresStats } from './stats.js';
import { PostgresTokens } from './tokens.js';
import { PostgresVectors } from './vectors.js';

/** PostgreSQL keeps its own indexes (autovacuum, GIN pending lists): nothing for the engine to do when idle. */
const NO_MAINTENANCE: Maintenance = { written: () => undefined, step: async () => false };

export class PostgresStorage implements Storage {
  readonly backend = 'postgres' as const;
  readonly location: string;
  readonly collections: PostgresCollections;
  readonly documents: PostgresDocuments;
  readonly chunks: PostgresChunks;
  readonly jobs: PostgresJobQueue;
  readonly tokens: PostgresTokens;
  readonly stats: PostgresStats;
  readonly vectors: PostgresVectors;
  readonly datasets: PostgresDatasetTables;
  readonly changes: PostgresChanges;
  readonly maintenance = NO_MAINTENANCE;
  readonly memory: PostgresMemory;
  readonly ocr: PostgresOcr;
  private readonly keywords: Map<KeywordIndex, PostgresKeywordIndex>;

  private constructor(readonly db: PostgresDatabase) {
    this.location = redactPostgresUrl(db.url);
    this.changes = new PostgresChanges(db);
    const notify = (id: number | null) => this.changes.notify(id);
    this.keywords = new Map(KEYWORD_INDEXES.map((i) => [i, new PostgresKeywordIndex(db, i)]));
    this.collections = new PostgresCollections(db, notify);
    this.documents = new PostgresDocuments(db);
    this.chunks = new PostgresChunks(db);
    const writeBatch = (client: pg.PoolClient, batch: IndexBatch, staged?: StagedTerms) => applyIndexBatch(client, this.keyword(batch.index), batch, staged);
    this.jobs = new PostgresJobQueue(db, writeBatch, notify, stageIndexBatch);
    this.ocr = new PostgresOcr(db, writeBatch, notify);
    this.tokens = new PostgresTokens(db);
    this.stats = new PostgresStats(db);
    this.vectors = new PostgresVectors(db);
    this.datasets = new PostgresDatasetTables(db, () => notify(null));
    this.memory = new PostgresMemory(db, this.keyword('memory_fts'), notify);
  }

  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresStorage> {
    return new PostgresStorage(await PostgresDatabase.open(url, opts));
  }

  /** The server's disk full (SQLSTATE 53100) as a clear IO error; other errors are reported as they are. */
  describeError(err: unknown): TroveError | null {
    if ((err as { code?: unknown } | null)?.code !== '53100') return null;
    return new TroveError('IO', `the disk of the PostgreSQL server is full (${(err as Error).message}); nothing written so far is lost — free some space there and run it again, it resumes where it stopped`);
  }

  warmReads(): void {}

  keyword(index: KeywordIndex): PostgresKeywordIndex {
    return this.keywords.get(index)!;
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.db.close();
  }
}
