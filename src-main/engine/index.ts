// The engine's one public entry: the facade, its error type, the environment reader the faces
// call at their edges, and the public types. Faces (mcp, host, cli) import the engine only from
// here or from its light part, edge.ts (the import-boundary lint rule checks it); everything else
// in engine/ is its own business.
export * from './edge.js';
export { Engine, type EngineOptions } from './engine.js';
export type { CreateTokenInput } from './access-tokens.js';
import { readSettings } from './settings/settings-store.js';
export { describeActivity } from './indexing/activity.js';
export { KNOWN_KINDS, pageUnit } from './ingest/parsers/index.js';
export { budgetChars, clampKnob, estimateTokens, KNOWLEDGE_BOUNDS, KNOWLEDGE_DEFAULTS, type KnowledgeNumericKnob } from './knowledge/options.js';
export { sourceOfUri } from './knowledge/uri.js';
export type { GetOptions, MultiGetOptions } from './retrieve/documents.js';
export type { MigrationCount, MigrationProgress, MigrationReport } from './store/migrate/to-postgres.js';
import type { MigrateProfileOptions, MigrationReport } from './store/migrate/to-postgres.js';
export type { SearchRequest } from './search/request.js';
export type * from './types/index.js';

// The PostgreSQL backend (pg, pgvector) loads only when a command asks for it: a SQLite command
// does not pay for it at start-up (~50 ms, ~9 MB measured).
/** A profile's index copied into PostgreSQL (`trove migrate`, docs/scale-out.md). */
export async function migrateProfile(opts: MigrateProfileOptions): Promise<MigrationReport> {
  const [{ migrateProfile: migrate }, { rebuildKeywordRows }] = await Promise.all([import('./store/migrate/to-postgres.js'), import('./ingest/keyword-rebuild.js')]);
  return migrate(opts, (doc, text, chunks) => rebuildKeywordRows(doc, text, chunks));
}

/** Connects to a PostgreSQL URL and checks it can hold a Trove index, changing nothing (Settings' Database field). */
export async function checkDatabase(url: string): Promise<void> {
  return (await import('./store/postgres/connection.js')).checkPostgres(url);
}

/** The database a host uses when neither --database nor TROVE_DATABASE_URL says: the one saved in Settings (null: this computer's SQLite file, also when settings.json is broken). */
export function savedDatabase(profileDir: string): string | null {
  try {
    return readSettings(profileDir).database;
  } catch {
    return null;
  }
}
