// The engine's edge: what a process needs before (or instead of) opening an engine — the
// environment reader, the profile folder's permissions, the error type, database URL checks —
// with nothing behind it that loads the engine. `trove mcp`, the stdio relay every MCP client
// spawns, only finds the host and forwards lines; through the front door (index.ts) it would load
// the whole engine first, on every client's start. The front door re-exports all of this.
export { readEnvironment, ENVIRONMENT_VARIABLES, type TroveEnvironment, type HostEnvironment } from './config.js';
export { invalidInput, isTroveError, notFound, TroveError, type TroveErrorCode } from './errors.js';
export { ensurePrivateDir } from './profile.js';
export { redactPostgresUrl, validatePostgresUrl } from './store/postgres/url.js';
