// Search filters as data, the same on every backend: each renders them into its own SQL and pushes
// them into its keyword and vector queries (store/sqlite/filters.ts, store/postgres/filters.ts), so
// pagination counts only what the caller may see. A room with fields of its own (memory: thread,
// source, metadata…) adds one `extra` clause over documents d that its backend wrote for it
// (MemoryRepository.searchClause); it is pushed down the same way.
export interface ResolvedFilters {
  collectionIds?: number[];
  pathGlob?: string;
  kinds?: string[];
  modifiedAfterMs?: number;
  modifiedBeforeMs?: number;
  /** Every tag must be present. */
  tags?: string[];
  /** A room's own condition over documents d (bound parameters only), ANDed with the rest. */
  extra?: FilterClause;
}

export interface FilterClause {
  where: string;
  params: unknown[];
  /**
   * The same condition with its selective part written as a set of documents
   * (`c.document_id IN (SELECT …)`, over the candidate step's chunks c and documents d), which a
   * statement builds once instead of checking every row the FTS expression matches: keyword
   * search takes it for a step over many postings when the set is small (store/sqlite/keyword.ts).
   */
  asSet?: { where: string; params: unknown[]; /** Members, counted up to `cap`. */ size(cap: number): number };
}

