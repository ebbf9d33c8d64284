// What a host serves the MCP surface from: the questions the MCP tools, resources and the host's
// door (tokens, /status) ask of an index. Both the SQLite engine (Engine) and an index in
// PostgreSQL (shared/SharedIndex) satisfy it, and every answer is a promise on both, so the faces
// take this type and await. Declared once here; faces import it through engine/index.ts.
import type { GetOptions, MultiGetOptions } from './retrieve/documents.js';
import type { SearchRequest } from './search/request.js';
import type { DatasetsApi, KnowledgeApi, MemoryApi, MultiGetResult, RetrievedDocument, SearchResponse, SearchSyntax, SettingsApi, StatusReport, TokenInfo } from './types/index.js';

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
  readonly memory: MemoryApi;
  /** Registered datasets: their descriptions (the knowledge tools' default topK), search and documents. */
  readonly datasets: DatasetsApi;

  search(input: SearchRequest): Promise<SearchResponse>;
  get(locator: string, opts?: GetOptions & { highlight?: { query: string; syntax?: SearchSyntax } }): Promise<RetrievedDocument>;
  multiGet(pattern: string, opts?: MultiGetOptions): Promise<MultiGetResult>;
  /** `collections`: a scoped caller's allow-list; `memory`: include memory's summary (where it runs). */
  status(opts?: { collections?: readonly string[]; memory?: boolean }): Promise<StatusReport>;
  /** The named token a secret belongs to, or null; records its use. */
  verifyToken(secret: string): Promise<TokenInfo | null>;
  /** Collection names and context notes, no counts. */
  collectionNotes(): Promise<{ name: string; context: string }[]>;
  /** Indexed document paths of a collection, sorted (NOT_FOUND for an unknown collection). */
  documentPaths(collection: string): Promise<string[]>;
  /** Background work in hand (a host's idle check). */
  busy(): boolean;
  close(): Promise<void>;
}
