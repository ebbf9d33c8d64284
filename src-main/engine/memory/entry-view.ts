// Rows → what callers see: a MemoryEntry (parsed metadata and tags, ISO times, images), a
// preview around the best match and the whole text with the matches marked. Snippets are cut by
// search/snippet.ts, which numbers lines for documents; an entry's preview is shown as written.
import { highlightSpans } from '../search/highlight.js';
import { snippetAround, type TermMatcher } from '../search/snippet.js';
import type { MemoryEntry, MemoryImage } from '../types/memory.js';
import type { Span } from '../types/search.js';
import { isoTime } from './dates.js';
import type { EntryRow, ImageRow } from '../store/memory-rows.js';

export function toEntry(row: EntryRow, images: readonly ImageRow[] = []): MemoryEntry {
  return {
    id: row.id,
    threadId: row.thread_id,
    source: row.source,
    contentType: row.content_type,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    tags: JSON.parse(row.tags) as string[],
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    images: images.map((i): MemoryImage => ({ mime_type: i.mime_type, bytes: i.bytes, ...(i.data ? { data: i.data.toString('base64') } : {}) })),
  };
}

/** Images grouped by entry id. */
export function imagesByEntry(rows: readonly ImageRow[]): Map<number, ImageRow[]> {
  const out = new Map<number, ImageRow[]>();
  for (const r of rows) {
    const list = out.get(r.entry_id);
    if (list) list.push(r);
    else out.set(r.entry_id, [r]);
  }
  return out;
}

/** About `maxChars` of the text around where the query's words cluster (the start when none match), and where it shows them. */
export function previewOf(text: string, matcher: TermMatcher, maxChars: number): { text: string; highlights: Span[] } {
  const preview = text.length <= maxChars ? text.trim() : snippetAround(text, 0, text.length, 1, matcher, maxChars).text.replace(/^\d+: /gm, '');
  return { text: preview, highlights: highlightSpans(preview, matcher) };
}

/** The whole text with each match of the query's words wrapped in <mark>…</mark>. */
export function highlighted(text: string, matcher: TermMatcher): string {
  let out = '';
  let at = 0;
  for (const m of matcher.find(text)) {
    if (m.start < at) continue;
    out += `${text.slice(at, m.start)}<mark>${text.slice(m.start, m.end)}</mark>`;
    at = m.end;
  }
  return out + text.slice(at);
}
