// Memory filters (thread, source, tags, content type, created dates, metadata) as SQL, checked
// once. Two uses: listing (FROM memory_entries e JOIN documents d) and the search legs, where the
// clause is pushed into the keyword and vector queries over documents d (ResolvedFilters.extra),
// so a page counts only matches — a page is never filtered after the fact.
import { invalidInput } from '../errors.js';
import type { FilterClause } from '../store/filters.js';
import type { MemoryFilters } from '../types/memory.js';
import { parseMemoryDate } from './dates.js';
import { checkSource, checkTags, checkThreadId } from './entry-input.js';
import { checkMetadata, sqliteMetadataSql, type MetadataCondition } from './metadata-filter.js';

/** The filters checked, as values (one validator for both backends; each renders its SQL). */
export interface MemoryFilterValues {
  threadId?: string;
  source?: string;
  contentType?: 'text' | 'multimodal';
  /** Created at or after / at or before, ms since the epoch. */
  start?: number;
  end?: number;
  /** Any of them; absent when none was given. */
  tags?: string[];
  metadata: MetadataCondition[];
}

export interface CheckedFilters {
  /** Over memory_entries e. */
  entry: { where: string[]; params: unknown[] };
  /** Over documents d (metadata). */
  document: { where: string[]; params: unknown[] };
  /** Some filter was given. */
  any: boolean;
  /** The entry conditions include one an index finds (thread, created dates): their entries can be listed cheaply. */
  indexed: boolean;
}

export function checkFilterValues(f: MemoryFilters): MemoryFilterValues {
  const out: MemoryFilterValues = { metadata: [] };
  if (f.threadId != null) out.threadId = checkThreadId(f.threadId, 'thread_id');
  if (f.source != null) out.source = checkSource(f.source, 'source');
  if (f.contentType != null) {
    if (f.contentType !== 'text' && f.contentType !== 'multimodal') throw invalidInput(`content_type must be "text" or "multimodal" (got ${JSON.stringify(f.contentType)})`);
    out.contentType = f.contentType;
  }
  const start = f.startDate != null ? parseMemoryDate(f.startDate, 'start_date') : undefined;
  const end = f.endDate != null ? parseMemoryDate(f.endDate, 'end_date', true) : undefined;
  if (start !== undefined && end !== undefined && start > end) throw invalidInput(`start_date (${f.startDate}) is after end_date (${f.endDate})`);
  if (start !== undefined) out.start = start;
  if (end !== undefined) out.end = end;
  if (f.tags != null) {
    const tags = checkTags(f.tags, 'tags');
    if (tags.length) out.tags = tags;
  }
  out.metadata = checkMetadata(f.metadata ?? undefined, f.metadataFilters ?? undefined);
  return out;
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

/** The filters as SQLite: conditions over memory_entries e and over documents d. */
export function checkFilters(f: MemoryFilters): CheckedFilters {
  const v = checkFilterValues(f);
  // any of the tags (OR): one probe of the (entry_id, tag) key per entry
  const entry = entryConditions(v, (tags) => ['t.tag IN (SELECT value FROM json_each(?))', JSON.stringify(tags)]);
  const document = sqliteMetadataSql('d.metadata', v.metadata);
  return { entry, document, any: entry.where.length > 0 || document.where.length > 0, indexed: indexedFilter(v) };
}

/**
 * The filters as one clause over documents d, for the search legs (null: no filter). With an
 * indexed entry condition (a thread, dates) the clause also has its set form: the matching
 * entries' documents listed once by that index, which keyword search prefers over checking each
 * matching row when a query's words match many rows (search/lexical.ts). `count` counts entries
 * matching a condition over e, up to a cap.
 */
export function searchClause(c: CheckedFilters, count?: (where: string, params: readonly unknown[], cap: number) => number): FilterClause | null {
  if (!c.any) return null;
  const parts: string[] = [];
  const params: unknown[] = [];
  if (c.entry.where.length) {
    parts.push(`EXISTS (SELECT 1 FROM memory_entries e WHERE e.document_id = d.id AND ${c.entry.where.join(' AND ')})`);
    params.push(...c.entry.params);
  }
  parts.push(...c.document.where);
  params.push(...c.document.params);
  const clause: FilterClause = { where: parts.join(' AND '), params };
  if (c.indexed && count) {
    const entryWhere = c.entry.where.join(' AND ');
    clause.asSet = {
      where: [`c.document_id IN (SELECT e.document_id FROM memory_entries e WHERE ${entryWhere})`, ...c.document.where].join(' AND '),
      params: [...c.entry.params, ...c.document.params],
      size: (cap) => count(entryWhere, c.entry.params, cap),
    };
  }
  return clause;
}

/** The filters over memory_entries e JOIN documents d, for listings ('' : none). */
export function listingClause(c: CheckedFilters): { where: string; params: unknown[] } {
  return { where: [...c.entry.where, ...c.document.where].join(' AND '), params: [...c.entry.params, ...c.document.params] };
}
