// Memory filters (thread, source, tags, content type, created dates, metadata) checked once, into
// data (store/memory-rows.ts MemoryFilterValues) that each backend renders into its own SQL for
// listings and for the search legs, where the clause is pushed into the keyword and vector queries
// over documents d, so a page counts only matches — a page is never filtered after the fact.
import { invalidInput } from '../errors.js';
import type { MemoryFilters } from '../types/memory.js';
import { parseMemoryDate } from './dates.js';
import { checkSource, checkTags, checkThreadId } from './entry-input.js';
import type { MemoryFilterValues } from '../store/memory-rows.js';
import { checkMetadata } from './metadata-filter.js';


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

export type { MemoryFilterValues };
