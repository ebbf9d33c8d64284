// The app API's response side: what each method resolves to, and the events the host pushes.
// The engine's answers are its own public types (engine/types: types only, no runtime code), so
// the preload and the renderer see exactly what the engine returns and a drift is a compile
// error; the types below are the app API's own (the host builds them).
import type {
  BackgroundEmbedding,
  BackgroundOcr,
  CollectionOcrStatus,
  CatalogueEntry,
  CollectionEmbeddingStatus,
  CollectionInfo,
  DatasetDocument,
  DatasetHit,
  DatasetInfo,
  DatasetSearchResult,
  DatasetState,
  EmbeddingProgress,
  FileProblem,
  KnowledgeGetResponse,
  KnowledgeItem,
  KnowledgeSearchResponse,
  KnowledgeSourceInfo,
  MemoryDeleteResult,
  MemoryEntry,
  MemoryHit,
  MemoryPage,
  MemorySearchResponse,
  MemoryStatistics,
  MemoryThread,
  OcrProgress,
  RedactionSuggestion,
  RetrievedDocument,
  SavedSettings,
  SearchResponse,
  SearchResult,
  SettingSource,
  Span,
  StatusReport,
  TokenInfo,
} from '../engine/types/index.js';
import type { ApiMethod, connectClients } from './methods.js';

export type {
  BackgroundEmbedding,
  BackgroundOcr,
  CollectionOcrStatus,
  CatalogueEntry as ModelEntry,
  CollectionInfo,
  DatasetDocument,
  DatasetHit,
  DatasetInfo,
  DatasetSearchResult,
  DatasetState,
  EmbeddingProgress,
  FileProblem,
  KnowledgeGetResponse,
  KnowledgeItem,
  KnowledgeSearchResponse,
  KnowledgeSourceInfo,
  MemoryDeleteResult,
  MemoryEntry,
  MemoryHit,
  MemoryPage,
  MemorySearchResponse,
  MemoryStatistics,
  MemoryThread,
  OcrProgress,
  RetrievedDocument,
  SavedSettings,
  SearchResponse,
  SearchResult as SearchHit,
  SettingSource,
  Span,
  StatusReport,
  TokenInfo,
};

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
  /** The client's own name (clientInfo), else the token's. */
  client: string;
  clientVersion: string | null;
  token: string;
  protocol: '2025' | '2026-07-28';
  method: string;
  tool: string | null;
  preview: string | null;
  status: 'ok' | 'error';
  httpStatus: number;
  durationMs: number;
}

/** A knowledge session an MCP client holds: a 2025 protocol session or a 2026-07-28 handle. */
export interface ClientSession {
  /** The first characters of its id or handle. */
  session: string;
  kind: 'mcp-session' | 'handle';
  protocol: '2025' | '2026-07-28';
  client: { name: string; version: string | null } | null;
  token: string;
  createdAt: string;
  lastSeen: string;
  /** Results returned in it (remembered, so searches do not repeat them). */
  seen: number;
  queries: number;
  /** Calls made in it: a stateless client that never sends its handle back leaves sessions of one call. */
  uses: number;
}

export interface TokenList {
  tokens: TokenInfo[];
  /** The MCP tools a token can be limited to. */
  toolNames: string[];
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
  redactionSuggestions: RedactionSuggestion[];
  chunking: { targetChars: number; overlapChars: number } | null;
  searchModes: { mode: string; available: boolean; reason: string | null }[];
  /** Background embedding in force (`--no-embed` beats the saved switch) and what it is doing; a saved change applies at once. */
  backgroundEmbedding: BackgroundEmbedding;
  /** Background OCR in force (`--no-ocr` beats the saved switch) and what it is doing; a saved change applies at once. */
  backgroundOcr: BackgroundOcr;
  /**
   * Where this host's index is (`inUse`: the SQLite file or the PostgreSQL URL, password hidden) and
   * what is saved for the next start (`saved`, password hidden; null: this computer's SQLite file).
   * `source`: what chose the one in use (--database, TROVE_DATABASE_URL, the saved choice, the default).
   * `restartNeeded`: the saved choice is not the one in use and would be at the next start.
   */
  database: { backend: 'sqlite' | 'postgres'; inUse: string; saved: string | null; source: SettingSource; restartNeeded: boolean };
  /** Settings the issue asks for that this engine cannot change yet, and why. */
  notYet: { setting: string; reason: string }[];
}

/** The datasets and where their manifests are looked for. */
export interface DatasetList {
  datasets: DatasetInfo[];
  /** `<profile>/datasets`: always scanned. */
  profileFolder: string;
  /** Folders a person added. */
  folders: string[];
}

export interface ApiResults {
  'collections.list': CollectionInfo[];
  'collections.add': CollectionInfo;
  'collections.remove': { removed: string };
  'collections.rename': CollectionInfo;
  'collections.setContext': CollectionInfo;
  'collections.setRedaction': CollectionInfo;
  'collections.setOcrLanguages': CollectionInfo;
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
  'connect.sessions': ClientSession[];
  'knowledge.sources': KnowledgeSourceInfo[];
  'knowledge.search': KnowledgeSearchResponse;
  'knowledge.get': KnowledgeGetResponse;
  'tokens.list': TokenList;
  'tokens.create': { token: string; info: TokenInfo };
  'tokens.revoke': { revoked: string };
  'settings.get': SettingsInfo;
  /** errors (field → message) when the update was refused; nothing is saved then. */
  'settings.update': { settings: SettingsInfo; errors: Record<string, string> | null };
  'models.list': CatalogueEntry[];
  'collections.setModel': CollectionEmbeddingStatus;
  'models.pull': { started: string };
  'datasets.list': DatasetList;
  'datasets.addFolder': DatasetInfo[];
  'datasets.removeFolder': { removed: string };
  'datasets.reload': DatasetInfo[];
  'memory.threads': MemoryThread[];
  'memory.entries': MemoryPage;
  'memory.get': MemoryEntry;
  'memory.search': MemorySearchResponse;
  'memory.delete': MemoryDeleteResult;
  'memory.statistics': MemoryStatistics;
}

export type ApiResult<M extends ApiMethod> = ApiResults[M];

/** Pushed by the host: over IPC in Electron, as server-sent events over HTTP. */
export type ApiEvent =
  | { type: 'index.activity'; activity: IndexActivity }
  | { type: 'collections.changed' }
  | { type: 'embedding.progress'; progress: EmbeddingProgress }
  | { type: 'embedding.finished'; collection: string | null; error: string | null }
  | { type: 'connect.request'; request: ClientRequest }
  /** A model download's bytes so far (total null when the server does not say), and the source they come from. */
  | { type: 'model.progress'; model: string; file: string; received: number; total: number | null; source: string }
  /** source: the one that served (null after an error, or when every file was already here). */
  | { type: 'model.finished'; model: string; error: string | null; source: string | null }
  /** A dataset changed state (or went away: state unloaded with the reason). */
  | { type: 'datasets.changed'; dataset: DatasetInfo };
