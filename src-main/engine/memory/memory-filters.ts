// Memory filters (thread, source, tags, content type, created dates, metadata) as SQL, checked
// once. Two uses: listing (FROM memory_entries e JOIN documents d) and the search legs, where the
// clause is pushed into the keyword and vector queries over documents d (ResolvedFilters.extra),
// so a page counts only matches — a page is never filtered after the fact.
import { invalidInput } from '../errors.js';
import type { FilterClause } from '../search/filters.js';
import type { MemoryFilters } from '../types/memory.js';
import { parseMemoryDate } from './dates.js';
import { checkSource, checkTags, checkThreadId } from './entry-input.js';
import { metadataSql } from './metadata-filter.js';

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

export function checkFilters(f: MemoryFilters): CheckedFilters {
  const entry = { where: [] as string[], params: [] as unknown[] };
  if (f.threadId != null) {
    entry.where.push('e.thread_id = ?');
    entry.params.push(checkThreadId(f.threadId, 'thread_id'));
  }
  if (f.source != null) {
    entry.where.push('e.source = ?');
    entry.params.push(checkSource(f.source, 'source'));
  }
  if (f.contentType != null) {
    if (f.contentType !== 'text' && f.contentType !== 'multimodal') throw invalidInput(`content_type must be "text" or "multimodal" (got ${JSON.stringify(f.contentType)})`);
    entry.where.push('e.content_type = ?');
    entry.params.push(f.contentType);
  }
  const start = f.startDate != null ? parseMemoryDate(f.startDate, 'start_date') : undefined;
  const end = f.endDate != null ? parseMemoryDate(f.endDate, 'end_date', true) : undefined;
  if (start !== undefined && end !== undefined && start > end) throw invalidInput(`start_date (${f.startDate}) is after end_date (${f.endDate})`);
  if (start !== undefined) {
    entry.where.push('e.created_at >= ?');
    entry.params.push(start);
  }
  if (end !== undefined) {
    entry.where.push('e.created_at <= ?');
    entry.params.push(end);
  }
  if (f.tags != null) {
    const tags = checkTags(f.tags, 'tags');
    if (tags.length) {
      // any of them (OR): one probe of the (entry_id, tag) key per entry
      entry.where.push(`EXISTS (SELECT 1 FROM memory_tags t WHERE t.entry_id = e.id AND t.tag IN (SELECT value FROM json_each(?)))`);
      entry.params.push(JSON.stringify(tags));
    }
  }
  const document = metadataSql('d.metadata', f.metadata ?? undefined, f.metadataFilters ?? undefined);
  const indexed = f.threadId != null || start !== undefined || end !== undefined;
  return { entry, document, any: entry.where.length > 0 || document.where.length > 0, indexed };
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
