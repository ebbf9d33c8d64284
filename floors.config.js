// The house's floors, as the lint enforces them (eslint.config.js; the same table is drawn in
// docs/architecture.md). A room of the engine may import its own floor and the floors below, never
// one above; no two files import each other in a circle (import-x/no-cycle). The faces sit on top
// and come into the engine through its front door only.
//
// Each entry: [floor name, rooms under src-main/engine/ (a folder, or a file of the engine's root)].
export const ENGINE_FLOORS = [
  ['foundation', ['types', 'errors.ts', 'profile.ts', 'worker-script.ts', 'time-slice.ts']],
  ['text', ['text']],
  ['storage', ['store']],
  ['documents and models', ['ingest', 'embed', 'ocr', 'redaction', 'settings']],
  ['search', ['search', 'retrieve']],
  ['work and memory', ['indexing', 'memory']],
  ['sources', ['datasets', 'knowledge']],
  ['facade', ['engine.ts', 'engine-options.ts', 'collections.ts', 'collection-input.ts', 'access-tokens.ts', 'status-report.ts', 'config.ts']],
  ['front door', ['index.ts', 'edge.ts']],
];

/** The faces: what each may import besides its own files (`engine-door`: engine/index.ts and its light part, engine/edge.ts). */
export const FACES = {
  api: ['engine/types'],
  mcp: ['engine-door'],
  host: ['engine-door', 'mcp', 'api'],
  cli: ['engine-door', 'host'],
  app: ['api'],
  preload: ['api'],
  renderer: ['api'],
};

export const FACE_PATHS = {
  api: 'src-main/api',
  mcp: 'src-main/mcp',
  host: 'src-main/host',
  cli: 'src-main/cli',
  app: 'src-main/app',
  preload: 'src-preload',
  renderer: 'src-renderer',
};
