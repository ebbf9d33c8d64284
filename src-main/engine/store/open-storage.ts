// Opens the index an engine runs on: the profile's SQLite file, or a database in PostgreSQL. The
// PostgreSQL backend (pg, pgvector) loads only when asked for: a SQLite command does not pay for it
// at start-up (~50 ms, ~9 MB measured).
import path from 'node:path';
import { databasePath, secureProfile } from '../profile.js';
import type { RankExtensionOptions } from './rank-extension.js';
import { SqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage } from './storage.js';

export interface StorageChoice {
  profileDir: string;
  /** A PostgreSQL URL; unset or null: the profile's SQLite file. */
  database?: string | null;
  nativeRank?: RankExtensionOptions;
  annMinVectors?: number;
  backgroundCheckpoints?: boolean;
  readerThreads?: number;
  offloadReads?: 'always' | 'loaded';
}

/** A bad URL is INVALID_INPUT, an unreachable server UNAVAILABLE; the schema is brought up to date either way. */
export async function openStorage(c: StorageChoice): Promise<Storage> {
  if (c.database) {
    const { PostgresStorage } = await import('./postgres/postgres-storage.js');
    const storage = await PostgresStorage.open(c.database);
    await storage.changes.ready(); // listening before anything is cached: no change falls in between
    return storage;
  }
  secureProfile(c.profileDir);
  return SqliteStorage.open(databasePath(c.profileDir), {
    nativeRank: c.nativeRank,
    annDir: path.join(c.profileDir, 'vectors'),
    annMinVectors: c.annMinVectors,
    backgroundCheckpoints: c.backgroundCheckpoints,
    readerThreads: c.readerThreads,
    offloadReads: c.offloadReads,
  });
}
