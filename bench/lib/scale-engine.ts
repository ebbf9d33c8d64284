// bench:scale's one door into the engine in process: open a profile, its counts, merge its keyword
// index, search, close (the bench's other steps go through the CLI, as a user's would).
import { Engine, readEnvironment, type SearchResponse } from '../../src-main/engine/index.js';

export type ScaleMode = 'keyword' | 'hybrid';

export interface ScaleEngine {
  documents: number;
  chunks: number;
  /** Merges the keyword index as a running host does in idle time (the storage's maintenance); milliseconds taken. */
  merge(): Promise<number>;
  search(query: string, mode: ScaleMode, limit?: number): Promise<SearchResponse>;
  close(): Promise<void>;
}

/** Opens the profile at `profileDir` with the environment's options (TROVE_MODELS_DIR and the rest). */
export async function openScaleEngine(profileDir: string): Promise<ScaleEngine> {
  const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir });
  const { totals } = await engine.status();
  return {
    documents: totals.documents,
    chunks: totals.chunks,
    async merge() {
      const t0 = performance.now();
      await engine.compactIndex();
      return performance.now() - t0;
    },
    search: (query, mode, limit = 10) => engine.search({ query, mode, limit }),
    close: () => engine.close(),
  };
}
