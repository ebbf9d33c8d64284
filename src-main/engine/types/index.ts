// The engine's public types: what the facade takes and returns. Types only, so the app API
// (api/) and through it the preload and the renderer derive their types from here: a change
// in the engine's answers is a compile error in every face, not a silent drift.
export type * from './access.js';
export type * from './collections.js';
export type * from './datasets.js';
export type * from './documents.js';
export type * from './indexing.js';
export type * from './memory.js';
export type * from './models.js';
export type * from './ocr.js';
export type * from './search.js';
export type * from './settings.js';
export type * from './status.js';
export type * from './knowledge.js';
