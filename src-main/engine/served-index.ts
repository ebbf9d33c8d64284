// What a host serves the MCP surface from: the questions the MCP tools, resources and the host's
// door (tokens, /status) ask of an index. Both the SQLite engine (Engine) and an index in
// PostgreSQL (shared/SharedIndex) satisfy it, so the faces take this type and await its answers:
// on SQLite most are already there (an await of a value in hand), on PostgreSQL they are round
// trips. Declared once here; faces import it through engine/index.ts.
import type { GetOptions, MultiGetOptions } from './retrieve/documents.js';
import type { SearchRequest } from './search/request.js';
import type { DatasetsApi, KnowledgeApi, MemoryApi, MultiGetResult, RetrievedDocument, SearchResponse, SearchSyntax, SettingsApi, StatusReport, TokenInfo } from './types/index.js';

/** A value now, or a promise of it: SQLite answers in hand, PostgreSQL after a round trip. */
export type Awaitable<T> = T | Promise<T>;

/**
 * The agent memory store as a host serves it: MemoryApi's questions (export and import are the
 * CLI's), each answer awaitable — in hand on SQLite (Engine.memory), a promise on PostgreSQL
 * (shared/shared-memory.ts).
 */
export type ServedMemory = {
  [K in Exclude<keyof MemoryApi, 'export' | 'import'>]: (...args: Parameters<MemoryApi[K]>) => Awaitable<Awaited<ReturnType<MemoryApi[K]>>>;
};

/**
 * Registered datasets as a host serves them: DatasetsApi's questions, each answer awaitable — in
 * hand on SQLite (Engine.datasets), a promise where the registry's ports are round trips
 * (PostgreSQL: shared/shared-datasets.ts).
 */
export type ServedDatasets = {
  [K in Exclude<keyof DatasetsApi, 'onChange' | 'profileFolder'>]: (
    ...args: Parameters<DatasetsApi[K]>
  ) => ReturnType<DatasetsApi[K]> extends Promise<unknown> ? ReturnType<DatasetsApi[K]> : Awaitable<ReturnType<DatasetsApi[K]>>;
} & Pick<DatasetsApi, 'onChange' | 'profileFolder'>;

export interface ServedIndex {
  /** Where this index lives: the profile's SQLite file, or a PostgreSQL database. */
  readonly backend: 'sqlite' | 'postgres';
  /** The profile folder: settings, the host token, runtime.json and models stay files here on every backend. */
  readonly profileDir: string;
  /** Saved settings and the redaction policy every result passes through (per collection too). */
  readonly settings: SettingsApi;
  /** knowledge.search / knowledge.get over every source this backend has. */
  readonly knowledge: KnowledgeApi;
  /** The agent memory store (the memory and persistence MCP tools await its answers). */
  readonly memory: ServedMemory;
  /** Registered datasets: their descriptions (the knowledge tools' default topK), search and documents. */
  readonly datasets: ServedDatasets;

  search(input: SearchRequest): Awaitable<SearchResponse>;
  get(locator: string, opts?: GetOptions & { highlight?: { query: string; syntax?: SearchSyntax } }): Awaitable<RetrievedDocument>;
  multiGet(pattern: string, opts?: MultiGetOptions): Awaitable<MultiGetResult>;
  /** `collections`: a scoped caller's allow-list; `memory`: include memory's summary (where it runs). */
  status(opts?: { collections?: readonly string[]; memory?: boolean }): Awaitable<StatusReport>;
  /** The named token a secret belongs to, or null; records its use. */
  verifyToken(secret: string): Awaitable<TokenInfo | null>;
  /** Collection names and context notes, no counts. */
  collectionNotes(): Awaitable<{ name: string; context: string }[]>;
  /** Indexed document paths of a collection, sorted (NOT_FOUND for an unknown collection). */
  documentPaths(collection: string): Awaitable<string[]>;
  /** Background work in hand (a host's idle check). */
  busy(): boolean;
  close(): Promise<void>;
}
