// The engine's one public entry: the facade, its error type, the environment reader the faces
// call at their edges, and the public types. Faces (mcp, host, cli) import the engine only from
// here (test/architecture.test.ts checks it); everything else in engine/ is its own business.
export { readEnvironment, ENVIRONMENT_VARIABLES, type TroveEnvironment, type HostEnvironment } from './config.js';
export { Engine, type EngineOptions } from './engine.js';
export type { ServedIndex } from './served-index.js';
export type { AppIndex } from './app-index.js';
import type { AppIndex } from './app-index.js';
import type { SharedAppOptions } from './shared/shared-app.js';
import type { EngineOptions } from './engine.js';
import { readSettings } from './settings/settings-store.js';
export type { SharedAppOptions } from './shared/shared-app.js';
export { invalidInput, isTroveError, notFound, TroveError, type TroveErrorCode } from './errors.js';
export { describeActivity } from './jobs/activity.js';
export { KNOWN_KINDS, pageUnit } from './ingest/parsers/index.js';
export { budgetChars, clampKnob, estimateTokens, KNOWLEDGE_BOUNDS, KNOWLEDGE_DEFAULTS, type KnowledgeNumericKnob } from './knowledge/options.js';
export { sourceOfUri } from './knowledge/uri.js';
export { ensurePrivateDir } from './profile.js';
export type { GetOptions, MultiGetOptions } from './retrieve/documents.js';
export type { MigrationCount, MigrationProgress, MigrationReport } from './store/migrate/to-postgres.js';
import type { MigrateProfileOptions, MigrationReport } from './store/migrate/to-postgres.js';
import type { SharedIndex, SharedIndexOptions } from './shared/shared-index.js';
export type { SearchRequest } from './search/request.js';
export type { SharedIndex, SharedIndexOptions } from './shared/shared-index.js';
export { sharedIndexOptions } from './shared/shared-options.js';
import type { SharedIndexer, SharedIndexerOptions } from './shared/shared-indexer.js';
export type { SharedIndexer, SharedIndexerOptions } from './shared/shared-indexer.js';
export { redactPostgresUrl, validatePostgresUrl } from './store/postgres/url.js';
export type * from './types/index.js';

// The PostgreSQL backend (pg, pgvector) loads only when a command asks for it: a SQLite command
// does not pay for it at start-up (~50 ms, ~9 MB measured).
/** A profile's index copied into PostgreSQL (`trove migrate`, docs/scale-out.md). */
export async function migrateProfile(opts: MigrateProfileOptions): Promise<MigrationReport> {
  return (await import('./store/migrate/to-postgres.js')).migrateProfile(opts);
}

/** Connects to a PostgreSQL URL and checks it can hold a Trove index, changing nothing (Settings' Database field). */
export async function checkDatabase(url: string): Promise<void> {
  return (await import('./store/postgres/connection.js')).checkPostgres(url);
}

/** An index in PostgreSQL, for search in every mode (engine/shared/shared-index.ts); `opts`: where the query models are. */
export async function openSharedIndex(url: string, opts?: SharedIndexOptions): Promise<SharedIndex> {
  return (await import('./shared/shared-index.js')).SharedIndex.open(url, opts);
}

/** Indexing folder collections into PostgreSQL, several hosts at once (engine/shared/shared-indexer.ts). */
export async function openSharedIndexer(url: string, opts?: SharedIndexerOptions): Promise<SharedIndexer> {
  return (await import('./shared/shared-indexer.js')).SharedIndexer.open(url, opts);
}

/** The same, its options taken from the engine's (what TROVE_* variables set for SQLite applies on PostgreSQL too). */
export async function openSharedIndexerFor(url: string, engine: EngineOptions): Promise<SharedIndexer> {
  const m = await import('./shared/shared-indexer.js');
  return m.SharedIndexer.open(url, m.sharedIndexerOptions(engine));
}

/** The app's index in PostgreSQL (engine/shared/shared-app.ts) over an index and an indexer the caller owns (`trove serve --database --ui`). */
export async function openSharedApp(index: SharedIndex, indexer: SharedIndexer, opts?: SharedAppOptions): Promise<AppIndex> {
  return new (await import('./shared/shared-app.js')).SharedApp(index, indexer, opts);
}

/** A host's own app index in PostgreSQL (the desktop host): opened from the engine's options; its close() closes everything it opened. */
export async function openSharedAppHost(url: string, engine: EngineOptions, opts?: Omit<SharedAppOptions, 'embeddings'>): Promise<AppIndex> {
  return (await import('./shared/shared-app.js')).SharedApp.open(url, engine, opts);
}

/** The database a host uses when neither --database nor TROVE_DATABASE_URL says: the one saved in Settings (null: this computer's SQLite file, also when settings.json is broken). */
export function savedDatabase(profileDir: string): string | null {
  try {
    return readSettings(profileDir).database;
  } catch {
    return null;
  }
}
