// The app API's request side: one zod schema per method. Shared by the engine host (which
// validates every call), the preload (which validates before anything crosses IPC) and the
// renderer's HTTP client. Plain zod only: this file is bundled into the sandboxed preload
// and the browser, so it imports nothing from node or the engine.
import { z } from 'zod';

const name = z.string().trim().min(1, 'a collection name is required').max(64);
const globs = z.array(z.string().trim().min(1, 'patterns must not be empty')).max(200);

export const searchModes = ['keyword', 'vector', 'hybrid', 'rerank'] as const;
export const searchSyntaxes = ['match', 'phrase', 'prefix', 'boolean'] as const;
export const connectClients = ['Claude Desktop', 'Cursor', 'VS Code'] as const;
export const knowledgeModes = ['keyword', 'semantic', 'hybrid'] as const;
export const retrievalModes = ['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto'] as const;
export const tokenProfiles = ['standard', 'deep-research'] as const;

export const apiMethods = {
  'collections.list': z.object({}).strict(),
  'collections.add': z
    .object({
      root: z.string().trim().min(1, 'a folder path is required').max(4096),
      name: name.optional(),
      include: globs.optional(),
      exclude: globs.optional(),
      context: z.string().max(4000).optional(),
      /** Start indexing right away (default true). */
      index: z.boolean().optional(),
    })
    .strict(),
  'collections.remove': z.object({ name }).strict(),
  'collections.rename': z.object({ name, newName: name }).strict(),
  'collections.setContext': z.object({ name, context: z.string().max(4000) }).strict(),
  /** Secret redaction for one collection: true/false overrides the Settings switch, null follows it. */
  'collections.setRedaction': z.object({ name, redactSecrets: z.boolean().nullable() }).strict(),
  /** The languages OCR reads one collection's scans in (Tesseract codes; null: English); its scans are read again. */
  'collections.setOcrLanguages': z.object({ name, languages: z.array(z.string().trim().min(1).max(40)).min(1).max(10).nullable() }).strict(),
  'collections.reindex': z.object({ name }).strict(),
  /** Pause / resume background indexing of one collection, or of everything without a name. */
  'collections.pause': z.object({ name: name.optional() }).strict(),
  'collections.resume': z.object({ name: name.optional() }).strict(),
  /** Compute missing embeddings (one collection, or all) in the background; progress comes as events. */
  'collections.embed': z.object({ name: name.optional() }).strict(),
  'index.activity': z.object({}).strict(),
  status: z.object({}).strict(),
  search: z
    .object({
      query: z.string().trim().min(1, 'type something to search for').max(4000),
      mode: z.enum(searchModes).optional(),
      syntax: z.enum(searchSyntaxes).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).optional(),
      minScore: z.number().min(0).max(1).optional(),
      explain: z.boolean().optional(),
      collections: z.array(name).optional(),
      path: z.string().min(1).optional(),
      kinds: z.array(z.string().min(1)).optional(),
      tags: z.array(z.string().min(1)).optional(),
      modifiedAfter: z.string().min(1).optional(),
      modifiedBefore: z.string().min(1).optional(),
    })
    .strict(),
  get: z
    .object({
      locator: z.string().trim().min(1, 'a document locator is required').max(4096),
      fromLine: z.number().int().min(1).optional(),
      maxLines: z.number().int().min(1).optional(),
      lineNumbers: z.boolean().optional(),
      /** Mark a search's words in the text (the preview), as the search's snippets mark them. */
      highlight: z.object({ query: z.string().trim().min(1).max(4000), syntax: z.enum(searchSyntaxes).optional() }).strict().optional(),
    })
    .strict(),
  /** The sources knowledge.search can search (collections, datasets, memory), with counts and modes. */
  'knowledge.sources': z.object({}).strict(),
  /** knowledge.search as the MCP tool runs it (no session): every source, or some, merged by calibrated score. */
  'knowledge.search': z
    .object({
      query: z.string().trim().min(1, 'type something to search for').max(4000),
      sources: z.array(z.string().trim().min(1)).optional(),
      mode: z.enum(knowledgeModes).optional(),
      order_by: z.enum(['relevance', 'recent']).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).optional(),
      snippet_length: z.number().optional(),
    })
    .strict(),
  /** knowledge.get: one item in a retrieval mode under a token budget (the Search screen's preview). */
  'knowledge.get': z
    .object({
      source: z.enum(['documents', 'datasets', 'memory']).optional(),
      id: z.string().trim().min(1).max(4096).optional(),
      uri: z.string().trim().min(1).max(4096).optional(),
      loc: z.object({ chunk_index: z.number().int().min(0).optional() }).optional(),
      query: z.string().max(4000).optional(),
      cursor: z.string().max(1000).optional(),
      retrieval: z
        .object({
          mode: z.enum(retrievalModes).optional(),
          max_tokens: z.number().optional(),
          chars_per_token: z.number().optional(),
          sibling_window: z.number().optional(),
          snippet_length: z.number().optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
  /** The folder browser: sub-folders of `path` (default: the user's home). */
  'folders.list': z.object({ path: z.string().max(4096).optional() }).strict(),
  'connect.info': z.object({}).strict(),
  /** Merges Trove's server entry into a client's own config file (backing the old file up first). */
  'connect.writeConfig': z.object({ client: z.enum(connectClients) }).strict(),
  /** The live log of MCP client requests, newest first; new ones also arrive as events. */
  'connect.requests': z.object({}).strict(),
  /** The knowledge sessions MCP clients hold (2025 sessions and 2026 handles): who, since when, how much. */
  'connect.sessions': z.object({}).strict(),
  'tokens.list': z.object({}).strict(),
  /** A named MCP token, optionally limited to some collections and tools, with a memory grant; the secret is returned once. */
  'tokens.create': z
    .object({
      name,
      collections: z.array(name).optional(),
      tools: z.array(z.string().trim().min(1)).optional(),
      /** Agent memory: none, read, write (default: write for a token of every collection, none for a scoped one). */
      memory: z.enum(['none', 'read', 'write']).optional(),
      /** deep-research: the token's clients see exactly search + fetch (ChatGPT's connectors). */
      profile: z.enum(tokenProfiles).optional(),
    })
    .strict(),
  'tokens.revoke': z.object({ name }).strict(),
  'settings.get': z.object({}).strict(),
  /** Saves some settings (port, maxFileBytes, redaction rules, the secret-redaction switch, backgroundEmbedding, ocr, database; null: back to the default); the host checks the values. */
  'settings.update': z
    .object({
      port: z.number().nullable().optional(),
      maxFileBytes: z.number().nullable().optional(),
      redaction: z.array(z.string()).optional(),
      redactSecrets: z.boolean().optional(),
      backgroundEmbedding: z.boolean().nullable().optional(),
      /** Background OCR of scanned pages and images (null: the default, on). */
      ocr: z.boolean().nullable().optional(),
      /** A PostgreSQL URL, or null / '' for this computer's SQLite file: checked by connecting, used from the host's next start. */
      database: z.string().max(2000).nullable().optional(),
    })
    .strict(),
  /** The embedding/reranker model catalogue and whether each model's files are here. */
  'models.list': z.object({}).strict(),
  /** Embed a collection with this model (null: automatic, by language); re-embeds in the background. */
  'collections.setModel': z.object({ name, model: z.string().trim().min(1).max(200).nullable() }).strict(),
  /** Download a model into the user cache in the background; progress and the end arrive as model.* events. */
  'models.pull': z.object({ id: z.string().trim().min(1).max(200) }).strict(),
  /** Registered datasets in every state, and the folders scanned for their manifests. */
  'datasets.list': z.object({}).strict(),
  /** Look for dataset manifests in this folder too; answers with the datasets found there (state changes follow as events). */
  'datasets.addFolder': z.object({ path: z.string().trim().min(1, 'a folder path is required').max(4096) }).strict(),
  'datasets.removeFolder': z.object({ path: z.string().trim().min(1, 'a folder path is required').max(4096) }).strict(),
  /** Look at every manifest folder again now (a running host also does it whenever a manifest changes). */
  'datasets.reload': z.object({}).strict(),
  /** Agent memory: threads with their counts, most recent first. */
  'memory.threads': z.object({}).strict(),
  /** A page of entries (one thread's, or all), newest first. */
  'memory.entries': z
    .object({
      thread: z.string().trim().min(1).max(256).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).optional(),
    })
    .strict(),
  /** One entry with its images. */
  'memory.get': z.object({ id: z.number().int().min(1) }).strict(),
  'memory.search': z
    .object({
      query: z.string().trim().min(1, 'type something to search for').max(4000),
      mode: z.enum(searchModes).optional(),
      syntax: z.enum(searchSyntaxes).optional(),
      thread: z.string().trim().min(1).max(256).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).optional(),
    })
    .strict(),
  /** Deletes entries by id, or a whole thread. */
  'memory.delete': z
    .object({ ids: z.array(z.number().int().min(1)).min(1).max(1000).optional(), thread: z.string().trim().min(1).max(256).optional() })
    .strict()
    .refine((p) => !p.ids !== !p.thread, { message: 'give ids or thread' }),
  'memory.statistics': z.object({}).strict(),
} as const;

export type ApiMethod = keyof typeof apiMethods;
export type ApiParams<M extends ApiMethod> = z.input<(typeof apiMethods)[M]>;
export type ValidApiParams<M extends ApiMethod> = z.output<(typeof apiMethods)[M]>;

export const apiMethodNames = Object.keys(apiMethods) as ApiMethod[];

export function isApiMethod(value: unknown): value is ApiMethod {
  return typeof value === 'string' && Object.hasOwn(apiMethods, value);
}

/** The error every face returns for a failed call; `code` is the engine's TroveError code. */
export interface ApiErrorBody {
  code: string;
  message: string;
}

export type ParamCheck<M extends ApiMethod> = { ok: true; params: ValidApiParams<M> } | { ok: false; error: ApiErrorBody };

/** Validates a call's parameters; the message names the field and what is wrong with it. */
export function checkParams<M extends ApiMethod>(method: M, params: unknown): ParamCheck<M> {
  const parsed = apiMethods[method].safeParse(params ?? {});
  if (parsed.success) return { ok: true, params: parsed.data as ValidApiParams<M> };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return { ok: false, error: { code: 'INVALID_INPUT', message: `${method}: ${where}${issue.message}` } };
}
