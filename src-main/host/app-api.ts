// The app API dispatcher: validates each call with the shared schemas and answers it from an
// Engine (engine/app-index.ts: the SQLite Engine, or an index in PostgreSQL), awaiting every answer. The engine host exposes it twice: as IPC messages to the Electron main process
// (app-api-ipc.ts) and over HTTP for the web UI (ui-routes.ts). Nothing here knows which.
import { checkParams, isApiMethod, type ApiMethod, type ValidApiParams } from '../api/methods.js';
import type { ApiReply } from '../api/bridge.js';
import type { ApiEvent, ApiResults, ClientRequest, ClientSession, SettingSource } from '../api/results.js';
import { isTroveError, TroveError, type Engine } from '../engine/index.js';
import { TOOL_NAMES } from '../mcp/tools/index.js';
import { connectInfo, type ConnectSource } from './app-api-connect.js';
import { writeClientConfig } from './client-config-file.js';
import { listFolders } from './app-api-folders.js';
import { IndexActivityTracker } from './app-api-indexing.js';
import { ModelPulls } from './app-api-models.js';
import { settingsInfo, updateSettingsCall } from './app-api-settings.js';

export interface AppApiOptions {
  engine: Engine;
  /** Where MCP clients reach this host; asked on each call because the server may start later. */
  connect?: () => ConnectSource;
  /** What chose this host's database (settings shows it); default: the SQLite default, or the saved choice on PostgreSQL. */
  databaseSource?: SettingSource;
  /** The running server's port and where its preferred port came from (settings shows it). */
  port?: () => { running: number; source: SettingSource };
  /** The MCP endpoint's live request log (the Connect screen's); none when this host serves no MCP. */
  requests?: { list(): ClientRequest[]; onRecord(listener: (r: ClientRequest) => void): () => void };
  /** The MCP endpoint's knowledge sessions (the Connect screen's clients). */
  sessions?: { list(): ClientSession[] };
  /** Base URL serving <model id>/<file> for `models.pull` (TROVE_MODELS_MIRROR); default each model's own source. */
  modelsMirror?: string;
}

/** How often changes the window did not make (the watcher's, other hosts') refresh it at most. */
const REFRESH_AT_MOST_EVERY_MS = 1000;

type Handlers = { [M in ApiMethod]: (p: ValidApiParams<M>) => ApiResults[M] | Promise<ApiResults[M]> };

export interface AppApi {
  call(method: string, params: unknown): Promise<ApiReply>;
  onEvent(listener: (e: ApiEvent) => void): () => void;
  /** Resolves when no index run is queued or running. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function createAppApi(opts: AppApiOptions): AppApi {
  const { engine } = opts;
  const indexing = new IndexActivityTracker(engine);
  const listeners = new Set<(e: ApiEvent) => void>();
  const emit = (e: ApiEvent) => {
    for (const l of listeners) l(e);
  };
  indexing.onChange((activity) => {
    emit({ type: 'index.activity', activity });
    // counts change when a run finishes
    if (!activity.running) emit({ type: 'collections.changed' });
  });

  const offEmbedding = engine.onEmbeddingProgress((progress) => emit({ type: 'embedding.progress', progress }));
  const offDatasets = engine.datasets.onChange((dataset) => emit({ type: 'datasets.changed', dataset }));
  const offRequests = opts.requests?.onRecord((request) => emit({ type: 'connect.request', request }));
  // writes the window did not ask for: the collections refresh, at most once a second however busy they are
  let refreshTimer: NodeJS.Timeout | null = null;
  const refreshSoon = () => {
    refreshTimer ??= setTimeout(() => {
      refreshTimer = null;
      emit({ type: 'collections.changed' });
    }, REFRESH_AT_MOST_EVERY_MS);
  };
  // other hosts' writes (PostgreSQL)
  const offRemote = engine.onRemoteChange?.(refreshSoon);
  // this host's watcher indexed a changed file, or finished a batch of a run: its counts moved
  const offProgress = engine.onProgress((p) => {
    if (p.phase === 'idle' || p.phase === 'paused' || p.done > 0) refreshSoon();
  });
  const embedding = new Set<Promise<unknown>>();
  // a model that arrived may be what a dataset in error was waiting for: look at them again
  const pulls = new ModelPulls(
    engine,
    (e) => {
      emit(e);
      if (e.type === 'model.finished' && !e.error) void engine.datasets.reload().catch(() => undefined);
    },
    opts.modelsMirror,
  );

  const assertNotIndexing = (name: string, what: string) => {
    if (indexing.snapshot().running?.collection === name) {
      throw new TroveError('CONFLICT', `"${name}" is being indexed right now; ${what} it when the run finishes`);
    }
  };
  const changed = <T>(v: T): T => {
    emit({ type: 'collections.changed' });
    return v;
  };
  // minutes of model work: answer now, report through events
  const startEmbedding = (name: string | undefined) => {
    const run: Promise<unknown> = engine
      .embed({ collection: name })
      .then(
        () => emit({ type: 'embedding.finished', collection: name ?? null, error: null }),
        (err: unknown) => emit({ type: 'embedding.finished', collection: name ?? null, error: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => {
        embedding.delete(run);
        emit({ type: 'collections.changed' });
      });
    embedding.add(run);
    return { started: name ?? 'all' };
  };

  const handlers: Handlers = {
    'collections.list': () => engine.listCollections(),
    'collections.add': async (p) => {
      const info = await engine.addCollection({ root: p.root, name: p.name, include: p.include, exclude: p.exclude, context: p.context });
      if (p.index !== false) indexing.enqueue(info.name);
      return changed(info);
    },
    'collections.remove': async (p) => {
      assertNotIndexing(p.name, 'remove');
      await engine.removeCollection(p.name);
      return changed({ removed: p.name });
    },
    'collections.rename': async (p) => {
      assertNotIndexing(p.name, 'rename');
      return changed(await engine.renameCollection(p.name, p.newName));
    },
    'collections.setContext': async (p) => changed(await engine.setCollectionContext(p.name, p.context)),
    'collections.setRedaction': async (p) => changed(await engine.setCollectionRedaction(p.name, p.redactSecrets)),
    'collections.setOcrLanguages': async (p) => changed(await engine.setCollectionOcrLanguages(p.name, p.languages)),
    'collections.reindex': async (p) => {
      // fail now, not later in the queue, when the name is wrong
      if (!(await engine.listCollections()).some((c) => c.name === p.name)) throw new TroveError('NOT_FOUND', `no collection named "${p.name}"`);
      return indexing.enqueue(p.name);
    },
    'collections.pause': async (p) => {
      await engine.pause(p.name);
      return changed({ paused: p.name ?? 'all' });
    },
    'collections.resume': async (p) => {
      await engine.resume(p.name);
      return changed({ resumed: p.name ?? 'all' });
    },
    'collections.embed': async (p) => {
      if (p.name && !(await engine.listCollections()).some((c) => c.name === p.name)) throw new TroveError('NOT_FOUND', `no collection named "${p.name}"`);
      return startEmbedding(p.name);
    },
    'collections.setModel': async (p) => {
      const status = await engine.setCollectionModel(p.name, p.model);
      startEmbedding(p.name); // the new model's vectors are built beside the old ones, swapped in when done
      return changed(status);
    },
    'models.list': () => engine.models.list(),
    'models.pull': (p) => pulls.start(p.id),
    'index.activity': () => indexing.snapshot(),
    status: () => engine.status(),
    // the UI shows what assistants get: secrets and the user's rules redacted as the MCP server does (highlights move with the text)
    search: async (p) => engine.settings.redact(await engine.search(p)),
    get: async (p) => engine.settings.redact(await engine.get(p.locator, { fromLine: p.fromLine, maxLines: p.maxLines, lineNumbers: p.lineNumbers, highlight: p.highlight })),
    'folders.list': (p) => listFolders(p.path),
    'connect.info': () => connectInfo(opts.connect?.() ?? { endpoint: null, token: null }),
    'connect.writeConfig': (p) => {
      const config = connectInfo(opts.connect?.() ?? { endpoint: null, token: null }).configs.find((c) => c.client === p.client)!;
      return writeClientConfig(config);
    },
    'connect.requests': () => opts.requests?.list() ?? [],
    'connect.sessions': () => opts.sessions?.list() ?? [],
    'knowledge.sources': () => engine.knowledge.sources(),
    'knowledge.search': async (p) => engine.settings.redact(await engine.knowledge.search(p)),
    // the preview shows what assistants get: the same redaction rules as the MCP server
    'knowledge.get': async (p) => engine.settings.redact(await engine.knowledge.get({ ...p, max_tokens_explicit: p.retrieval?.max_tokens !== undefined })),
    'tokens.list': async () => ({ tokens: await engine.listTokens(), toolNames: [...TOOL_NAMES] }),
    'tokens.create': (p) => {
      const unknown = p.tools?.filter((t) => !TOOL_NAMES.includes(t)) ?? [];
      if (unknown.length) throw new TroveError('INVALID_INPUT', `unknown tool ${unknown.join(', ')}; tools are ${TOOL_NAMES.join(', ')}`);
      return engine.createToken({
        name: p.name,
        collections: p.collections?.length ? p.collections : undefined,
        tools: p.tools?.length ? p.tools : undefined,
        memory: p.memory,
        profile: p.profile,
      });
    },
    'tokens.revoke': async (p) => {
      await engine.revokeToken(p.name);
      return { revoked: p.name };
    },
    'memory.threads': () => engine.memory.threads(),
    // memory text is redacted like document text (the memory screen shows what assistants get)
    'memory.entries': async (p) => engine.settings.redact(await engine.memory.list({ threadId: p.thread, limit: p.limit, offset: p.offset })),
    'memory.get': async (p) => {
      const [entry] = await engine.memory.get([p.id], { includeImages: true });
      if (!entry) throw new TroveError('NOT_FOUND', `memory entry ${p.id} not found`);
      return engine.settings.redact(entry);
    },
    'memory.search': async (p) =>
      engine.settings.redact(await engine.memory.search({ query: p.query, mode: p.mode, syntax: p.syntax, threadId: p.thread, limit: p.limit, offset: p.offset })),
    'memory.delete': (p) => engine.memory.delete(p.ids ? { ids: p.ids } : { threadIds: [p.thread!] }),
    'memory.statistics': () => engine.memory.statistics(),
    'settings.get': () => settingsInfo(opts),
    'settings.update': (p) => updateSettingsCall(opts, p),
    'datasets.list': async () => ({ datasets: await engine.datasets.list(), profileFolder: engine.datasets.profileFolder(), folders: await engine.datasets.folders() }),
    'datasets.addFolder': (p) => engine.datasets.addFolder(p.path),
    'datasets.removeFolder': async (p) => {
      await engine.datasets.removeFolder(p.path);
      return { removed: p.path };
    },
    'datasets.reload': () => engine.datasets.reload(),
  };

  return {
    async call(method, params) {
      if (!isApiMethod(method)) return { ok: false, error: { code: 'NOT_FOUND', message: `unknown app API method "${String(method)}"` } };
      const checked = checkParams(method, params);
      if (!checked.ok) return { ok: false, error: checked.error };
      try {
        const handler = handlers[method] as (p: unknown) => unknown;
        return { ok: true, result: (await handler(checked.params)) as ApiResults[typeof method] };
      } catch (err) {
        return { ok: false, error: toErrorBody(err, method) };
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async idle() {
      await indexing.idle();
      await Promise.all([...embedding]);
      await pulls.idle();
    },
    async close() {
      listeners.clear();
      offEmbedding();
      offDatasets();
      offRequests?.();
      offRemote?.();
      offProgress();
      if (refreshTimer) clearTimeout(refreshTimer);
      await indexing.close();
      // embedding runs are not awaited: they end when the engine closes (the stage stops between
      // chunks and the workers finish their current run), which is the owner's next step
      await pulls.close();
    },
  };
}

function toErrorBody(err: unknown, method: string): { code: string; message: string } {
  if (isTroveError(err)) return { code: err.code, message: err.message };
  // unexpected: log the detail (never document text) and answer with a plain message
  process.stderr.write(`trove host: app API ${method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return { code: 'INTERNAL', message: `${method} failed: ${err instanceof Error ? err.message : String(err)}` };
}
