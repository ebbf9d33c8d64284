// The Memory screen's state: threads with their counts, the open thread's entries (newest first,
// paged) or a search's results, the entry shown in detail, and what the engine last said about
// memory as a whole. Everything comes from the engine through `trove`.
import { create } from 'zustand';
import type { MemoryEntry, MemoryHit, MemorySearchResponse, MemoryStatistics, MemoryThread } from '../../src-main/api/results';
import { errorMessage, trove } from './bridge';

export type MemoryMode = 'keyword' | 'vector' | 'hybrid' | 'rerank';
const PAGE = 30;

interface MemoryState {
  threads: MemoryThread[] | null;
  statistics: MemoryStatistics | null;
  /** null: every thread */
  thread: string | null;
  entries: { list: MemoryEntry[]; total: number; offset: number; hasMore: boolean } | null;
  search: { query: string; mode: MemoryMode; response: MemorySearchResponse | null; offset: number; busy: boolean };
  selected: MemoryEntry | null;
  error: string | null;
  load(): Promise<void>;
  openThread(thread: string | null, offset?: number): Promise<void>;
  setQuery(query: string): void;
  setMode(mode: MemoryMode): void;
  runSearch(offset?: number): Promise<void>;
  clearSearch(): void;
  select(id: number | null): Promise<void>;
  remove(target: { ids: number[] } | { thread: string }): Promise<void>;
}

export const useMemory = create<MemoryState>((set, get) => ({
  threads: null,
  statistics: null,
  thread: null,
  entries: null,
  search: { query: '', mode: 'keyword', response: null, offset: 0, busy: false },
  selected: null,
  error: null,
  async load() {
    try {
      const [threads, statistics] = await Promise.all([trove.call('memory.threads', {}), trove.call('memory.statistics', {})]);
      set({ threads, statistics, error: null });
      await get().openThread(get().thread, get().entries?.offset ?? 0);
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async openThread(thread, offset = 0) {
    try {
      const page = await trove.call('memory.entries', { ...(thread ? { thread } : {}), limit: PAGE, offset });
      set({ thread, entries: { list: page.entries, total: page.total, offset, hasMore: page.hasMore }, error: null });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  setQuery: (query) => set((s) => ({ search: { ...s.search, query } })),
  setMode: (mode) => set((s) => ({ search: { ...s.search, mode } })),
  async runSearch(offset = 0) {
    const { query, mode } = get().search;
    if (!query.trim()) {
      set({ error: 'Type something to search for.' });
      return;
    }
    set((s) => ({ search: { ...s.search, busy: true }, error: null }));
    try {
      const thread = get().thread;
      const response = await trove.call('memory.search', { query, mode, limit: 20, offset, ...(thread ? { thread } : {}) });
      set((s) => ({ search: { ...s.search, response, offset, busy: false } }));
    } catch (err) {
      set((s) => ({ search: { ...s.search, response: null, busy: false }, error: errorMessage(err) }));
    }
  },
  clearSearch: () => set((s) => ({ search: { ...s.search, query: '', response: null } })),
  async select(id) {
    if (id === null) return set({ selected: null });
    try {
      set({ selected: await trove.call('memory.get', { id }), error: null });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async remove(target) {
    try {
      await trove.call('memory.delete', target);
      const selected = get().selected;
      const gone = selected && ('ids' in target ? target.ids.includes(selected.id) : target.thread === selected.threadId);
      if (gone) set({ selected: null });
      if ('thread' in target && get().thread === target.thread) set({ thread: null });
      if (get().search.response) await get().runSearch(get().search.offset);
      await get().load();
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
}));

export type { MemoryHit };
