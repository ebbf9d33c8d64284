// The renderer's state: what the engine last said (collections, index activity, status), which
// screen is open, and the search playground's query and results. Everything shown comes from
// the engine through `trove`; nothing here is invented.
import { create } from 'zustand';
import type { ApiEvent, CollectionInfo, DatasetList, EmbeddingProgress, IndexActivity, SearchResponse, StatusReport } from '../../src-main/api/results';
import { errorCode, errorMessage, trove } from './bridge';

export type Screen = 'collections' | 'status' | 'search' | 'memory' | 'connect' | 'settings';
export const screens: { id: Screen; label: string }[] = [
  { id: 'collections', label: 'Collections' },
  { id: 'status', label: 'Index status' },
  { id: 'search', label: 'Search' },
  { id: 'memory', label: 'Memory' },
  { id: 'connect', label: 'Connect' },
  { id: 'settings', label: 'Settings' },
];

export interface SearchForm {
  query: string;
  mode: 'keyword' | 'vector' | 'hybrid' | 'rerank';
  syntax: 'match' | 'phrase' | 'prefix' | 'boolean';
  collections: string[];
  path: string;
  kind: string;
  tag: string;
  explain: boolean;
}

interface AppState {
  screen: Screen;
  signedOut: boolean;
  loadError: string | null;
  collections: CollectionInfo[] | null;
  activity: IndexActivity | null;
  status: StatusReport | null;
  /** Registered datasets and the folders scanned for them (null until loaded). */
  datasets: DatasetList | null;
  /** Why the datasets could not be listed (UNAVAILABLE on a host serving PostgreSQL), shown in their section. */
  datasetsError: string | null;
  /** Live embedding progress per collection, and how the last run ended. */
  embedding: { progress: Record<string, EmbeddingProgress>; finished: { collection: string | null; error: string | null } | null };
  search: { form: SearchForm; response: SearchResponse | null; error: string | null; busy: boolean; selected: string | null };
  /** Model downloads: live bytes per model, the last error per model, the source that served each finished one, and a counter bumped when one ends. */
  downloads: { progress: Record<string, ModelDownload>; errors: Record<string, string>; served: Record<string, string>; finished: number };
  setScreen(screen: Screen): void;
  refresh(): Promise<void>;
  refreshStatus(): Promise<void>;
  refreshDatasets(): Promise<void>;
  setActivity(a: IndexActivity): void;
  onEvent(e: ApiEvent): void;
  setSearchForm(patch: Partial<SearchForm>): void;
  runSearch(offset?: number): Promise<void>;
  selectResult(uri: string | null): void;
  pullModel(id: string): Promise<void>;
}

/** While embedding progresses, status (how much is embedded) is fetched again at most this often. */
const STATUS_EVERY_MS = 5_000;
let statusAskedAt = 0;
/** Calls of refresh() and refreshStatus() so far, and index.activity events received: which answer is the latest. */
let refreshes = 0;
let statusRefreshes = 0;
let activityEvents = 0;

export interface ModelDownload {
  file: string | null;
  received: number;
  total: number | null;
  /** Where the bytes come from (a model's sources are tried in order). */
  source: string | null;
}

export const useApp = create<AppState>((set, get) => ({
  screen: 'collections',
  signedOut: false,
  loadError: null,
  collections: null,
  activity: null,
  status: null,
  datasets: null,
  datasetsError: null,
  embedding: { progress: {}, finished: null },
  downloads: { progress: {}, errors: {}, served: {}, finished: 0 },
  search: {
    form: { query: '', mode: 'keyword', syntax: 'match', collections: [], path: '', kind: '', tag: '', explain: false },
    response: null,
    error: null,
    busy: false,
    selected: null,
  },
  setScreen: (screen) => set({ screen }),
  async refresh() {
    const asked = ++refreshes;
    const activitySeen = activityEvents;
    try {
      const [collections, activity] = await Promise.all([trove.call('collections.list', {}), trove.call('index.activity', {})]);
      // answers can arrive out of order (a busy database answers an earlier call later): only the
      // latest call's counts are shown, and an activity event newer than the call wins over its snapshot
      if (asked !== refreshes) return;
      set({ collections, ...(activitySeen === activityEvents ? { activity } : {}), loadError: null, signedOut: false });
    } catch (err) {
      if (errorCode(err) === 'UNAUTHORIZED') set({ signedOut: true });
      else set({ loadError: errorMessage(err) });
    }
  },
  async refreshStatus() {
    const asked = ++statusRefreshes;
    try {
      const status = await trove.call('status', {});
      if (asked === statusRefreshes) set({ status });
    } catch (err) {
      set({ loadError: errorMessage(err) });
    }
  },
  async refreshDatasets() {
    try {
      set({ datasets: await trove.call('datasets.list', {}), datasetsError: null });
    } catch (err) {
      set({ datasetsError: errorMessage(err) });
    }
  },
  setActivity: (activity) => {
    activityEvents++;
    set({ activity });
  },
  onEvent(e) {
    if (e.type === 'index.activity') {
      activityEvents++;
      set({ activity: e.activity });
    } else if (e.type === 'collections.changed') void get().refresh();
    else if (e.type === 'datasets.changed') refetchSoon(() => void get().refreshDatasets());
    else if (e.type === 'embedding.progress') {
      set((s) => ({ embedding: { ...s.embedding, progress: { ...s.embedding.progress, [e.progress.collection]: e.progress } } }));
      // the counts change as the stage goes: fetch them when it finishes or stops a collection, and every few seconds meanwhile
      const now = Date.now();
      if (e.progress.phase === 'done' || e.progress.phase === 'paused' || now - statusAskedAt > STATUS_EVERY_MS) {
        statusAskedAt = now;
        void get().refreshStatus();
      }
    }
    else if (e.type === 'embedding.finished') {
      set((s) => ({ embedding: { progress: e.collection ? omit(s.embedding.progress, e.collection) : {}, finished: { collection: e.collection, error: e.error } } }));
      void get().refreshStatus();
    } else if (e.type === 'model.progress') {
      set((s) => ({ downloads: { ...s.downloads, progress: { ...s.downloads.progress, [e.model]: { file: e.file, received: e.received, total: e.total, source: e.source } } } }));
    } else if (e.type === 'model.finished') {
      set((s) => ({
        downloads: {
          progress: omit(s.downloads.progress, e.model),
          errors: e.error ? { ...s.downloads.errors, [e.model]: e.error } : omit(s.downloads.errors, e.model),
          served: e.source ? { ...s.downloads.served, [e.model]: e.source } : omit(s.downloads.served, e.model),
          finished: s.downloads.finished + 1,
        },
      }));
    }
  },
  setSearchForm: (patch) => set((s) => ({ search: { ...s.search, form: { ...s.search.form, ...patch } } })),
  async runSearch(offset = 0) {
    const { form } = get().search;
    if (!form.query.trim()) {
      set((s) => ({ search: { ...s.search, error: 'Type something to search for.', response: null } }));
      return;
    }
    set((s) => ({ search: { ...s.search, busy: true, error: null } }));
    try {
      const response = await trove.call('search', {
        query: form.query,
        mode: form.mode,
        syntax: form.syntax,
        explain: form.explain,
        limit: 20,
        offset,
        ...(form.collections.length ? { collections: form.collections } : {}),
        ...(form.path.trim() ? { path: form.path.trim() } : {}),
        ...(form.kind.trim() ? { kinds: [form.kind.trim()] } : {}),
        ...(form.tag.trim() ? { tags: [form.tag.trim()] } : {}),
      });
      set((s) => ({ search: { ...s.search, response, busy: false, selected: null } }));
    } catch (err) {
      set((s) => ({ search: { ...s.search, response: null, busy: false, error: errorMessage(err) } }));
    }
  },
  selectResult: (uri) => set((s) => ({ search: { ...s.search, selected: uri } })),
  async pullModel(id) {
    // shown as started before the call: a small model's finished event can beat the reply
    set((s) => ({ downloads: { ...s.downloads, progress: { ...s.downloads.progress, [id]: { file: null, received: 0, total: null, source: null } }, errors: omit(s.downloads.errors, id) } }));
    try {
      await trove.call('models.pull', { id });
    } catch (err) {
      set((s) => ({ downloads: { ...s.downloads, progress: omit(s.downloads.progress, id), errors: { ...s.downloads.errors, [id]: errorMessage(err) } } }));
    }
  },
}));

// a reload emits several state changes per dataset: one refetch for the burst
let refetchTimer: ReturnType<typeof setTimeout> | null = null;
function refetchSoon(fn: () => void): void {
  if (refetchTimer) return;
  refetchTimer = setTimeout(() => {
    refetchTimer = null;
    fn();
  }, 100);
}

function omit<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return rest;
}
