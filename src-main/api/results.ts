// The app API's response side: what each method resolves to, and the events the host pushes.
// These mirror the engine's facade types without importing them (this file is bundled into the
// browser); the host's dispatcher is type-checked against both, so a drift fails the build.
import type { ApiMethod, connectClients } from './methods.js';

export interface CollectionInfo {
  name: string;
  root: string;
  include: string[];
  exclude: string[];
  context: string;
  documents: number;
  chunks: number;
  skipped: number;
  failed: number;
  createdAt: string;
  lastIndexedAt: string | null;
}

export interface FileProblem {
  path: string;
  status: 'skipped' | 'failed';
  reason: string;
}

export interface EmbeddingProgress {
  collection: string;
  model: string;
  phase: 'filling' | 'switching' | 'done';
  done: number;
  total: number;
  chunksPerSecond: number;
  etaSeconds: number | null;
}

export interface StatusReport {
  profileDir: string;
  database: { path: string; bytes: number };
  totals: { collections: number; documents: number; chunks: number; skipped: number; failed: number };
  collections: (CollectionInfo & { problems: FileProblem[] })[];
  /** Live folders: watching, pauses and queues (absent on engines without the watcher). */
  indexing?: {
    watching: boolean;
    paused: boolean;
    collections: { collection: string; paused: boolean; queued: number; retrying: number; gaveUp: number }[];
  };
  /** Chunks still without a vector (absent on engines without embeddings). */
  needsEmbedding?: number;
  embeddings?: {
    collections: { collection: string; model: string | null; vectors: number; needsEmbedding: number; switchingTo: string | null; problem: string | null }[];
    progress: EmbeddingProgress[];
  };
}

export interface SearchHit {
  docid: string;
  collection: string;
  path: string;
  uri: string;
  title: string;
  kind: string;
  tags: string[];
  modified: string;
  score: number;
  snippet: string;
  line: number;
  chunk: { ordinal: number; lineStart: number; lineEnd: number; headingPath: string[] };
  explain?: Record<string, unknown>;
}

export interface SearchResponse {
  query: string;
  syntax: string;
  results: SearchHit[];
  offset: number;
  limit: number;
  has_more: boolean;
  next_offset: number | null;
  total_estimated: number;
  took_ms: number;
  plan: { strategy: string; expression: string; dropped: string[] };
}

export interface RetrievedDocument {
  docid: string;
  collection: string;
  path: string;
  uri: string;
  title: string;
  kind: string;
  tags: string[];
  metadata: Record<string, unknown>;
  modifiedMs: number;
  fromLine: number;
  toLine: number;
  totalLines: number;
  text: string;
  truncated: boolean;
}

/** One indexing run as the UI sees it: live while running, kept in `recent` when finished. */
export interface IndexRun {
  collection: string;
  state: 'queued' | 'scanning' | 'indexing' | 'done' | 'failed';
  done: number;
  total: number;
  bytes: number;
  rate: number;
  etaSeconds: number | null;
  currentFile: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Set when finished: what changed, and why files were skipped or failed. */
  summary: {
    scanned: number;
    added: number;
    updated: number;
    unchanged: number;
    renamed: number;
    removed: number;
    chunks: number;
    skipped: number;
    failed: number;
    durationMs: number;
  } | null;
  error: string | null;
}

export interface IndexActivity {
  running: IndexRun | null;
  queued: string[];
  /** Newest first, at most 20. */
  recent: IndexRun[];
}

export interface FolderListing {
  path: string;
  parent: string | null;
  folders: { name: string; path: string }[];
  /** Sub-folders that could not be listed are left out; this says how many. */
  hidden: number;
}

export interface ConnectInfo {
  /** The MCP endpoint of this engine host, null when the host serves no HTTP. */
  endpoint: string | null;
  /** A bearer token clients send, null when the host has none to hand out. */
  token: string | null;
  configs: { client: ConnectClient; file: string; json: string; note: string }[];
}

export type ConnectClient = (typeof connectClients)[number];

export interface WrittenConfig {
  client: ConnectClient;
  /** The client's config file, now holding Trove's entry. */
  file: string;
  /** Where the file as it was before is kept; null when there was no file. */
  backup: string | null;
}

/** One MCP request in the Connect screen's live log; arguments only as a short preview, never tokens. */
export interface ClientRequest {
  id: number;
  time: string;
  client: string;
  method: string;
  tool: string | null;
  preview: string | null;
  status: 'ok' | 'error';
  httpStatus: number;
  durationMs: number;
}

export interface TokenInfo {
  name: string;
  /** The secret's first characters, to recognise it. */
  hint: string;
  /** null: every collection. */
  collections: string[] | null;
  /** null: every tool. */
  tools: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface TokenList {
  tokens: TokenInfo[];
  /** The MCP tools a token can be limited to. */
  toolNames: string[];
}

export type SettingSource = 'flag' | 'env' | 'saved' | 'default';

/** What settings.json holds (null: not set, the default applies). */
export interface SavedSettings {
  port: number | null;
  maxFileBytes: number | null;
  redaction: string[];
}

export interface SettingsInfo {
  profileDir: string;
  databasePath: string;
  saved: SavedSettings;
  /** The port this host is serving on now (null: no server) and where its preferred port came from; a saved change applies at the next start. */
  port: { running: number | null; source: SettingSource | null };
  /** The per-file limit the next index run uses, and where it comes from (TROVE_MAX_FILE_BYTES beats the saved value). */
  maxFileBytes: number;
  maxFileBytesSource: SettingSource;
  /** Ready-made redaction rules the user can add (none is on by default). */
  redactionSuggestions: { label: string; source: string }[];
  chunking: { targetChars: number; overlapChars: number } | null;
  searchModes: { mode: string; available: boolean; reason: string | null }[];
  /** Settings the issue asks for that this engine cannot change yet, and why. */
  notYet: { setting: string; reason: string }[];
}

/** One model of the catalogue (engine/embed/catalogue.ts). */
export interface ModelEntry {
  id: string;
  role: string;
  languages: string[];
  dims: number | null;
  state: string;
  ready: boolean;
  where: string | null;
  testOnly: boolean;
}

export interface ApiResults {
  'collections.list': CollectionInfo[];
  'collections.add': CollectionInfo;
  'collections.remove': { removed: string };
  'collections.rename': CollectionInfo;
  'collections.setContext': CollectionInfo;
  'collections.reindex': IndexActivity;
  'collections.pause': { paused: string };
  'collections.resume': { resumed: string };
  'collections.embed': { started: string };
  'index.activity': IndexActivity;
  status: StatusReport;
  search: SearchResponse;
  get: RetrievedDocument;
  'folders.list': FolderListing;
  'connect.info': ConnectInfo;
  'connect.writeConfig': WrittenConfig;
  'connect.requests': ClientRequest[];
  'tokens.list': TokenList;
  'tokens.create': { token: string; info: TokenInfo };
  'tokens.revoke': { revoked: string };
  'settings.get': SettingsInfo;
  /** errors (field → message) when the update was refused; nothing is saved then. */
  'settings.update': { settings: SettingsInfo; errors: Record<string, string> | null };
  'models.list': ModelEntry[];
  'collections.setModel': { collection: string; model: string | null; vectors: number; needsEmbedding: number; switchingTo: string | null };
  'models.pull': { started: string };
}

export type ApiResult<M extends ApiMethod> = ApiResults[M];

/** Pushed by the host: over IPC in Electron, as server-sent events over HTTP. */
export type ApiEvent =
  | { type: 'index.activity'; activity: IndexActivity }
  | { type: 'collections.changed' }
  | { type: 'embedding.progress'; progress: EmbeddingProgress }
  | { type: 'embedding.finished'; collection: string | null; error: string | null }
  | { type: 'connect.request'; request: ClientRequest }
  /** A model download's bytes so far (total null when the server does not say). */
  | { type: 'model.progress'; model: string; file: string; received: number; total: number | null }
  | { type: 'model.finished'; model: string; error: string | null };
