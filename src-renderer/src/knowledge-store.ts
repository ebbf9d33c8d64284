// The Search screen's "All sources" side: a knowledge.search over every source (or the ones
// ticked), the merged results with their calibrated scores, and which result is previewed.
// Everything shown comes from the engine through `trove`.
import { create } from 'zustand';
import type { KnowledgeItem, KnowledgeSearchResponse, KnowledgeSourceInfo } from '../../src-main/api/results';
import { errorMessage, trove } from './bridge';

export interface KnowledgeForm {
  query: string;
  /** auto: the engine's default per source (hybrid where it has vectors, else keyword). */
  mode: 'auto' | 'keyword' | 'semantic' | 'hybrid';
  /** Ticked sources (none: all). */
  sources: string[];
  orderBy: 'relevance' | 'recent';
}

interface KnowledgeState {
  form: KnowledgeForm;
  sources: KnowledgeSourceInfo[] | null;
  response: KnowledgeSearchResponse | null;
  error: string | null;
  busy: boolean;
  selected: KnowledgeItem | null;
  setForm(patch: Partial<KnowledgeForm>): void;
  loadSources(): Promise<void>;
  run(offset?: number): Promise<void>;
  select(item: KnowledgeItem | null): void;
}

export const useKnowledge = create<KnowledgeState>((set, get) => ({
  form: { query: '', mode: 'auto', sources: [], orderBy: 'relevance' },
  sources: null,
  response: null,
  error: null,
  busy: false,
  selected: null,
  setForm: (patch) => set((s) => ({ form: { ...s.form, ...patch } })),
  async loadSources() {
    try {
      set({ sources: await trove.call('knowledge.sources', {}) });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async run(offset = 0) {
    const { form } = get();
    if (!form.query.trim()) {
      set({ error: 'Type something to search for.', response: null });
      return;
    }
    set({ busy: true, error: null });
    try {
      const response = await trove.call('knowledge.search', {
        query: form.query,
        limit: 20,
        offset,
        order_by: form.orderBy,
        ...(form.mode !== 'auto' ? { mode: form.mode } : {}),
        ...(form.sources.length ? { sources: form.sources } : {}),
      });
      set({ response, busy: false, selected: null });
    } catch (err) {
      set({ response: null, busy: false, error: errorMessage(err) });
    }
  },
  select: (item) => set({ selected: item }),
}));
