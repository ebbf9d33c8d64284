// Which FTS5 table holds a collection's keyword index. One per collection kind (see migration 6):
// the user's folders in chunks_fts, registered datasets' folders in dataset_fts, the memory store
// in memory_fts. All three have the same columns (title, headings, body), tokenizer and column
// weights, so the same planner, ranking SQL and native trove_bm25() serve each of them.
import type { CollectionKind } from './collections.js';

export type KeywordIndex = 'chunks_fts' | 'dataset_fts' | 'memory_fts';

export const KEYWORD_INDEXES: readonly KeywordIndex[] = ['chunks_fts', 'dataset_fts', 'memory_fts'];

const BY_KIND: Record<CollectionKind, KeywordIndex> = { folder: 'chunks_fts', dataset: 'dataset_fts', memory: 'memory_fts' };

export function keywordIndexOf(kind: CollectionKind): KeywordIndex {
  return BY_KIND[kind];
}

/** The fts5vocab table (term → rows containing it) the query planner reads. */
export function vocabularyOf(index: KeywordIndex): string {
  return `${index}_vocab`;
}
