// The engine's one public entry: the facade, its error type, the environment reader the faces
// call at their edges, and the public types. Faces (mcp, host, cli) import the engine only from
// here (test/architecture.test.ts checks it); everything else in engine/ is its own business.
export { readEnvironment, ENVIRONMENT_VARIABLES, type TroveEnvironment, type HostEnvironment } from './config.js';
export { Engine, type EngineOptions } from './engine.js';
export { invalidInput, isTroveError, notFound, TroveError, type TroveErrorCode } from './errors.js';
export { describeActivity } from './jobs/activity.js';
export { KNOWN_KINDS, pageUnit } from './ingest/parsers/index.js';
export type { GetOptions, MultiGetOptions } from './retrieve/documents.js';
export { migrateProfile, type MigrationCount, type MigrationProgress, type MigrationReport } from './store/migrate/to-postgres.js';
export type { SearchRequest } from './search/request.js';
export { SharedIndex } from './shared/shared-index.js';
export { validatePostgresUrl } from './store/postgres/url.js';
export type * from './types/index.js';
