// Engine.datasets: the registry as plain-data methods (the faces never hold the service), with the
// search inputs checked as the dataset-registry spec's SearchQuery (query 1..1024 characters and not
// only whitespace, topK 1..100, default the dataset's defaultTopK).
import { invalidInput, notFound, TroveError } from '../errors.js';
import type { DatasetDocument, DatasetInfo, DatasetSearchOptions, DatasetSearchResult, DatasetsApi } from '../types/datasets.js';
import { FaissDataset } from './faiss-dataset.js';
import { type FolderDataset } from './folder-dataset.js';
import { type Awaitable, type DatasetModels } from './ports.js';
import type { DatasetRegistry, Entry } from './registry.js';

const MAX_QUERY = 1024;
const DEFAULT_SNIPPET = 300;

/**
 * The registry's plain-data methods, answered as promises on every backend (on SQLite the ports
 * answer in hand, on PostgreSQL, shared/shared-datasets.ts, they are round trips). `sync`: reads
 * what another host may have changed (the added folders, the documents counted) before a list or a reload.
 */
export function datasetsApi(registry: DatasetRegistry, embeddings: DatasetModels, sync: () => Awaitable<void> = () => undefined): DatasetsApi {
  const ready = (id: string): { entry: Entry; dataset: FaissDataset | FolderDataset } => {
    const entry = known(registry, id);
    if (entry.info.state !== 'ready' || !entry.dataset) {
      const why = entry.info.reason ? `: ${entry.info.reason}` : entry.info.state === 'loading' ? ' (its files are being read, or its folder indexed, right now)' : '';
      throw new TroveError('UNAVAILABLE', `dataset "${id}" is ${entry.info.state}${why}`);
    }
    return { entry, dataset: entry.dataset };
  };

  return {
    list: async () => {
      await sync();
      return registry.list();
    },
    info: async (id) => {
      await sync();
      return snapshotOf(registry, id);
    },
    async search(id: string, query: string, opts: DatasetSearchOptions = {}): Promise<DatasetSearchResult> {
      const started = performance.now();
      const q = checkQuery(query);
      await sync();
      const { entry, dataset } = ready(id);
      const topK = checkInt(opts.topK ?? entry.info.defaultTopK, 'topK', 1, 100);
      const offset = checkInt(opts.offset ?? 0, 'offset', 0, 10_000);
      const snippetLength = checkInt(opts.snippetLength ?? DEFAULT_SNIPPET, 'snippetLength', 1, 5000);
      if (opts.mode !== undefined && !['keyword', 'semantic', 'hybrid'].includes(opts.mode)) throw invalidInput(`mode must be keyword, semantic or hybrid (got "${String(opts.mode)}")`);
      const done = (r: Omit<DatasetSearchResult, 'dataset' | 'durationMs' | 'nextOffset'>): DatasetSearchResult => ({
        dataset: id,
        ...r,
        nextOffset: r.hasMore ? offset + topK : null,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      });
      if (dataset instanceof FaissDataset) {
        const notices = opts.mode && opts.mode !== 'semantic' ? [`dataset "${id}" is a FAISS index: searched by its vectors (semantic), not ${opts.mode}`] : [];
        const { vector } = await embeddings.embedWithModel(dataset.model, q, 'query');
        const page = dataset.search(q, vector, { topK, offset, snippetLength });
        return done({ mode: 'semantic', results: page.results, hasMore: page.hasMore, datasetSize: dataset.size, notices: [...notices, ...page.notices] });
      }
      const page = await dataset.search(q, { topK, offset, mode: opts.mode, snippetLength });
      return done({ mode: page.mode, results: page.results, hasMore: page.hasMore, datasetSize: dataset.size, notices: page.notices });
    },
    async document(id: string, ref: string): Promise<DatasetDocument> {
      if (typeof ref !== 'string' || !ref) throw invalidInput('a document ref is required');
      await sync();
      return ready(id).dataset.document(ref);
    },
    folders: async () => {
      await sync();
      return registry.folders();
    },
    addFolder: async (dir) => registry.addFolder(dir),
    removeFolder: async (dir) => registry.removeFolder(dir),
    onChange: (listener) => registry.onChange(listener),
    settled: async () => {
      await sync(); // the added folders first: their datasets are what to wait for
      await registry.settled();
      await sync();
      return registry.list();
    },
    async reload(): Promise<DatasetInfo[]> {
      await registry.sync();
      registry.refresh();
      await registry.settled();
      await sync();
      return registry.list();
    },
    profileFolder: () => registry.profileFolder(),
  };
}

function known(registry: DatasetRegistry, id: string): Entry {
  if (typeof id !== 'string' || !id) throw invalidInput('a dataset id is required');
  const entry = registry.entry(id);
  if (!entry) {
    const ids = [...new Set(registry.list().map((d) => d.id))];
    throw notFound(`no dataset "${id}"${ids.length ? ` (datasets: ${ids.join(', ')})` : ` (none registered: put one in ${registry.profileFolder()}/<id>/manifest.json or run \`trove dataset add <folder>\`)`}`);
  }
  return entry;
}

function snapshotOf(registry: DatasetRegistry, id: string): DatasetInfo {
  const entry = known(registry, id);
  return registry.list().find((d) => d.manifestPath === entry.file)!;
}

function checkQuery(query: unknown): string {
  if (typeof query !== 'string' || !query.trim()) throw invalidInput('query is empty: type what to search for');
  const q = query.trim();
  if (q.length > MAX_QUERY) throw invalidInput(`query is longer than ${MAX_QUERY} characters (${q.length})`);
  return q;
}

function checkInt(v: unknown, name: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalidInput(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return v;
}
