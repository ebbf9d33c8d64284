// The entry conditions of memory's filters over memory_entries e as both backends write them, with
// `?` placeholders (PostgreSQL numbers them; only how a list of tags is bound differs), and the
// case folding both use for case-insensitive metadata comparisons.
import type { MemoryFilterValues } from './memory-rows.js';

/** Lower-cases for case-insensitive comparison (SQLite's trove_fold is this function; PostgreSQL folds with lower() under a Unicode collation). */
export function fold(s: string): string {
  return s.toLowerCase();
}

/** Some entry condition an index finds (a thread, created dates). */
export function indexedFilter(v: MemoryFilterValues): boolean {
  return v.threadId !== undefined || v.start !== undefined || v.end !== undefined;
}

/**
 * The conditions over memory_entries e, with `?` placeholders, as both backends write them; only
 * how a list of tags is bound differs (`tagMatch`: the condition on memory_tags t and its parameter).
 */
export function entryConditions(v: MemoryFilterValues, tagMatch: (tags: string[]) => [sql: string, param: unknown]): { where: string[]; params: unknown[] } {
  const entry = { where: [] as string[], params: [] as unknown[] };
  const add = (sql: string, param: unknown) => {
    entry.where.push(sql);
    entry.params.push(param);
  };
  if (v.threadId !== undefined) add('e.thread_id = ?', v.threadId);
  if (v.source !== undefined) add('e.source = ?', v.source);
  if (v.contentType !== undefined) add('e.content_type = ?', v.contentType);
  if (v.start !== undefined) add('e.created_at >= ?', v.start);
  if (v.end !== undefined) add('e.created_at <= ?', v.end);
  if (v.tags) {
    const [sql, param] = tagMatch(v.tags);
    add(`EXISTS (SELECT 1 FROM memory_tags t WHERE t.entry_id = e.id AND ${sql})`, param);
  }
  return entry;
}

